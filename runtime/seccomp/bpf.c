/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The model of a seccomp profile -> the BPF program, through libseccomp
 * (seccomp_export_bpf() into a memfd, read back into a plain buffer), and
 * a cache of such programs in a directory of the runtime's own
 * (cache-dir.c).
 *
 * libseccomp needs about 15 ms for podman's default profile, more than the
 * whole rest of `create`.  A cache entry is named by a 64-bit FNV-1a hash
 * of its key but holds the key in full: the key is every input of the
 * program (this build, libseccomp's version and API level, the native
 * architecture, the model), so a hit is an exact match, never a hash
 * collision.  Entries are written under a temporary name and renamed into
 * place; when the directory grows past CACHE_MAX entries the older half is
 * removed.  Any cache failure just means compiling.
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

#define CACHE_MAGIC "BNTSCMP2" /* 2: foreign architectures kill the process */
#define CACHE_MAX   64
#define KEY_MAX     ((size_t) 4 * 1024 * 1024)

void rt_seccomp_model_done(struct rt_seccomp_model *m)
{
        for (size_t i = 0; i < m->n_groups; i++) {
                free(m->groups[i].cmps);
                free(m->groups[i].nrs);
        }
        free(m->groups);
        free(m->arch_tokens);
        *m = (struct rt_seccomp_model){0};
}

/* ---- the key ------------------------------------------------------------ */

struct key {
        unsigned char *buf;
        size_t len, cap;
        bool failed;
};

static void key_add(struct key *k, const void *p, size_t n)
{
        if (k->failed)
                return;
        if (k->len + n > k->cap) {
                size_t cap = k->cap ? k->cap * 2 : 4096;
                unsigned char *b;

                while (cap < k->len + n)
                        cap *= 2;
                b = cap <= KEY_MAX ? realloc(k->buf, cap) : NULL;
                if (!b) {
                        k->failed = true;
                        return;
                }
                k->buf = b;
                k->cap = cap;
        }
        memcpy(k->buf + k->len, p, n);
        k->len += n;
}

static void key_u64(struct key *k, uint64_t v)
{
        key_add(k, &v, sizeof(v));
}

static void key_str(struct key *k, const char *s)
{
        key_add(k, s, strlen(s) + 1);
}

/* Fields one by one (never whole structs: padding is not data). */
static void key_group(struct key *k, const struct rt_seccomp_group *g)
{
        key_u64(k, g->action);
        key_u64(k, g->split);
        key_u64(k, g->n_cmps);
        for (size_t i = 0; i < g->n_cmps; i++) {
                key_u64(k, g->cmps[i].arg);
                key_u64(k, (uint64_t) g->cmps[i].op);
                key_u64(k, g->cmps[i].datum_a);
                key_u64(k, g->cmps[i].datum_b);
        }
        key_u64(k, g->n_nrs);
        for (size_t i = 0; i < g->n_nrs; i++)
                key_u64(k, (uint64_t) (int64_t) g->nrs[i]);
}

static bool make_key(const struct rt_seccomp_model *m, struct key *k)
{
        const struct scmp_version *v = seccomp_version();

        key_str(k, CACHE_MAGIC " " BENTO_VERSION " " BENTO_COMMIT);
        key_u64(k, v ? v->major : 0);
        key_u64(k, v ? v->minor : 0);
        key_u64(k, v ? v->micro : 0);
        key_u64(k, seccomp_api_get());
        key_u64(k, seccomp_arch_native());
        key_u64(k, m->default_action);
        key_u64(k, m->n_arch_tokens);
        for (size_t i = 0; i < m->n_arch_tokens; i++)
                key_u64(k, m->arch_tokens[i]);
        key_u64(k, m->n_groups);
        for (size_t i = 0; i < m->n_groups; i++)
                key_group(k, &m->groups[i]);
        return !k->failed;
}

static void key_name(const struct key *k, char name[17])
{
        uint64_t h = 0xcbf29ce484222325ULL;

        for (size_t i = 0; i < k->len; i++)
                h = (h ^ k->buf[i]) * 0x100000001b3ULL;
        snprintf(name, 17, "%016llx", (unsigned long long) h);
}

/* ---- the cache ------------------------------------------------------------ */

struct entry_head {
        char magic[8];
        uint32_t key_len;
        uint32_t n_insns;
};

