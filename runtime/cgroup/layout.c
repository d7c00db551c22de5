/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which cgroup hierarchies exist and where (see internal.h), and the
 * file-level helpers every cgroup module uses: read and write one file of
 * the container's cgroup, make and remove the cgroup directories, list the
 * processes in it, say where a process is; and where the container's
 * cgroup goes in each hierarchy.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "mountinfo.h"
#include "base/safe-path.h"
#include "base/proc.h"

#define UNIFIED_KEY "unified"

const char *cg_mode_name(enum cg_mode mode)
{
        return mode == CG_MODE_V2 ? "v2" : mode == CG_MODE_HYBRID ? "hybrid" : "v1";
}

void cg_layout_done(struct cg_layout *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->h[i].key);
                free(l->h[i].mnt);
                free(l->h[i].root);
                free(l->h[i].base);
                free(l->h[i].path);
        }
        l->n = 0;
}

/* A cgroup or cgroup2 entry of mountinfo; the strings point into the
 * buffer it was parsed from. */
struct cg_mount {
        const char *root, *mnt, *superopts;
        bool v2;
        bool covered; /* a later mount (of any kind) is at or above mnt */
};

struct cg_mounts {
        struct cg_mount *m;
        size_t n;
};

static void cg_mounts_done(struct cg_mounts *ms)
{
        free(ms->m);
}
#define cleanup_mounts __attribute__((cleanup(cg_mounts_done)))

/* A mount at mnt hides the cgroup mounts listed before it at or below mnt. */
static void mark_covered(struct cg_mounts *ms, const char *mnt)
{
        for (size_t i = 0; i < ms->n; i++)
                if (rt_path_within(ms->m[i].mnt, mnt))
                        ms->m[i].covered = true;
}

/* The cgroup mounts of mountinfo (modified in place), in mountinfo order,
 * each marked when a later mount covers it (mounts stack: mountinfo lists
 * them in the order they were made, and a pure v1 view made by mounting
 * a tmpfs over /sys/fs/cgroup still lists the cgroup2 mount below it).
 * Lines that do not parse are passed over. */
static int parse_mounts(char *mountinfo, struct cg_mounts *ret)
{
        struct bento_mountinfo mi;
        char *pos = mountinfo;
        size_t cap = 0;
        int r;

        ret->m = NULL;
        ret->n = 0;
        while ((r = bento_mountinfo_next(&pos, &mi)) != 0) {
                if (r < 0)
                        continue;
                mark_covered(ret, mi.mnt);
                if (strcmp(mi.fstype, "cgroup2") != 0 && strcmp(mi.fstype, "cgroup") != 0)
                        continue;
                if (ret->n == cap) {
                        struct cg_mount *p =
                            reallocarray(ret->m, cap = cap ? cap * 2 : 16, sizeof(*p));
                        if (!p) {
                                free(ret->m);
                                ret->m = NULL;
                                return -ENOMEM;
                        }
                        ret->m = p;
                }
                ret->m[ret->n++] = (struct cg_mount){.root = mi.root,
                                                     .mnt = mi.mnt,
                                                     .superopts = mi.superopts,
                                                     .v2 = mi.fstype[6] == '2'};
        }
        return 0;
}

/* The part of hierarchy path `path` below `root` ("" for root itself), or
 * NULL when path is not below root. */
static const char *below_root(const char *path, const char *root)
{
        size_t rl = strcmp(root, "/") == 0 ? 0 : strlen(root);

        if (rl && (strncmp(path, root, rl) != 0 || (path[rl] && path[rl] != '/')))
                return NULL;
        return path + rl;
}

/* The hierarchy-relative path of the caller becomes relative to where the
 * hierarchy is mounted: mnt then names the hierarchy root as seen from
 * here (normally root is "/" and nothing changes). */
int cg_hier_set_mount(struct cg_hier *h, const char *mnt, const char *root)
{
        const char *rest = below_root(h->base, root);

        if (!rest)
                return 0;
        /* the visible part of the hierarchy starts at root: keep paths
         * relative to it */
        memmove(h->base, rest, strlen(rest) + 1);
        if (!h->base[0]) {
                h->base[0] = '/';
                h->base[1] = '\0';
        }
        h->mnt = strdup(mnt);
        h->root = strdup(root);
        if (h->mnt && h->root)
                return 1;
        free(h->mnt);
        free(h->root);
        h->mnt = h->root = NULL;
        return -ENOMEM;
}

