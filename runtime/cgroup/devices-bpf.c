/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cgroup v2 device controller (see internal.h).  v2 has no
 * devices.allow/deny files: the kernel asks a BPF_PROG_TYPE_CGROUP_DEVICE
 * program attached to the cgroup instead.  The program is generated here,
 * as raw instructions, from the policy the v1 code writes (deny everything,
 * the default devices of runtime-spec config-linux.md and linux.devices, then the config's
 * rules in order); the last rule that matches decides, so the checks are
 * emitted newest first and the first match returns.  It is attached with
 * BPF_F_ALLOW_MULTI, so programs of the ancestors still run, and it lives
 * as long as the cgroup: removing the cgroup releases it.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"

#define ACC_ALL (BPF_DEVCG_ACC_MKNOD | BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE)
#define ANY     (-1)

struct dev_rule {
        int64_t major, minor; /* ANY: every number */
        unsigned access;      /* BPF_DEVCG_ACC_* bits */
        char type;            /* 'a', 'b' or 'c' */
        bool allow;
};

#define RULE(t, maj, min, acc, ok)                                                                 \
        {                                                                                          \
                .major = (maj), .minor = (min), .access = (acc), .type = (t), .allow = (ok)        \
        }

struct rule_list {
        struct dev_rule *r;
        size_t n, cap;
};

/* The same set as default_allow in devices.c (runtime-spec config-linux.md, "Default Devices"). */
static const struct dev_rule default_allow[] = {
    RULE('c', ANY, ANY, BPF_DEVCG_ACC_MKNOD, true),
    RULE('b', ANY, ANY, BPF_DEVCG_ACC_MKNOD, true),
    RULE('c', 1, 3, ACC_ALL, true),
    RULE('c', 1, 5, ACC_ALL, true),
    RULE('c', 1, 7, ACC_ALL, true),
    RULE('c', 1, 8, ACC_ALL, true),
    RULE('c', 1, 9, ACC_ALL, true),
    RULE('c', 5, 0, ACC_ALL, true),
    RULE('c', 5, 1, ACC_ALL, true),
    RULE('c', 5, 2, ACC_ALL, true),
    RULE('c', 136, ANY, ACC_ALL, true),
    RULE('c', 10, 200, ACC_ALL, true),
};

#define N_DEFAULT (sizeof(default_allow) / sizeof(default_allow[0]))

static void add(struct rule_list *l, const struct dev_rule *r)
{
        if (l->n < l->cap)
                l->r[l->n++] = *r;
}

static void add_defaults(struct rule_list *l, const struct oci_config *cfg)
{
        for (size_t i = 0; i < N_DEFAULT; i++)
                add(l, &default_allow[i]);
        for (size_t i = 0; cfg && i < cfg->linux_.n_devices; i++) {
                const struct oci_device *d = &cfg->linux_.devices[i];
                struct dev_rule r =
                    RULE(d->type == 'b' ? 'b' : 'c', d->major, d->minor, ACC_ALL, true);

                if (d->type != 'p')
                        add(l, &r);
        }
}

static int64_t id_of(const struct bento_json *rule, const char *key)
{
        const struct bento_json *v = bento_json_get(rule, key);

        return v && v->type == BENTO_JSON_NUMBER && v->u.number.fits_i64 ? v->u.number.i : ANY;
}

/* A rule checked by cg_limits_parse. */
static struct dev_rule rule_of(const struct bento_json *rule)
{
        const struct bento_json *type = bento_json_get(rule, "type");
        const struct bento_json *access = bento_json_get(rule, "access");
        const char *a = access && access->type == BENTO_JSON_STRING ? access->u.string.s : "rwm";
        struct dev_rule r = {
            .type = type && type->type == BENTO_JSON_STRING ? type->u.string.s[0] : 'a',
            .major = id_of(rule, "major"),
            .minor = id_of(rule, "minor"),
            .allow = bento_json_get(rule, "allow")->u.boolean,
        };

        r.access = (strchr(a, 'r') ? BPF_DEVCG_ACC_READ : 0) |
                   (strchr(a, 'w') ? BPF_DEVCG_ACC_WRITE : 0) |
                   (strchr(a, 'm') ? BPF_DEVCG_ACC_MKNOD : 0);
        return r;
}

/* The effective list, lowest precedence first.  As on v1, denying every
 * device gives the defaults back, so later rules can still narrow them. */
static int build_rules(const struct oci_config *cfg, const struct bento_json *rules,
                       struct rule_list *ret)
{
        size_t n = rules ? rules->u.array.n : 0;
        size_t per = N_DEFAULT + (cfg ? cfg->linux_.n_devices : 0);
        const struct dev_rule deny_all = RULE('a', ANY, ANY, ACC_ALL, false);