/* Read the entry for k; true with s->prog filled on an exact hit. */
static bool cache_load(int dir, const char *name, const struct key *k, struct rt_seccomp *s)
{
        /* O_NONBLOCK: a fifo there must not hang create */
        cleanup_close int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct entry_head h;
        struct sock_filter *insns;
        unsigned char *key;
        struct stat st;
        size_t size;

        /* only an entry this user wrote and nobody else can change */
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
            (st.st_mode & 0022) || pread(fd, &h, sizeof(h), 0) != (ssize_t) sizeof(h))
                return false;
        size = sizeof(h) + (size_t) h.key_len + (size_t) h.n_insns * sizeof(struct sock_filter);
        if (memcmp(h.magic, CACHE_MAGIC, 8) != 0 || h.key_len != k->len || h.n_insns == 0 ||
            h.n_insns > RT_SECCOMP_MAX_INSNS || (size_t) st.st_size != size)
                return false;
        key = malloc(size - sizeof(h));
        if (!key)
                return false;
        if (pread(fd, key, size - sizeof(h), sizeof(h)) != (ssize_t) (size - sizeof(h)) ||
            memcmp(key, k->buf, k->len) != 0) {
                free(key);
                return false;
        }
        insns = malloc((size_t) h.n_insns * sizeof(struct sock_filter));
        if (insns)
                memcpy(insns, key + k->len, (size_t) h.n_insns * sizeof(struct sock_filter));
        free(key);
        if (!insns)
                return false;
        /* the age that eviction goes by is that of the last use */
        (void) futimens(fd, NULL);
        s->prog.filter = insns;
        s->prog.len = (unsigned short) h.n_insns;
        return true;
}

static int cmp_mtime(const void *a, const void *b)
{
        const struct timespec *x = a, *y = b;

        if (x->tv_sec != y->tv_sec)
                return x->tv_sec < y->tv_sec ? -1 : 1;
        return x->tv_nsec < y->tv_nsec ? -1 : x->tv_nsec > y->tv_nsec;
}

/* Past CACHE_MAX entries, remove those older than the median use. */
static void cache_evict(int dir)
{
        struct timespec times[CACHE_MAX + 1];
        struct timespec median;
        cleanup_dir DIR *d = NULL;
        struct dirent *e;
        struct stat st;
        size_t n = 0;
        int fd = dup(dir);

        if (fd < 0 || !(d = fdopendir(fd))) {
                if (fd >= 0)
                        close(fd);
                return;
        }
        while ((e = readdir(d)) && n <= CACHE_MAX)
                if (e->d_name[0] != '.' && fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
                        times[n++] = st.st_mtim;
        if (n <= CACHE_MAX)
                return;
        qsort(times, n, sizeof(times[0]), cmp_mtime);
        median = times[n / 2];
        rewinddir(d);
        while ((e = readdir(d)))
                if (e->d_name[0] != '.' && fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                    cmp_mtime(&st.st_mtim, &median) < 0)
                        (void) unlinkat(dir, e->d_name, 0);
}

static void cache_store(int dir, const char *name, const struct key *k,
                        const struct sock_fprog *prog)
{
        struct entry_head h = {.key_len = (uint32_t) k->len, .n_insns = prog->len};
        size_t insns = (size_t) prog->len * sizeof(struct sock_filter);
        char tmp[64];
        int fd;
        bool ok;

        memcpy(h.magic, CACHE_MAGIC, 8);
        cache_evict(dir);
        snprintf(tmp, sizeof(tmp), ".tmp-%d-%s", (int) getpid(), name);
        fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return;
        ok = write(fd, &h, sizeof(h)) == (ssize_t) sizeof(h) &&
             write(fd, k->buf, k->len) == (ssize_t) k->len &&
             write(fd, prog->filter, insns) == (ssize_t) insns;
        close(fd);
        if (!ok || renameat(dir, tmp, dir, name) < 0)
                (void) unlinkat(dir, tmp, 0);
}

/* ---- libseccomp ----------------------------------------------------------- */

static int add_group(scmp_filter_ctx ctx, const struct rt_seccomp_group *g, struct bento_err *err)
{
        int r = 0;

        for (size_t i = 0; r >= 0 && i < g->n_nrs; i++) {
                if (!g->split)
                        r = seccomp_rule_add_array(ctx, g->action, g->nrs[i],
                                                   (unsigned int) g->n_cmps, g->cmps);
                for (size_t j = 0; g->split && r >= 0 && j < g->n_cmps; j++)
                        r = seccomp_rule_add_array(ctx, g->action, g->nrs[i], 1, &g->cmps[j]);
                if (r < 0) {
                        cleanup_free char *name =
                            seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, g->nrs[i]);

                        return bento_err_set(err, -r,
                                             "linux.seccomp.syscalls[%zu]: libseccomp refused "
                                             "the rule for \"%s\"",
                                             g->index, name ? name : "?");
                }
        }
        return 0;
}