/* The last matching entry that nothing covers: mountinfo lists mounts in
 * the order they were made, and a later mount (at the same point or above
 * it) covers an earlier one, so the first match may be one that can no
 * longer be reached. */
static int find_mount(const struct cg_mounts *ms, struct cg_hier *h)
{
        for (size_t i = ms->n; i-- > 0;) {
                const struct cg_mount *m = &ms->m[i];
                int r;

                if (m->covered || m->v2 != h->v2 ||
                    (!h->v2 && !bento_mount_opts_all_in(h->key, m->superopts)))
                        continue;
                r = cg_hier_set_mount(h, m->mnt, m->root);
                if (r != 0)
                        return r;
        }
        return 0;
}

/* One /proc/self/cgroup line: "hierarchy-id:controllers:path".  Without
 * ms, the hierarchy is looked for at its usual place only, and -EAGAIN
 * says it is not there (mountinfo must be read after all); with_v1: the
 * host has v1 hierarchies too. */
static int add_hierarchy(struct cg_layout *l, char *line, const struct cg_mounts *ms, bool with_v1)
{
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        struct cg_hier *h;
        size_t path_len;
        int r;

        if (!c2 || l->n == CG_MAX_HIER)
                return 0;
        *c1 = *c2 = '\0';
        h = &l->h[l->n];
        memset(h, 0, sizeof(*h));
        h->v2 = strcmp(line, "0") == 0 && c1[1] == '\0';
        if (!h->v2 && c1[1] == '\0')
                return 0;
        h->key = strdup(h->v2 ? UNIFIED_KEY : c1 + 1);
        path_len = strlen(c2 + 1);
        /* room for "/" when the visible root is stripped to nothing */
        h->base = malloc(path_len + 2);
        if (!h->key || !h->base) {
                free(h->key);
                free(h->base);
                return -ENOMEM;
        }
        memcpy(h->base, c2 + 1, path_len + 1);
        if (ms) {
                r = find_mount(ms, h);
        } else {
                r = cg_mount_at_usual_place(h, with_v1);
                r = r == 2 ? 0 : r == 0 ? -EAGAIN : r;
        }
        if (r <= 0) {
                free(h->key);
                free(h->base);
                return r;
        }
        l->n++;
        return 0;
}

/* A line of /proc/self/cgroup names v1 controllers ("4:memory:/"). */
static bool lists_v1(const char *cgroups)
{
        for (const char *p = cgroups; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
                const char *c1 = strchr(p, ':');

                if (c1 && c1[1] != ':' && c1[1] != '\n' && c1[1] != '\0')
                        return true;
        }
        return false;
}

/* Every hierarchy of /proc/self/cgroup (modified in place), with its mount
 * from ms, or at its usual place when ms is NULL (-EAGAIN: not there). */
static int add_all(struct cg_layout *l, char *cgroups, const struct cg_mounts *ms)
{
        bool with_v1 = lists_v1(cgroups);
        char *save = NULL;
        int r = 0;

        for (char *line = strtok_r(cgroups, "\n", &save); line && r >= 0;
             line = strtok_r(NULL, "\n", &save))
                r = add_hierarchy(l, line, ms, with_v1);
        return r;
}

static int load_from_mountinfo(struct cg_layout *l, char *cgroups, struct bento_err *err)
{
        cleanup_free char *mountinfo = NULL;
        cleanup_mounts struct cg_mounts ms = {.m = NULL, .n = 0};
        int r;

        r = bento_mountinfo_read("/proc/self/mountinfo", &mountinfo, err);
        if (r < 0)
                return r;
        /* parsed once, for every hierarchy */
        r = parse_mounts(mountinfo, &ms);
        if (r >= 0)
                r = add_all(l, cgroups, &ms);
        if (r < 0)
                return bento_err_set(err, -r, "cgroup hierarchies");
        l->from_mountinfo = true;
        return 0;
}

