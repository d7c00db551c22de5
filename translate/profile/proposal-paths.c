/* SPDX-License-Identifier: Apache-2.0 */
/*
 * From the observer's accesses to candidate grants (docs/profile.md, "From
 * observation to proposal"): read paths as observed, the parent directory
 * of every written path, minus what needs no grant (the program itself,
 * the system trees every sandbox shows, the box's own /tmp scratch, /proc)
 * and what cannot be a grant (sockets, characters a manifest refuses).
 *
 * Every path here was named by the untrusted target.  The host is asked
 * about it only through lstat/readlink (path_lstat, path_resolve): nothing
 * is opened, followed by the kernel or changed, and what the answers say
 * only ever removes a candidate or marks it, never adds one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "internal.h"
#include "manifest/path.h"
#include "manifest/screen.h"

/* The system trees and files of docs/profile.md: shown read-only in every
 * sandbox (or the box's own), so they are never proposed.  A file here
 * matches itself (nothing can be beneath it). */
static const char *const system_trees[] = {
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/alternatives",
    "/proc",
    "/sys",
    "/dev",
    "/run",
    "/var/run",
    "/nix/store",
    "/.bento", /* bento's own programs in the box (the observer, its library) */
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/localtime",
    NULL,
};

const char *const *profile_system_trees(void)
{
        return system_trees;
}

bool profile_system_path(const char *p)
{
        for (size_t i = 0; system_trees[i]; i++)
                if (path_within(system_trees[i], p))
                        return true;
        return strncmp(p, "/etc/ld.so", 10) == 0;
}

static bool host_absent(const char *p)
{
        struct stat st;

        return path_lstat(p, &st) < 0 && (errno == ENOENT || errno == ENOTDIR);
}

/* /tmp itself, or a name under it that does not exist on the host: the
 * box's private scratch, which no grant can bring back.  The script's own
 * directory is the exception: discovery mounts it, so what the target made
 * there is real. */
static bool tmp_scratch(const struct proposer *pr, const char *p)
{
        if (strcmp(p, "/tmp") == 0)
                return true;
        if (!path_beneath("/tmp", p) ||
            (path_beneath("/tmp", pr->script_dir) && path_within(pr->script_dir, p)))
                return false;
        return host_absent(p);
}

static bool resolves_into_proc(const char *p)
{
        cleanup_free char *real = NULL;

        return path_resolve(p, &real) == 0 && real && path_within("/proc", real);
}

static bool is_interpreter(const struct proposer *pr, const char *p)
{
        const struct profile_context *c = pr->c;

        if (c->interpreter && c->interpreter[0] == '/' && strcmp(c->interpreter, p) == 0)
                return true;
        if (c->interpreter_resolved && strcmp(c->interpreter_resolved, p) == 0)
                return true;
        return pr->runtime_root && path_within(pr->runtime_root, p);
}

/* The skips both reads and written paths get (silently: none of them is
 * a grant the reviewer needs to hear about). */
static bool skipped(const struct proposer *pr, const char *p, bool write)
{
        return strcmp(p, pr->c->entrypoint) == 0 || is_interpreter(pr, p) ||
               profile_system_path(p) || (!write && tmp_scratch(pr, p)) || resolves_into_proc(p);
}

static int cand_add(struct cands *cs, const char *path, const struct profile_access *a)
{
        struct cand *nv;

        if ((cs->n & (cs->n - 1)) == 0) {
                nv = reallocarray(cs->v, cs->n ? cs->n * 2 : 16, sizeof(*nv));
                if (!nv)
                        return -ENOMEM;
                cs->v = nv;
        }
        cs->v[cs->n] = (struct cand){
            .path = strdup(path),
            .opened = a->kind == PROFILE_ACCESS_READ || a->kind == PROFILE_ACCESS_WRITE,
            .any_ok = a->result != PROFILE_RESULT_ABSENT,
            .unix_sock = a->unix_sock,
        };
        if (!cs->v[cs->n].path)
                return -ENOMEM;
        cs->n++;
        return 0;
}

static int cmp_cand(const void *a, const void *b)
{
        return strcmp(((const struct cand *) a)->path, ((const struct cand *) b)->path);
}

/* Sort and fold equal paths together (their facts or-ed). */
static void cands_fold(struct cands *cs)
{
        size_t o = 0;

        if (cs->n == 0)
                return;
        qsort(cs->v, cs->n, sizeof(*cs->v), cmp_cand);
        for (size_t i = 1; i < cs->n; i++) {
                struct cand *k = &cs->v[o];

                if (strcmp(k->path, cs->v[i].path) != 0) {
                        cs->v[++o] = cs->v[i];
                        continue;
                }
                k->opened |= cs->v[i].opened;
                k->any_ok |= cs->v[i].any_ok;
                k->unix_sock |= cs->v[i].unix_sock;
                free(cs->v[i].path);
        }
        cs->n = o + 1;
}