/* seccomp_export_bpf() writes to an fd: let it write into memory. */
static int export_bpf(scmp_filter_ctx ctx, struct sock_fprog *prog, struct bento_err *err)
{
        cleanup_close int fd = memfd_create("bento-seccomp-bpf", MFD_CLOEXEC);
        struct sock_filter *insns = NULL;
        struct stat st;
        size_t n;
        int r;

        if (fd < 0)
                return bento_err_set(err, errno, "linux.seccomp: memfd_create");
        r = seccomp_export_bpf(ctx, fd);
        if (r < 0)
                return bento_err_set(err, -r, "linux.seccomp: seccomp_export_bpf");
        if (fstat(fd, &st) < 0)
                return bento_err_set(err, errno, "linux.seccomp: fstat");
        n = (size_t) st.st_size / sizeof(struct sock_filter);
        if (n == 0 || (size_t) st.st_size % sizeof(struct sock_filter) != 0)
                return bento_err_setx(err, EINVAL, "linux.seccomp: libseccomp exported %lld bytes",
                                      (long long) st.st_size);
        if (n > RT_SECCOMP_MAX_INSNS)
                return bento_err_setx(err, E2BIG,
                                      "linux.seccomp: the filter compiles to %zu BPF "
                                      "instructions, the kernel loads at most %d",
                                      n, RT_SECCOMP_MAX_INSNS);
        insns = malloc((size_t) st.st_size);
        if (!insns)
                return bento_err_set(err, ENOMEM, "linux.seccomp");
        if (pread(fd, insns, (size_t) st.st_size, 0) != st.st_size) {
                free(insns);
                return bento_err_set(err, EIO, "linux.seccomp: reading the BPF back");
        }
        prog->filter = insns;
        prog->len = (unsigned short) n;
        return 0;
}

static int build(const struct rt_seccomp_model *m, struct sock_fprog *prog, struct bento_err *err)
{
        cleanup_seccomp scmp_filter_ctx ctx = seccomp_init(m->default_action);
        int r = 0;

        if (!ctx)
                return bento_err_setx(err, EINVAL,
                                      "linux.seccomp.defaultAction: libseccomp refused it");
        /* real errno values from libseccomp, for the messages */
        (void) seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
        /* A system call of an architecture the filter does not list (i386
         * via int 0x80, x32) kills the whole process, not just the calling
         * thread: a multi-threaded target must not live on after trying. */
        (void) seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        for (size_t i = 0; r >= 0 && i < m->n_arch_tokens; i++) {
                r = seccomp_arch_add(ctx, m->arch_tokens[i]);
                if (r == -EEXIST) /* the native one is always there */
                        r = 0;
                else if (r < 0)
                        r = bento_err_set(err, -r, "linux.seccomp.architectures[%zu]", i);
        }
        for (size_t i = 0; r >= 0 && i < m->n_groups; i++)
                r = add_group(ctx, &m->groups[i], err);
        return r < 0 ? r : export_bpf(ctx, prog, err);
}

int rt_seccomp_generate(const struct rt_seccomp_model *m, int cache_fd, struct rt_seccomp *s,
                        struct bento_err *err)
{
        struct key k = {0};
        char name[17] = "";
        int r;

        if (cache_fd >= 0 && make_key(m, &k)) {
                key_name(&k, name);
                if (cache_load(cache_fd, name, &k, s)) {
                        s->cached = true;
                        free(k.buf);
                        return 0;
                }
        }
        r = build(m, &s->prog, err);
        if (r >= 0 && cache_fd >= 0 && !k.failed && k.len)
                cache_store(cache_fd, name, &k, &s->prog);
        free(k.buf);
        return r;
}
