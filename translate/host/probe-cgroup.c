/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Can bento-runtime cap memory, pids and cpu here?  On a pure cgroup v2
 * host run by systemd with a bus for this caller, it asks systemd for a
 * transient scope (--systemd-cgroup, the way the original bento used
 * `systemd-run --scope`), so what counts is which controllers that
 * systemd instance has.  Elsewhere it puts a container with limits in a
 * cgroup of its own, made below the cgroup the caller runs in, in every
 * mounted hierarchy (v1, the v1 "hybrid" layout, v2; on pure v2 beside it,
 * which this probe does not model: it checks below, the stricter place),
 * and writes the limits there (runtime/cgroup/cgroup.c).  This file finds the same
 * layout on its own (translate/ does not include runtime/), then does the
 * real thing once: make an empty probe cgroup next to where a run's would
 * go in every hierarchy, write "no limit" to each limit file a bundle uses
 * (the values bento-runtime would overwrite; the memory limit comes with
 * the memory+swap one, since bento caps both), and remove the probe
 * cgroups again.  Nothing joins them; an empty cgroup is removed at once.
 */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "mountinfo.h"
#include "manifest/self.h"

#define MAX_HIER 16

struct hier {
        char ctrls[256]; /* "memory", "cpu,cpuacct", "name=systemd"; "" for v2 */
        bool v2;
        char mnt[PATH_MAX];   /* where the hierarchy is mounted */
        char dir[PATH_MAX];   /* the caller's cgroup, as a directory here */
        char probe[PATH_MAX]; /* the probe cgroup made below it; "" when none */
        int mkdir_err;        /* errno of the probe mkdir; 0 when made */
        bool at_root;         /* the caller sits in the hierarchy's root cgroup */
};

struct layout {
        struct hier h[MAX_HIER];
        size_t n;
        bool v1, v2;
};

/* A mountinfo entry of a cgroup(2) mount that serves h: where the caller's
 * cgroup appears below its mount point. */
static bool match_mount(const struct bento_mountinfo *mi, const char *path, struct hier *h)
{
        size_t rl;

        if (strcmp(mi->fstype, h->v2 ? "cgroup2" : "cgroup") != 0 ||
            (!h->v2 && !bento_mount_opts_all_in(h->ctrls, mi->superopts)))
                return false;
        rl = strcmp(mi->root, "/") == 0 ? 0 : strlen(mi->root);
        if (rl && (strncmp(path, mi->root, rl) != 0 || (path[rl] && path[rl] != '/')))
                return false;
        h->at_root = path[rl] == '\0' || strcmp(path + rl, "/") == 0;
        host_fmt(h->mnt, sizeof(h->mnt), "%s", mi->mnt);
        host_fmt(h->dir, sizeof(h->dir), "%s%s", mi->mnt, h->at_root ? "" : path + rl);
        return true;
}

/* The last match wins, as the later mount covers the earlier. */
static void find_mount(const struct bento_mountinfo *mis, size_t n, const char *path,
                       struct hier *h)
{
        h->dir[0] = '\0';
        for (size_t i = 0; i < n; i++)
                (void) match_mount(&mis[i], path, h);
}