static enum profile_item_kind access_item_kind(const struct profile_access *a)
{
        return a->kind == PROFILE_ACCESS_WRITE ? PROFILE_ITEM_WRITE : PROFILE_ITEM_READ;
}

/* The directory a written path lives in. */
static char *parent_of(const char *p)
{
        return path_join(p, "..");
}

static int one_access(struct proposer *pr, const struct profile_access *a)
{
        struct screen_hit hit;
        cleanup_free char *clean = NULL, *dir = NULL;

        /* A probe that found nothing proves nothing is needed there. */
        if (a->kind == PROFILE_ACCESS_PROBE && a->result == PROFILE_RESULT_ABSENT)
                return 0;
        if (!screen_check(a->path, strlen(a->path), &hit))
                return proposer_item(pr, access_item_kind(a), a->path,
                                     PROFILE_WITHHELD_UNREPRESENTABLE, SHIELD_HOLDS_NONE, false,
                                     NULL);
        clean = path_clean(a->path);
        if (!clean)
                return -ENOMEM;
        /* A socket is withheld by name even in scratch: the reviewer should
         * know the program wanted to reach a service. */
        if (a->unix_sock)
                return proposer_item(pr, access_item_kind(a), clean, PROFILE_WITHHELD_UNIX_SOCKET,
                                     SHIELD_HOLDS_NONE, false, NULL);
        if (skipped(pr, clean, a->kind == PROFILE_ACCESS_WRITE))
                return 0;
        if (a->kind != PROFILE_ACCESS_WRITE)
                return cand_add(&pr->reads, clean, a);
        dir = parent_of(clean);
        if (!dir)
                return -ENOMEM;
        /* A file written in the box's scratch says nothing a grant could
         * keep; the reviewer hears that it was left out. */
        if (tmp_scratch(pr, dir))
                return proposer_item(pr, PROFILE_ITEM_WRITE, dir, PROFILE_WITHHELD_SANDBOX_SCRATCH,
                                     SHIELD_HOLDS_NONE, false, NULL);
        if (skipped(pr, dir, true))
                return 0;
        return cand_add(&pr->writes, dir, a);
}

/* Reads that need no grant after all: paths only probed on the way to the
 * script's own directory (every interpreter stats its ancestors), and
 * paths every open of which found nothing and that do not exist on the
 * host either (a search along a path list). */
static void drop_needless_reads(struct proposer *pr)
{
        for (size_t i = 0; i < pr->reads.n; i++) {
                struct cand *k = &pr->reads.v[i];

                bool probed_ancestor = !k->opened && path_within(k->path, pr->script_dir);

                if (probed_ancestor || (!k->any_ok && host_absent(k->path)))
                        k->dropped = true;
        }
}

/* The interpreter's install root (/opt/py/bin/python3 -> /opt/py), unless
 * that would be a broad or home-shaped directory. */
static int runtime_root(struct proposer *pr)
{
        const char *interp = pr->c->interpreter_resolved;
        cleanup_free char *dir = NULL;
        const char *base;

        if (!interp || interp[0] != '/')
                return 0;
        dir = parent_of(interp);
        if (!dir)
                return -ENOMEM;
        base = strrchr(dir, '/');
        if (base && strcmp(base + 1, "bin") == 0) {
                char *up = parent_of(dir);

                if (!up)
                        return -ENOMEM;
                free(dir);
                dir = up;
        }
        if (profile_broad(pr->shields, dir) || path_within(dir, pr->script_dir))
                return 0;
        pr->runtime_root = TAKE_PTR(dir);
        return 0;
}

int proposer_collect(struct proposer *pr, struct bento_err *err)
{
        const struct profile_observation *o = pr->o;

        if (runtime_root(pr) < 0)
                return bento_err_set(err, ENOMEM, "the proposal");
        path_cache_begin();
        for (size_t i = 0; i < o->n_accesses; i++)
                if (one_access(pr, &o->accesses[i]) < 0) {
                        path_cache_end();
                        return bento_err_set(err, ENOMEM, "the proposal");
                }
        cands_fold(&pr->reads);
        cands_fold(&pr->writes);
        drop_needless_reads(pr);
        path_cache_end();
        return 0;
}