        ret->n = 0;
        ret->cap = 1 + per + n * (1 + per);
        ret->r = calloc(ret->cap, sizeof(*ret->r));
        if (!ret->r)
                return -ENOMEM;
        add(ret, &deny_all);
        add_defaults(ret, cfg);
        for (size_t i = 0; i < n; i++) {
                struct dev_rule r = rule_of(rules->u.array.items[i]);

                add(ret, &r);
                if (r.type == 'a' && !r.allow && r.major == ANY && r.minor == ANY)
                        add_defaults(ret, cfg);
        }
        return 0;
}

static bool unconditional(const struct dev_rule *r)
{
        return r->type == 'a' && r->major == ANY && r->minor == ANY && r->access == ACC_ALL;
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
        return (struct bpf_insn){
            .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm};
}

/* Registers after the prologue: r2 device type, r3 access, r4 major, r5 minor. */
static size_t prologue(struct bpf_insn *p)
{
        p[0] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, 0, 0);
        p[1] = insn(BPF_ALU | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
        p[2] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1, 0, 0);
        p[3] = insn(BPF_ALU | BPF_RSH | BPF_K, BPF_REG_3, 0, 0, 16);
        p[4] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, BPF_REG_1, 4, 0);
        p[5] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_5, BPF_REG_1, 8, 0);
        return 6;
}

/* One rule: checks that jump past the block when it does not match, then
 * the verdict.  An allow rule matches an access it covers entirely, a deny
 * rule one that asks for any of its bits.  A jump at p[k] lands on p[len]
 * (the next block) with offset len - k - 1. */