static int load_layout(struct layout *l, char *why, size_t size)
{
        cleanup_free char *cgroups = NULL, *mountinfo = NULL;
        cleanup_free struct bento_mountinfo *mis = NULL;
        struct bento_err err = {0};
        size_t len = 0, n_mis = 0;
        char *save = NULL;

        if (bento_read_file("/proc/self/cgroup", 65536, &cgroups, &len, &err) < 0 ||
            bento_mountinfo_read("/proc/self/mountinfo", &mountinfo, &err) < 0) {
                host_fmt(why, size, "the cgroup layout cannot be read: %s", err.msg);
                return -1;
        }
        if (bento_mountinfo_parse_all(mountinfo, &mis, &n_mis) < 0) {
                host_fmt(why, size, "the cgroup layout cannot be read: out of memory");
                return -1;
        }
        for (char *line = strtok_r(cgroups, "\n", &save); line && l->n < MAX_HIER;
             line = strtok_r(NULL, "\n", &save)) {
                char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                struct hier *h = &l->h[l->n];

                if (!c2)
                        continue;
                *c1 = *c2 = '\0';
                memset(h, 0, sizeof(*h));
                h->v2 = strcmp(line, "0") == 0 && c1[1] == '\0';
                if (!h->v2 && c1[1] == '\0')
                        continue;
                host_fmt(h->ctrls, sizeof(h->ctrls), "%s", h->v2 ? "" : c1 + 1);
                find_mount(mis, n_mis, c2 + 1, h);
                if (!h->dir[0])
                        continue;
                *(h->v2 ? &l->v2 : &l->v1) = true;
                l->n++;
        }
        if (l->n == 0) {
                host_fmt(why, size,
                         "no cgroup hierarchy is mounted (see /proc/self/cgroup and "
                         "/proc/self/mountinfo), so bento-runtime has nowhere to put a limit");
                return -1;
        }
        return 0;
}

/* The hierarchy carrying a controller, as bento-runtime picks it: the v1
 * one that lists it, else the unified one on a pure v2 host. */
static struct hier *find_hier(struct layout *l, const char *ctrl)
{
        for (size_t i = 0; i < l->n; i++)
                if (!l->h[i].v2 && bento_mount_opts_has(l->h[i].ctrls, ctrl, strlen(ctrl)))
                        return &l->h[i];
        for (size_t i = 0; !l->v1 && i < l->n; i++)
                if (l->h[i].v2)
                        return &l->h[i];
        return NULL;
}

static void make_probes(struct layout *l)
{
        for (size_t i = 0; i < l->n; i++) {
                struct hier *h = &l->h[i];
                char path[PATH_MAX];

                host_fmt(path, sizeof(path), "%s/bento-probe-%d", h->dir, (int) getpid());
                /* a probe left by a killed bento of the same pid is taken over */
                if (mkdir(path, 0755) < 0 &&
                    (errno != EEXIST || rmdir(path) < 0 || mkdir(path, 0755) < 0)) {
                        h->mkdir_err = errno;
                        continue;
                }
                memcpy(h->probe, path, sizeof(path));
        }
}

static void remove_probes(struct layout *l)
{
        for (size_t i = 0; i < l->n; i++)
                if (l->h[i].probe[0])
                        (void) rmdir(l->h[i].probe);
}

/* Write value to dir/file: 0 or -errno. */
static int write_file(const char *dir, const char *file, const char *value)
{
        char path[PATH_MAX];

        host_fmt(path, sizeof(path), "%s/%s", dir, file);
        return bento_write_value(path, value, O_NOFOLLOW, NULL);
}

/* Read a small file of dir into buf ("" on failure). */
static void read_small(const char *dir, const char *file, char *buf, size_t size)
{
        char path[PATH_MAX];
        cleanup_close int fd = -1;
        ssize_t n;

        host_fmt(path, sizeof(path), "%s/%s", dir, file);
        buf[0] = '\0';
        fd = open(path, O_RDONLY | O_CLOEXEC);
        n = fd < 0 ? -1 : read(fd, buf, size - 1);
        buf[n > 0 ? n : 0] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
}

static bool word_in(const char *list, const char *w)
{
        size_t n = strlen(w);

        for (const char *p = list; (p = strstr(p, w)); p += n)
                if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
                        return true;
        return false;
}

/* The limit files a bundle from bento uses, per controller and version. */
static const char *const limit_files[HOST_CTL_MAX][2][3] = {
    [HOST_CTL_MEMORY] = {{"memory.limit_in_bytes", "memory.memsw.limit_in_bytes", NULL},
                         {"memory.max", "memory.swap.max", NULL}},
    [HOST_CTL_PIDS] = {{"pids.max", NULL, NULL}, {"pids.max", NULL, NULL}},
    [HOST_CTL_CPU] = {{"cpu.cfs_period_us", "cpu.cfs_quota_us", NULL}, {"cpu.max", NULL, NULL}},
};