int cg_layout_load(struct cg_layout *ret, bool mountinfo, struct bento_err *err)
{
        cleanup_free char *cgroups = NULL, *copy = NULL;
        size_t len = 0;
        bool v1 = false, v2 = false;
        int r;

        memset(ret, 0, sizeof(*ret));
        r = bento_read_file("/proc/self/cgroup", 65536, &cgroups, &len, err);
        if (r < 0)
                return r;
        r = -EAGAIN;
        if (!mountinfo) {
                copy = strdup(cgroups);
                r = copy ? add_all(ret, copy, NULL) : -ENOMEM;
                if (r == -EAGAIN)
                        cg_layout_done(ret);
                else if (r < 0)
                        r = bento_err_set(err, -r, "cgroup hierarchies");
        }
        if (r == -EAGAIN)
                r = load_from_mountinfo(ret, cgroups, err);
        if (r < 0) {
                cg_layout_done(ret);
                return r;
        }
        for (size_t i = 0; i < ret->n; i++)
                *(ret->h[i].v2 ? &v2 : &v1) = true;
        if (!v1 && !v2)
                return bento_err_setx(err, ENOTSUP,
                                      "no cgroup hierarchy is mounted (see /proc/self/cgroup "
                                      "and /proc/self/mountinfo)");
        ret->mode = v1 ? (v2 ? CG_MODE_HYBRID : CG_MODE_V1) : CG_MODE_V2;
        return 0;
}

struct cg_hier *cg_find(const struct cg_layout *l, const char *controller)
{
        size_t len = strlen(controller);

        for (size_t i = 0; i < l->n; i++)
                if (!l->h[i].v2 && bento_mount_opts_has(l->h[i].key, controller, len))
                        return (struct cg_hier *) &l->h[i];
        if (l->mode == CG_MODE_V2)
                for (size_t i = 0; i < l->n; i++)
                        if (l->h[i].v2)
                                return (struct cg_hier *) &l->h[i];
        return NULL;
}

/* Canonical: "/" or "/a/b" (no empty, "." or ".." component, no trailing
 * "/"), bounded; what join_clean and the kernel write, so that a prefix
 * comparison (cg_path_within) means what it says. */
static bool path_ok(const char *p)
{
        if (p[0] != '/' || strlen(p) > 2048)
                return false;
        if (p[1] == '\0')
                return true;
        for (const char *c = p; *c;) {
                size_t n = strcspn(++c, "/");

                if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                c += n;
        }
        return true;
}

bool cg_path_within(const char *path, const char *dir)
{
        return rt_path_within(path, dir);
}

/* One recorded path for h: canonical, and not the caller's cgroup or one
 * of its ancestors. */
static int check_recorded(const struct cg_hier *h, const char *path, struct bento_err *err)
{
        if (!path_ok(path))
                return bento_err_setx(err, EINVAL,
                                      "state record: applied.cgroup.paths.%s: not a canonical "
                                      "absolute cgroup path",
                                      h->key);
        if (cg_path_within(h->base, path))
                return bento_err_setx(err, EPERM,
                                      "state record: the %s cgroup %s recorded for the container "
                                      "is, or contains, the runtime's own cgroup %s: refusing to "
                                      "use it; the state directory may have been tampered with",
                                      h->key, path, h->base);
        return 0;
}

int cg_layout_set_paths(struct cg_layout *l, const struct bento_json *applied,
                        struct bento_err *err)
{
        const struct bento_json *paths = bento_json_get(applied, "paths");
        const struct bento_json *made = bento_json_get(applied, "created");
        int unknown = 0;

        if (!paths || paths->type != BENTO_JSON_OBJECT)
                return bento_err_setx(err, EINVAL, "state record: applied.cgroup.paths missing");
        for (size_t i = 0; i < paths->u.object.n; i++) {
                const struct bento_json *v = paths->u.object.values[i];
                const struct bento_json *m = bento_json_get(made, paths->u.object.keys[i]);
                bool known = false;

                if (v->type != BENTO_JSON_STRING)
                        return bento_err_setx(err, EINVAL,
                                              "state record: applied.cgroup.paths.%s: "
                                              "not a string",
                                              paths->u.object.keys[i]);
                for (size_t j = 0; j < l->n; j++) {
                        if (strcmp(l->h[j].key, paths->u.object.keys[i]) != 0)
                                continue;
                        known = true;
                        if (check_recorded(&l->h[j], v->u.string.s, err) < 0)
                                return -err->code;
                        free(l->h[j].path);
                        l->h[j].path = strdup(v->u.string.s);
                        if (!l->h[j].path)
                                return bento_err_set(err, ENOMEM, "cgroup paths");
                        l->h[j].made = m && m->type == BENTO_JSON_NUMBER && m->u.number.fits_i64 &&
                                               m->u.number.i >= 0 && m->u.number.i < 64
                                           ? (int) m->u.number.i
                                           : 0;
                }
                if (!known)
                        unknown = 1;
        }
        return unknown;
}