static size_t block(const struct dev_rule *r, struct bpf_insn *p)
{
        bool acc = r->access != ACC_ALL;
        int16_t len =
            (int16_t) (2 + (r->type != 'a') + 3 * acc + (r->major != ANY) + (r->minor != ANY));
        int16_t k = 0;

        if (r->type != 'a') {
                int32_t t = r->type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR;
                p[k] = insn(BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_2, 0, (int16_t) (len - k - 1), t);
                k++;
        }
        if (acc) {
                p[k++] = insn(BPF_ALU | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_3, 0, 0);
                p[k++] = insn(BPF_ALU | BPF_AND | BPF_K, BPF_REG_1, 0, 0,
                              (int32_t) (r->allow ? ~r->access & 0xffff : r->access));
                p[k] = insn(BPF_JMP32 | (r->allow ? BPF_JNE : BPF_JEQ) | BPF_K, BPF_REG_1, 0,
                            (int16_t) (len - k - 1), 0);
                k++;
        }
        if (r->major != ANY) {
                p[k] = insn(BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_4, 0, (int16_t) (len - k - 1),
                            (int32_t) (uint32_t) r->major);
                k++;
        }
        if (r->minor != ANY) {
                p[k] = insn(BPF_JMP32 | BPF_JNE | BPF_K, BPF_REG_5, 0, (int16_t) (len - k - 1),
                            (int32_t) (uint32_t) r->minor);
                k++;
        }
        p[k++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, r->allow ? 1 : 0);
        p[k++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
        return (size_t) k;
}

/* Newest rule first; nothing after a rule that matches every access (the
 * verifier refuses unreachable code), else a final deny. */
static int compile(const struct rule_list *l, struct bpf_insn **ret, size_t *ret_n)
{
        struct bpf_insn *p = calloc(6 + 9 * l->n + 2, sizeof(*p));
        size_t n;
        bool done = false;

        if (!p)
                return -ENOMEM;
        n = prologue(p);
        for (size_t i = l->n; i > 0 && !done; i--) {
                const struct dev_rule *r = &l->r[i - 1];

                /* a number the kernel cannot hold never matches */
                if (r->major > UINT32_MAX || r->minor > UINT32_MAX)
                        continue;
                n += block(r, p + n);
                done = unconditional(r);
        }
        if (!done) {
                p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
                p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
        }
        *ret = p;
        *ret_n = n;
        return 0;
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
        return (int) syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* A program fd, or -errno with the verifier's last words in log. */
static int prog_load(const struct bpf_insn *insns, size_t n, char *log, size_t log_size)
{
        union bpf_attr attr;
        int fd;

        memset(&attr, 0, sizeof(attr));
        attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
        attr.insns = (uint64_t) (uintptr_t) insns;
        attr.insn_cnt = (uint32_t) n;
        /* no GPL-only helper is called: any license string will do */
        attr.license = (uint64_t) (uintptr_t) "Apache-2.0";
        fd = sys_bpf(BPF_PROG_LOAD, &attr);
        if (fd >= 0 || errno != EACCES)
                return fd >= 0 ? fd : -errno;
        /* the verifier said no: load again for its reason */
        attr.log_level = 1;
        attr.log_buf = (uint64_t) (uintptr_t) log;
        attr.log_size = (uint32_t) log_size;
        fd = sys_bpf(BPF_PROG_LOAD, &attr);
        return fd >= 0 ? fd : -errno;
}

static uint32_t prog_id(int fd)
{
        struct bpf_prog_info info;
        union bpf_attr attr;

        memset(&info, 0, sizeof(info));
        memset(&attr, 0, sizeof(attr));
        attr.info.bpf_fd = (uint32_t) fd;
        attr.info.info_len = sizeof(info);
        attr.info.info = (uint64_t) (uintptr_t) &info;
        return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0 ? 0 : info.id;
}

/* Read back: the program is among the cgroup's own device programs. */
static bool attached(int cgfd, uint32_t id)
{
        uint32_t ids[64] = {0};
        union bpf_attr attr;

        memset(&attr, 0, sizeof(attr));
        attr.query.target_fd = (uint32_t) cgfd;
        attr.query.attach_type = BPF_CGROUP_DEVICE;
        attr.query.prog_ids = (uint64_t) (uintptr_t) ids;
        attr.query.prog_cnt = sizeof(ids) / sizeof(ids[0]);
        if (sys_bpf(BPF_PROG_QUERY, &attr) < 0)
                return false;
        for (uint32_t i = 0; i < attr.query.prog_cnt && i < sizeof(ids) / sizeof(ids[0]); i++)
                if (ids[i] == id)
                        return true;
        return false;
}

static int attach(const struct cg_hier *h, int prog, struct bento_err *err)
{
        cleanup_free char *dir = cg_file(h, NULL);
        cleanup_close int cgfd = -1;
        union bpf_attr attr;

        if (!dir)
                return bento_err_set(err, ENOMEM, "devices");
        cgfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (cgfd < 0)
                return bento_err_set(err, errno, "cannot open cgroup %s", dir);
        memset(&attr, 0, sizeof(attr));
        attr.target_fd = (uint32_t) cgfd;
        attr.attach_bpf_fd = (uint32_t) prog;
        attr.attach_type = BPF_CGROUP_DEVICE;
        attr.attach_flags = BPF_F_ALLOW_MULTI;
        if (sys_bpf(BPF_PROG_ATTACH, &attr) < 0)
                return bento_err_set(err, errno, "cannot attach the device program to cgroup %s",
                                     dir);
        if (!attached(cgfd, prog_id(prog)))
                return bento_err_setx(err, EIO,
                                      "the device program is not attached to cgroup %s "
                                      "after BPF_PROG_ATTACH",
                                      dir);
        return 0;
}

/* "allow c 1:3 rwm", as devices.list spells a rule, with its verdict. */
static struct bento_json *describe(const struct rule_list *l)
{
        struct bento_json *a = bento_json_new_array();
        int r = a ? 0 : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < l->n; i++) {
                const struct dev_rule *d = &l->r[i];
                char maj[24] = "*", min[24] = "*", line[96];

                if (d->major != ANY)
                        snprintf(maj, sizeof(maj), "%" PRId64, d->major);
                if (d->minor != ANY)
                        snprintf(min, sizeof(min), "%" PRId64, d->minor);
                snprintf(line, sizeof(line), "%s %c %s:%s %s%s%s", d->allow ? "allow" : "deny",
                         d->type, maj, min, d->access & BPF_DEVCG_ACC_READ ? "r" : "",
                         d->access & BPF_DEVCG_ACC_WRITE ? "w" : "",
                         d->access & BPF_DEVCG_ACC_MKNOD ? "m" : "");
                r = bento_json_array_append(a, bento_json_new_string(line));
        }
        return r < 0 ? bento_json_free(a) : a;
}

int cg_devices_bpf_apply(const struct cg_hier *h, const struct oci_config *cfg,
                         const struct bento_json *rules, struct bento_json **ret_list,
                         struct bento_err *err)
{
        struct rule_list l = {.n = 0};
        cleanup_free struct bpf_insn *insns = NULL;
        cleanup_close int prog = -1;
        struct bento_json *list = NULL;
        char log[4096] = "";
        size_t n = 0;
        int r = build_rules(cfg, rules, &l);

        if (r >= 0)
                r = compile(&l, &insns, &n);
        if (r >= 0 && !(list = describe(&l)))
                r = -ENOMEM;
        free(l.r);
        if (r < 0)
                return bento_err_set(err, -r, "devices");
        prog = prog_load(insns, n, log, sizeof(log));
        if (prog < 0) {
                char *last = strrchr(log, '\n');

                while (last && last > log && last[1] == '\0') {
                        *last = '\0';
                        last = strrchr(log, '\n');
                }
                bento_json_free(list);
                return bento_err_set(err, -prog,
                                     "linux.resources devices: cannot load the eBPF device "
                                     "program (%zu instructions)%s%s",
                                     n, log[0] ? ": " : "", last ? last + 1 : log);
        }
        r = attach(h, prog, err);
        if (r < 0) {
                bento_json_free(list);
                return bento_err_prefix(err, "linux.resources devices");
        }
        *ret_list = list;
        return 0;
}