static const char *no_limit(const char *file)
{
        if (strcmp(file, "cpu.cfs_period_us") == 0)
                return "100000";
        return strstr(file, "_in_bytes") || strstr(file, "_us") ? "-1" : "max";
}

/* On v2 the controller must reach the caller's cgroup and be handed on to
 * its children: bento-runtime writes cgroup.subtree_control, which the
 * kernel refuses (EBUSY) in a non-root cgroup that holds processes, and
 * the caller's always holds bento itself. */
static bool v2_ready(const struct hier *h, const char *ctrl, char *why, size_t size)
{
        char avail[512], on[512];

        read_small(h->dir, "cgroup.controllers", avail, sizeof(avail));
        read_small(h->dir, "cgroup.subtree_control", on, sizeof(on));
        if (!word_in(avail, ctrl)) {
                host_fmt(why, size,
                         "the %s controller is not enabled for this process's cgroup %s (its "
                         "parent does not delegate it)",
                         ctrl, h->dir);
                return false;
        }
        if (!word_in(on, ctrl) && !h->at_root) {
                host_fmt(why, size,
                         "the %s controller is not enabled below %s, and cgroup v2 lets "
                         "bento-runtime enable it there only if that cgroup holds no processes "
                         "(this one holds bento itself): run bento from a cgroup whose "
                         "subtree_control lists %s",
                         ctrl, h->dir, ctrl);
                return false;
        }
        return true;
}

/* own: h is the hierarchy of the controller being judged (else another
 * one that bento-runtime needs as well). */
static void mkdir_failed(const struct hier *h, bool own, char *why, size_t size)
{
        const char *what = h->v2 ? "the unified hierarchy" : h->ctrls;
        const char *every = own ? ""
                                : ", and bento-runtime makes the run's cgroup in every "
                                  "hierarchy";

        if (h->mkdir_err == EACCES || h->mkdir_err == EPERM)
                host_fmt(why, size,
                         "uid %u cannot create a cgroup below %s (%s: %s): no cgroup is "
                         "delegated to this caller there%s",
                         (unsigned) bento_euid(), h->dir, what, strerror(h->mkdir_err), every);
        else
                host_fmt(why, size, "a cgroup cannot be created below %s (%s: %s)%s", h->dir, what,
                         strerror(h->mkdir_err), every);
}

static void probe_controller(struct layout *l, enum host_controller c, struct host_facts *f)
{
        struct host_controller_facts *x = &f->ctl[c];
        const char *ctrl = host_controller_name(c);
        struct hier *h = find_hier(l, ctrl);
        const char *const *files;

        if (!h) {
                host_fmt(x->why, sizeof(x->why),
                         "no mounted cgroup hierarchy carries the %s controller", ctrl);
                return;
        }
        host_fmt(x->where, sizeof(x->where), "%s", h->dir);
        if (h->v2 && !v2_ready(h, ctrl, x->why, sizeof(x->why)))
                return;
        if (!h->probe[0]) {
                mkdir_failed(h, true, x->why, sizeof(x->why));
                return;
        }
        files = limit_files[c][h->v2 ? 1 : 0];
        for (size_t i = 0; files[i]; i++) {
                int r = write_file(h->probe, files[i], no_limit(files[i]));

                if (r == -ENOENT && c == HOST_CTL_MEMORY && i == 1)
                        host_fmt(x->why, sizeof(x->why),
                                 "this kernel does not account swap (no %s), and bento caps "
                                 "memory and memory+swap together so a capped run cannot spill "
                                 "into swap; boot with swapaccount=1",
                                 files[i]);
                else if (r < 0)
                        host_fmt(x->why, sizeof(x->why), "%s cannot be written in %s: %s", files[i],
                                 h->probe, strerror(-r));
                if (r < 0)
                        return;
        }
        x->usable = true;
}