int cg_layout_describe(const struct cg_layout *l, struct bento_json *obj)
{
        struct bento_json *paths = bento_json_new_object();
        struct bento_json *made = bento_json_new_object();
        int r = paths && made ? 0 : -ENOMEM;

        for (size_t i = 0; i < l->n && r >= 0; i++) {
                if (!l->h[i].path)
                        continue;
                r = bento_json_object_set(paths, l->h[i].key, bento_json_new_string(l->h[i].path));
                if (r >= 0)
                        r = bento_json_object_set(made, l->h[i].key,
                                                  bento_json_new_int(l->h[i].made));
        }
        if (r < 0) {
                bento_json_free(paths);
                bento_json_free(made);
                return r;
        }
        r = bento_json_object_set(obj, "paths", paths);
        if (r >= 0)
                r = bento_json_object_set(obj, "created", made);
        else
                bento_json_free(made);
        return r;
}

char *cg_file(const struct cg_hier *h, const char *file)
{
        char *out = NULL;
        const char *path = h->path ? h->path : h->base;

        if (asprintf(&out, "%s%s%s%s", h->mnt, strcmp(path, "/") ? path : "", file ? "/" : "",
                     file ? file : "") < 0)
                return NULL;
        return out;
}

int cg_write(const struct cg_hier *h, const char *file, const char *value, struct bento_err *err)
{
        cleanup_free char *path = cg_file(h, file);
        const char *step = NULL;
        int r;

        if (!path)
                return bento_err_set(err, ENOMEM, "cgroup file");
        r = bento_write_value(path, value, O_NOFOLLOW, &step);
        if (r < 0 && strcmp(step, "open") == 0)
                return bento_err_set(err, -r, "cannot open %s", path);
        if (r < 0)
                return bento_err_set(err, -r, "cannot write '%s' to %s", value, path);
        return 0;
}

int cg_read(const struct cg_hier *h, const char *file, char *buf, size_t size)
{
        cleanup_free char *path = cg_file(h, file);
        cleanup_close int fd = -1;
        ssize_t n;

        if (!path)
                return -ENOMEM;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        n = read(fd, buf, size - 1);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
                buf[--n] = '\0';
        return 0;
}

static int parse_num(const char *s, int64_t *ret)
{
        char *end = NULL;
        long long v;

        if (strcmp(s, "max") == 0) {
                *ret = -1;
                return 0;
        }
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno || end == s || (*end && *end != '\n' && *end != ' '))
                return -EINVAL;
        /* v1 shows "unlimited" as the largest page-aligned value */
        *ret = v >= INT64_MAX - 65535 ? -1 : (int64_t) v;
        return 0;
}

int cg_read_num(const struct cg_hier *h, const char *file, int64_t *ret)
{
        char buf[64];
        int r = cg_read(h, file, buf, sizeof(buf));

        return r < 0 ? r : parse_num(buf, ret);
}

int cg_read_keyed(const struct cg_hier *h, const char *file, const char *key, int64_t *ret)
{
        char buf[4096];
        size_t kl = strlen(key);
        int r = cg_read(h, file, buf, sizeof(buf));

        if (r < 0)
                return r;
        for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
                if (strncmp(p, key, kl) == 0 && p[kl] == ' ')
                        return parse_num(p + kl + 1, ret);
        return -ENOENT;
}

static bool procs_empty(const struct cg_hier *h)
{
        char buf[16] = "";

        return cg_read(h, "cgroup.procs", buf, sizeof(buf)) == 0 && buf[0] == '\0';
}

