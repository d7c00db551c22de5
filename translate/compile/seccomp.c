/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.json "linux.seccomp": a deny-list (default SCMP_ACT_ALLOW, x86_64
 * only) made of the exec mode's rules (docs/exec-gate.md,
 * "What the bundle says") and, in every mode, the privilege-bit rules.
 *
 * Exec block: execve and execveat go to a seccomp user-notification
 * listener (bento-exec-gate) that lets exactly one through, the runtime's
 * own exec of the target, and refuses every later one.  A runtime that
 * finds nobody listening refuses to start the container, and a gate that
 * goes away makes the kernel fail the calls: the block fails closed.
 * bento run --record-exec sends the same two calls to the same listener
 * under exec: all, where the gate runs in record mode and lets all
 * through (docs/exec-gate.md, "Record mode").
 * Syscalls of a foreign architecture (i386, x32) are the only thing that
 * kills: the filter lists x86_64 alone, and the bad-architecture action
 * of every runtime is a kill.
 *
 * Privilege bits: the box's uid is the caller's, so when root runs bento a
 * file the box makes setuid (or setgid, or gives file capabilities) in a
 * write grant is a root-privileged program on the host.  The filter
 * refuses with EPERM every call that could put S_ISUID or S_ISGID into a
 * mode (chmod family; open, creat, mknod and mkdir families when they
 * create), and every xattr write: seccomp cannot read the attribute name
 * behind the pointer, so security.capability cannot be told from user.*.
 * openat2 hides its mode in a struct: it fails with ENOSYS, on which libc
 * and programs fall back to openat, which the filter can read.  io_uring
 * opens files and sets xattrs from a ring the filter never sees: refused.
 * Each rule's conditions are on distinct arguments (ANDed by every
 * runtime); the variants are separate entries (ORed).  Conditions on one
 * argument twice would be split into ORed rules by runc, crun and
 * bento-runtime alike, so the bits are never combined in one entry.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#include "internal.h"

#define CLONE_THREAD_BIT 0x10000
#define ERRNO_EPERM      1
#define ERRNO_ENOSYS     38
#define ERRNO_EOPNOTSUPP 95
/* The bit of O_TMPFILE that makes the kernel create (O_TMPFILE also
 * carries O_DIRECTORY, which a plain open has too). */
#define TMPFILE_BIT 020000000

/* One argument condition: (args[index] & mask) == value. */
struct seccomp_cond {
        unsigned int index;
        uint64_t mask, value;
};

static void write_cond(struct bento_jsonw *w, const struct seccomp_cond *c)
{
        bento_jsonw_open_object(w);
        bento_jsonw_kuint(w, "index", c->index);
        bento_jsonw_kuint(w, "value", c->mask);
        bento_jsonw_kuint(w, "valueTwo", c->value);
        bento_jsonw_kstring(w, "op", "SCMP_CMP_MASKED_EQ");
        bento_jsonw_close_object(w);
}

/* One syscalls[] entry; n_conds conditions, all of which must hold. */
static void write_rule(struct bento_jsonw *w, const char *const *names, const char *action,
                       int errno_ret, const struct seccomp_cond *conds, size_t n_conds)
{
        bento_jsonw_open_object(w);
        bento_jsonw_key(w, "names");
        bento_jsonw_open_array(w);
        for (; *names; names++)
                bento_jsonw_string(w, *names);
        bento_jsonw_close_array(w);
        bento_jsonw_kstring(w, "action", action);
        if (errno_ret)
                bento_jsonw_kuint(w, "errnoRet", (unsigned) errno_ret);
        if (n_conds) {
                bento_jsonw_key(w, "args");
                bento_jsonw_open_array(w);
                for (size_t i = 0; i < n_conds; i++)
                        write_cond(w, &conds[i]);
                bento_jsonw_close_array(w);
        }
        bento_jsonw_close_object(w);
}

/* With init (bento-init as process 1, which needs the gate), none-strict's
 * process clones go to the gate, which lets through bento-init's one fork of
 * the target and refuses every other with EPERM, as the filter would. */
static void write_exec_rules(struct bento_jsonw *w, enum manifest_exec mode, bool notify, bool init)
{
        /* clone without CLONE_THREAD: (flags & CLONE_THREAD) == 0 -> EPERM. */
        static const struct seccomp_cond process_clone = {0, CLONE_THREAD_BIT, 0};

        if (notify)
                write_rule(w, (const char *const[]){"execve", "execveat", NULL}, "SCMP_ACT_NOTIFY",
                           0, NULL, 0);
        if (mode != MANIFEST_EXEC_NONE_STRICT)
                return;
        write_rule(w, (const char *const[]){"fork", "vfork", NULL}, "SCMP_ACT_ERRNO", ERRNO_EPERM,
                   NULL, 0);
        if (notify && init)
                write_rule(w, (const char *const[]){"clone", NULL}, "SCMP_ACT_NOTIFY", 0,
                           &process_clone, 1);
        else
                write_rule(w, (const char *const[]){"clone", NULL}, "SCMP_ACT_ERRNO", ERRNO_EPERM,
                           &process_clone, 1);
        /* glibc falls back to clone(2) on ENOSYS, which the rule above
         * can inspect; clone3's flags live in memory it cannot. */
        write_rule(w, (const char *const[]){"clone3", NULL}, "SCMP_ACT_ERRNO", ERRNO_ENOSYS, NULL,
                   0);
}