/* A hierarchy without a probe cgroup stops every limit (bento-runtime
 * makes the run's cgroup in all of them): the first one is the reason. */
static void common_failure(struct layout *l, struct host_facts *f)
{
        for (size_t i = 0; i < l->n; i++) {
                if (l->h[i].probe[0])
                        continue;
                mkdir_failed(&l->h[i], false, f->cg_why, sizeof(f->cg_why));
                for (int c = 0; c < HOST_CTL_MAX; c++)
                        if (f->ctl[c].usable) {
                                f->ctl[c].usable = false;
                                host_fmt(f->ctl[c].why, sizeof(f->ctl[c].why), "%s", f->cg_why);
                        }
                return;
        }
}

/* The cgroup of the systemd instance that would make the run's scope: the
 * system manager's is the root of the hierarchy; a user's is
 * user@UID.service, where systemd hands a normal user the controllers it
 * delegates (Delegate= of user@.service).  0, or -1 with why set. */
static int manager_cgroup(const struct hier *h, char *dir, size_t size, char *why, size_t wsize)
{
        uid_t uid = bento_euid();
        struct stat st;

        if (uid == 0) {
                host_fmt(dir, size, "%s", h->mnt);
                return 0;
        }
        host_fmt(dir, size, "%s/user.slice/user-%u.slice/user@%u.service", h->mnt, (unsigned) uid,
                 (unsigned) uid);
        if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
                return 0;
        host_fmt(why, wsize,
                 "the user's systemd instance (user@%u.service) has no cgroup at %s, so there is "
                 "nobody to make a capped scope for uid %u: log in through a session that starts "
                 "it, or keep it running with `loginctl enable-linger`",
                 (unsigned) uid, dir, (unsigned) uid);
        return -1;
}

/* Limits through a transient scope: systemd enables in the scope's slice
 * whatever a unit asks for, provided its own cgroup has the controller. */
static void probe_systemd(struct layout *l, struct host_facts *f)
{
        struct hier *h = find_hier(l, "memory");
        char dir[PATH_MAX], avail[512];
        const char *who = bento_euid() == 0 ? "systemd" : "the user's systemd";

        if (!h)
                return;
        if (manager_cgroup(h, dir, sizeof(dir), f->cg_why, sizeof(f->cg_why)) < 0)
                return;
        read_small(dir, "cgroup.controllers", avail, sizeof(avail));
        for (int c = 0; c < HOST_CTL_MAX; c++) {
                struct host_controller_facts *x = &f->ctl[c];
                const char *ctrl = host_controller_name(c);

                host_fmt(x->where, sizeof(x->where), "%s", dir);
                x->usable = word_in(avail, ctrl);
                if (x->usable)
                        host_fmt(x->note, sizeof(x->note), "in a transient scope of %s", who);
                else
                        host_fmt(x->why, sizeof(x->why),
                                 "%s cannot cap %s: its cgroup %s does not have the controller "
                                 "(cgroup.controllers: \"%s\"; for a user, Delegate= of "
                                 "user@.service decides)",
                                 who, ctrl, dir, avail);
        }
}

void host_probe_cgroups(struct host_facts *ret)
{
        struct layout *l = calloc(1, sizeof(*l));

        if (!l) {
                host_fmt(ret->cg_why, sizeof(ret->cg_why), "the cgroup probe ran out of memory");
                return;
        }
        if (load_layout(l, ret->cg_why, sizeof(ret->cg_why)) < 0) {
                free(l);
                return;
        }
        ret->cg_mode = l->v1 ? (l->v2 ? HOST_CG_HYBRID : HOST_CG_V1) : HOST_CG_V2;
        ret->cg_systemd = ret->cg_mode == HOST_CG_V2 && ret->systemd_bus;
        if (ret->cg_systemd) {
                probe_systemd(l, ret);
                free(l);
                return;
        }
        make_probes(l);
        for (int c = 0; c < HOST_CTL_MAX; c++)
                probe_controller(l, c, ret);
        remove_probes(l);
        common_failure(l, ret);
        free(l);
}