int cg_to_make(const struct cg_hier *h)
{
        cleanup_free char *full = cg_file(h, NULL);
        size_t mnt = strlen(h->mnt);
        struct stat st;
        int n = 1;
        char *slash;

        /* the leaf counts whether it exists or not; then each missing parent */
        for (; full && (slash = strrchr(full, '/')) && (size_t) (slash - full) > mnt; n++) {
                *slash = '\0';
                if (lstat(full, &st) == 0)
                        break;
        }
        return n;
}

int cg_make(struct cg_hier *h, struct bento_err *err)
{
        cleanup_free char *full = cg_file(h, NULL);
        char *p;

        if (!full)
                return bento_err_set(err, ENOMEM, "cgroup path");
        h->made = 0;
        /* one mkdir per component below the mount point */
        for (p = full + strlen(h->mnt);;) {
                char *next = strchr(p + 1, '/');

                if (next)
                        *next = '\0';
                if (mkdir(full, 0755) == 0) {
                        h->made++;
                } else if (errno != EEXIST) {
                        return bento_err_set(err, errno, "cannot make cgroup %s", full);
                } else if (!next) {
                        /* a stale, empty cgroup of the same name is taken over */
                        if (!procs_empty(h))
                                return bento_err_setx(err, EEXIST,
                                                      "cgroup %s already exists and holds "
                                                      "processes",
                                                      full);
                        h->made++;
                }
                if (!next)
                        return 0;
                *next = '/';
                p = next;
        }
}

/* 0.1 ms, doubling up to 20 ms; adds the delay to *waited_us. */
static void backoff(long *delay_us, long *waited_us)
{
        struct timespec ts = {.tv_sec = 0, .tv_nsec = *delay_us * 1000L};

        nanosleep(&ts, NULL);
        *waited_us += *delay_us;
        if (*delay_us < 20000)
                *delay_us = *delay_us * 2 < 20000 ? *delay_us * 2 : 20000;
}

int cg_unmake(struct cg_hier *h, struct bento_err *err)
{
        cleanup_free char *full = cg_file(h, NULL);
        char *slash;
        int r = -1;

        if (!full)
                return bento_err_set(err, ENOMEM, "cgroup path");
        if (h->made <= 0)
                return 0;
        /* exiting tasks leave the cgroup a moment after they are reaped:
         * retry for up to about 6 s, soon at first */
        for (long d = 100, waited = 0; (r = rmdir(full)) < 0 && errno == EBUSY && waited < 6000000;)
                backoff(&d, &waited);
        if (r < 0 && errno != ENOENT)
                return bento_err_set(err, errno, "cannot remove cgroup %s", full);
        for (int i = 1; i < h->made && (slash = strrchr(full, '/')) && slash > full; i++) {
                *slash = '\0';
                if (strlen(full) <= strlen(h->mnt) || rmdir(full) < 0)
                        break;
        }
        return 0;
}

static int cmp_pid(const void *a, const void *b)
{
        pid_t x = *(const pid_t *) a, y = *(const pid_t *) b;

        return (x > y) - (x < y);
}