/* The calls whose mode argument always takes effect, by its index. */
static const char *const mode_at_1[] = {"chmod", "creat", "fchmod", "mkdir", "mknod", NULL};
static const char *const mode_at_2[] = {"fchmodat", "fchmodat2", "mkdirat", "mknodat", NULL};

/* open and openat: the mode counts only when the flags create a file. */
struct open_call {
        const char *const *names;
        unsigned int flags_arg, mode_arg;
};

static const struct open_call open_calls[] = {
    {(const char *const[]){"open", NULL}, 1, 2},
    {(const char *const[]){"openat", NULL}, 2, 3},
};

static void write_mode_rules(struct bento_jsonw *w, const char *const *names, unsigned int arg)
{
        static const unsigned int bits[] = {S_ISUID, S_ISGID};

        for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
                struct seccomp_cond c = {arg, bits[b], bits[b]};

                write_rule(w, names, "SCMP_ACT_ERRNO", ERRNO_EPERM, &c, 1);
        }
}

static void write_open_rules(struct bento_jsonw *w, const struct open_call *o)
{
        static const unsigned int bits[] = {S_ISUID, S_ISGID};
        static const unsigned int creating[] = {O_CREAT, TMPFILE_BIT};

        for (size_t f = 0; f < sizeof(creating) / sizeof(creating[0]); f++)
                for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
                        struct seccomp_cond c[2] = {{o->flags_arg, creating[f], creating[f]},
                                                    {o->mode_arg, bits[b], bits[b]}};

                        write_rule(w, o->names, "SCMP_ACT_ERRNO", ERRNO_EPERM, c, 2);
                }
}

static void write_privilege_rules(struct bento_jsonw *w)
{
        write_mode_rules(w, mode_at_1, 1);
        write_mode_rules(w, mode_at_2, 2);
        for (size_t i = 0; i < sizeof(open_calls) / sizeof(open_calls[0]); i++)
                write_open_rules(w, &open_calls[i]);
        /* struct open_how is behind a pointer: ENOSYS sends callers to
         * openat, whose mode the rules above can see. */
        write_rule(w, (const char *const[]){"openat2", NULL}, "SCMP_ACT_ERRNO", ERRNO_ENOSYS, NULL,
                   0);
        /* EOPNOTSUPP, not EPERM: what a file system without xattrs
         * answers, on which cp -p and cp -a fall back to fchmod and carry
         * on (they report EPERM from the ACL write and exit 1).  A runtime
         * whose libseccomp does not know setxattrat skips it (with a
         * warning); there the empty capability sets still stop
         * security.capability. */
        write_rule(w,
                   (const char *const[]){"fsetxattr", "lsetxattr", "setxattr", "setxattrat", NULL},
                   "SCMP_ACT_ERRNO", ERRNO_EOPNOTSUPP, NULL, 0);
        write_rule(
            w, (const char *const[]){"io_uring_enter", "io_uring_register", "io_uring_setup", NULL},
            "SCMP_ACT_ERRNO", ERRNO_EPERM, NULL, 0);
}

void compile_write_seccomp(struct bento_jsonw *w, const struct policy *p, const char *listener,
                           bool gate, bool record, bool init)
{
        enum manifest_exec mode = p->m->exec;
        bool notify = gate && (mode != MANIFEST_EXEC_ALL || record);

        bento_jsonw_key(w, "seccomp");
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "defaultAction", "SCMP_ACT_ALLOW");
        bento_jsonw_kstrv(w, "architectures", (char *const[]){"SCMP_ARCH_X86_64"}, 1);
        if (notify) {
                bento_jsonw_kstring(w, "listenerPath", listener);
                bento_jsonw_kstring(w, "listenerMetadata",
                                    init ? COMPILE_GATE_METADATA_INIT : COMPILE_GATE_METADATA);
        }
        bento_jsonw_key(w, "syscalls");
        bento_jsonw_open_array(w);
        write_exec_rules(w, mode, notify, init);
        write_privilege_rules(w);
        bento_jsonw_close_array(w);
        bento_jsonw_close_object(w);
}