int cg_procs(const struct cg_hier *h, pid_t **ret, size_t *ret_n, struct bento_err *err)
{
        cleanup_free char *path = cg_file(h, "cgroup.procs");
        cleanup_free char *data = NULL;
        cleanup_free pid_t *pids = NULL;
        size_t len = 0, n = 0, cap = 0, u = 0;
        char *save = NULL;
        int r;

        if (!path)
                return bento_err_set(err, ENOMEM, "cgroup path");
        r = bento_read_file(path, (size_t) 4 << 20, &data, &len, err);
        if (r < 0)
                return r;
        for (char *t = strtok_r(data, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
                if (n == cap) {
                        pid_t *p = reallocarray(pids, cap = cap ? cap * 2 : 64, sizeof(*pids));
                        if (!p)
                                return bento_err_set(err, ENOMEM, "pid list");
                        pids = p;
                }
                pids[n++] = (pid_t) atoi(t);
        }
        if (n)
                qsort(pids, n, sizeof(*pids), cmp_pid);
        for (size_t i = 0; i < n; i++) {
                pid_t p = pids[i];

                if (p > 0 && (u == 0 || pids[u - 1] != p))
                        pids[u++] = p;
        }
        *ret = TAKE_PTR(pids);
        *ret_n = u;
        return 0;
}

/* The hierarchy of l that a /proc/<pid>/cgroup line's "id:controllers"
 * names, as add_hierarchy keyed it; -1 for none. */
static int hier_of_line(const struct cg_layout *l, const char *id, const char *controllers)
{
        bool v2 = strcmp(id, "0") == 0 && controllers[0] == '\0';

        for (size_t i = 0; i < l->n; i++)
                if (v2 ? l->h[i].v2 : !l->h[i].v2 && strcmp(l->h[i].key, controllers) == 0)
                        return (int) i;
        return -1;
}

int cg_pid_paths(const struct cg_layout *l, pid_t pid, char *ret[CG_MAX_HIER],
                 struct bento_err *err)
{
        char path[64];
        cleanup_free char *data = NULL;
        size_t len = 0;
        char *save = NULL;
        int r;

        for (size_t i = 0; i < CG_MAX_HIER; i++)
                ret[i] = NULL;
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) pid);
        r = bento_read_file(path, 65536, &data, &len, err);
        if (r < 0)
                return r;
        for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                const char *rest;
                int i;

                if (!c2)
                        continue;
                *c1 = *c2 = '\0';
                i = hier_of_line(l, line, c1 + 1);
                if (i < 0 || ret[i] || !(rest = below_root(c2 + 1, l->h[i].root)))
                        continue;
                ret[i] = strdup(rest[0] ? rest : "/");
                if (!ret[i]) {
                        for (size_t j = 0; j < CG_MAX_HIER; j++)
                                ret[j] = (free(ret[j]), NULL);
                        return bento_err_set(err, ENOMEM, "cgroup of pid %d", (int) pid);
                }
        }
        return 0;
}

/* "a//b/" → "/a/b" appended to prefix; NULL for "." or ".." components. */
static char *join_clean(const char *prefix, const char *rel)
{
        char *out = malloc(strlen(prefix) + strlen(rel) + 3);
        size_t o = 0;

        if (!out)
                return NULL;
        if (strcmp(prefix, "/") != 0) {
                o = strlen(prefix);
                memcpy(out, prefix, o);
        }
        for (const char *c = rel; *c;) {
                size_t n;

                c += strspn(c, "/");
                n = strcspn(c, "/");
                if (n == 0)
                        break;
                if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) {
                        free(out);
                        return NULL;
                }
                out[o++] = '/';
                memcpy(out + o, c, n);
                o += n;
                c += n;
        }
        out[o] = '\0';
        return out;
}

/* Where a relative cgroupsPath starts.  On v1 (and in the hybrid layout)
 * the caller's own cgroup.  On a pure v2 host the caller's cgroup holds
 * the caller, and the kernel enables no controller below a cgroup that has
 * processes (a systemd service, a login session scope): its parent is used,
 * as runc does, so the container's cgroup gets controllers. */
static char *relative_base(const struct cg_layout *l, const struct cg_hier *h)
{
        char *base = strdup(h->base);
        char *slash = base ? strrchr(base, '/') : NULL;

        if (l->mode != CG_MODE_V2 || !slash)
                return base;
        if (slash == base)
                base[1] = '\0';
        else
                *slash = '\0';
        return base;
}

int cg_layout_choose_paths(struct cg_layout *l, const char *cgroups_path, const char *id,
                           struct bento_err *err)
{
        const char *cp = cgroups_path;
        cleanup_free char *def = NULL;

        if (!cp || !cp[0]) {
                if (asprintf(&def, "bento-%s", id) < 0)
                        return bento_err_set(err, ENOMEM, "cgroup path");
                cp = def;
        }
        for (size_t i = 0; i < l->n; i++) {
                cleanup_free char *base = cp[0] == '/' ? strdup("/") : relative_base(l, &l->h[i]);

                if (!base)
                        return bento_err_set(err, ENOMEM, "cgroup path");
                l->h[i].path = join_clean(base, cp);
                /* an ancestor would take the caller in, and its delete
                 * would kill the caller */
                if (!l->h[i].path || strcmp(l->h[i].path, "") == 0 ||
                    cg_path_within(l->h[i].base, l->h[i].path))
                        return bento_err_setx(err, EINVAL,
                                              "linux.cgroupsPath \"%s\": not a usable cgroup "
                                              "path (no \".\" or \"..\", not the caller's own "
                                              "cgroup or one above it)",
                                              cp);
        }
        return 0;
}
