/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The mount table, in the order the runtime applies it (later mounts win,
 * as docs/cli/bento-translate.md, "THE BUNDLE" lists them): the fresh pseudo-filesystems,
 * the system paths read-only, read grants read-only, write grants
 * read-write, the shields (DenyWrite first, then DenyAll, so a hidden
 * child lands on top of a readable parent), and last the entrypoint and
 * interpreter re-bound read-only so a write grant over their directory
 * cannot make the running program writable.
 *
 * Every bind lands at the symlink-resolved host path: a mount cannot be
 * placed on a symlink, and the resolved path is what the shields were
 * computed against.  Read-only binds are recursive ("rro"), so a mount
 * below a read grant on the host cannot come through writable.
 *
 * Between the write grants and the shields come the shield parents: every
 * existing directory strictly between a write grant and a shield inside it
 * is bound onto itself, read-write.  It grants nothing new, but a mount
 * point cannot be renamed or removed from inside (EBUSY), so the sandbox
 * cannot move `.git` aside, carrying the read-only `.git/config` and
 * `.git/hooks` with it, and put a `.git` of its own in its place.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "grow.h"
#include "internal.h"
#include "jsonr.h"
#include "manifest/path.h"

static const char *const opts_proc[] = {"nosuid", "noexec", "nodev", NULL};
static const char *const opts_dev[] = {"nosuid", "strictatime", "mode=755", "size=65536k", NULL};
static const char *const opts_devpts[] = {"nosuid",        "noexec",    "newinstance",
                                          "ptmxmode=0666", "mode=0620", NULL};
static const char *const opts_shm[] = {"nosuid",    "noexec",      "nodev",
                                       "mode=1777", "size=65536k", NULL};
static const char *const opts_tmp[] = {"nosuid", "nodev", "mode=1777", NULL};
static const char *const opts_ro[] = {"rbind", "ro", "rro", "nosuid", "nodev", NULL};
static const char *const opts_rw[] = {"rbind", "rw", "nosuid", "nodev", NULL};
static const char *const opts_file_ro[] = {"bind", "ro", "nosuid", "nodev", NULL};
static const char *const opts_hidden_dir[] = {"ro",        "nosuid",  "nodev", "noexec",
                                              "mode=0755", "size=4k", NULL};
static const char *const opts_discarded[] = {"nosuid", "nodev", "mode=0755", NULL};
static const char *const opts_home[] = {"nosuid", "nodev", "mode=0700", NULL};

/* What a mount's host path is now: the object itself for a bind of a path
 * onto itself or a mount over an existing path, else the parent directory
 * where the runtime will create the mount point.  Nothing for a path that
 * is neither (a grant bento still creates: the runtime then checks the
 * path alone). */
static struct bento_mount_identity identity_of(const char *dest, bool same)
{
        cleanup_free char *parent = NULL;
        struct stat st;
        char *slash;

        if (path_lstat(dest, &st) == 0)
                return (struct bento_mount_identity){
                    same ? BENTO_MOUNT_ID_SAME : BENTO_MOUNT_ID_DEST, st.st_dev, st.st_ino};
        parent = strdup(dest);
        slash = parent ? strrchr(parent, '/') : NULL;
        if (same || !slash)
                return (struct bento_mount_identity){0};
        slash[slash == parent ? 1 : 0] = '\0';
        if (path_lstat(parent, &st) < 0 || !S_ISDIR(st.st_mode))
                return (struct bento_mount_identity){0};
        return (struct bento_mount_identity){BENTO_MOUNT_ID_PARENT, st.st_dev, st.st_ino};
}

static int add_mount(struct compile_plan *plan, const char *dest, const char *type,
                     const char *source, const char *const *options, struct bento_err *err)
{
        bool same = strcmp(dest, source) == 0;
        struct compile_mount *v;

        if (bento_grow((void **) &plan->mounts, &plan->cap_mounts, plan->n_mounts,
                       sizeof(*plan->mounts)) < 0)
                return bento_err_set(err, ENOMEM, "mounts");
        v = plan->mounts;
        v[plan->n_mounts] = (struct compile_mount){.destination = strdup(dest),
                                                   .type = type,
                                                   .source = strdup(source),
                                                   .options = options,
                                                   .identity = identity_of(dest, same)};
        if (!v[plan->n_mounts].destination || !v[plan->n_mounts].source) {
                free(v[plan->n_mounts].destination);
                free(v[plan->n_mounts].source);
                return bento_err_set(err, ENOMEM, "mounts");
        }
        plan->n_mounts++;
        return 0;
}

static int add_bind(struct compile_plan *plan, const char *path, const char *const *options,
                    struct bento_err *err)
{
        return add_mount(plan, path, "bind", path, options, err);
}

/* A read-only bind of path: recursive for a directory; a plain one for
 * anything else, since "rro" (mount_setattr with AT_RECURSIVE) opens the
 * target as a directory in crun and fails on a file. */
static int add_ro_bind(struct compile_plan *plan, const char *path, struct bento_err *err)
{
        struct stat st;
        bool dir = path_stat(path, &st) == 0 && S_ISDIR(st.st_mode);

        return add_bind(plan, path, dir ? opts_ro : opts_file_ro, err);
}

static int add_symlink(struct compile_plan *plan, const char *name, const char *target,
                       struct bento_err *err)
{
        struct compile_symlink *v;

        if (bento_grow((void **) &plan->symlinks, &plan->cap_symlinks, plan->n_symlinks,
                       sizeof(*plan->symlinks)) < 0)
                return bento_err_set(err, ENOMEM, "mounts");
        v = plan->symlinks;
        v[plan->n_symlinks] = (struct compile_symlink){strdup(name), strdup(target)};
        if (!v[plan->n_symlinks].name || !v[plan->n_symlinks].target) {
                free(v[plan->n_symlinks].name);
                free(v[plan->n_symlinks].target);
                return bento_err_set(err, ENOMEM, "mounts");
        }
        plan->n_symlinks++;
        return 0;
}

void compile_plan_done(struct compile_plan *plan)
{
        for (size_t i = 0; i < plan->n_mounts; i++) {
                free(plan->mounts[i].destination);
                free(plan->mounts[i].source);
                free(plan->mounts[i].size_option);
        }
        free(plan->mounts);
        for (size_t i = 0; i < plan->n_symlinks; i++) {
                free(plan->symlinks[i].name);
                free(plan->symlinks[i].target);
        }
        free(plan->symlinks);
        *plan = (struct compile_plan){0};
}

/* The box's /tmp is memory: without a cap a script could take half of the
 * host's RAM there (a tmpfs's default), and a memory limit does not stop
 * it when the manifest sets none.  1 GiB holds what compilers and test
 * runners put in /tmp; limits.tmp raises or lowers it. */
#define TMP_DEFAULT_BYTES (1ull << 30)

static int size_tmp(struct compile_plan *plan, const struct policy *p, struct bento_err *err)
{
        uint64_t bytes = p->m->limits.tmp_bytes ? p->m->limits.tmp_bytes : TMP_DEFAULT_BYTES;
        struct compile_mount *tmp = &plan->mounts[plan->n_mounts - 1];

        if (asprintf(&tmp->size_option, "size=%llu", (unsigned long long) bytes) < 0) {
                tmp->size_option = NULL;
                return bento_err_set(err, ENOMEM, "mounts");
        }
        return 0;
}

/* The pseudo-filesystems land inside the rootfs, not on a host path. */
static int add_fresh(const struct policy *p, struct compile_plan *plan, struct bento_err *err)
{
        int r = add_mount(plan, "/proc", "proc", "proc", opts_proc, err);

        if (r >= 0)
                r = add_mount(plan, "/dev", "tmpfs", "tmpfs", opts_dev, err);
        if (r >= 0)
                r = add_mount(plan, "/dev/pts", "devpts", "devpts", opts_devpts, err);
        if (r >= 0)
                r = add_mount(plan, "/dev/shm", "tmpfs", "shm", opts_shm, err);
        if (r >= 0)
                r = add_mount(plan, "/tmp", "tmpfs", "tmpfs", opts_tmp, err);
        if (r >= 0)
                r = size_tmp(plan, p, err);
        for (size_t i = 0; i < plan->n_mounts; i++)
                plan->mounts[i].identity = (struct bento_mount_identity){0};
        return r;
}

/* A top-level symlink whose target is itself in the sandbox (Debian's
 * /bin -> usr/bin) is recreated as a link, not bound: the sandbox then has
 * the host's layout, and one mount fewer. */
static bool link_inside(const char *path, char *const *bound, size_t n, char **ret_text)
{
        cleanup_free char *real = NULL;
        char text[4096];
        struct stat st;
        ssize_t len;

        if (path_lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
                return false;
        len = path_readlink(path, text, sizeof(text) - 1);
        if (len <= 0 || path_resolve(path, &real) < 0)
                return false;
        text[len] = '\0';
        for (size_t i = 0; i < n; i++) {
                struct stat bst;

                if (strcmp(bound[i], path) != 0 && path_lstat(bound[i], &bst) == 0 &&
                    !S_ISLNK(bst.st_mode) && path_within(bound[i], real)) {
                        *ret_text = strdup(text);
                        return *ret_text != NULL;
                }
        }
        return false;
}

static int add_system(const struct policy *p, struct compile_plan *plan, struct bento_err *err)
{
        for (size_t i = 0; i < p->n_system_paths; i++) {
                const char *sp = p->system_paths[i];
                cleanup_free char *text = NULL, *real = NULL;
                int r;

                if (link_inside(sp, p->system_paths, p->n_system_paths, &text)) {
                        r = add_symlink(plan, sp, text, err);
                } else {
                        if (path_resolve(sp, &real) < 0)
                                return bento_err_set(err, ENOMEM, "mounts");
                        r = add_ro_bind(plan, real, err);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* `read: /` (docs/cli/bento-translate.md, "THE BUNDLE"): every top-level entry of the host root but
 * /proc, /dev and /tmp, which the sandbox mounts fresh. */
static int add_whole_root(struct compile_plan *plan, struct bento_err *err)
{
        cleanup_dir DIR *d = opendir("/");
        char *names[512];
        size_t n = 0;
        int r = 0;
        struct dirent *de;

        if (!d)
                return bento_err_set(err, errno, "cannot list \"/\" for the read grant of \"/\"");
        while ((de = readdir(d)) && n < sizeof(names) / sizeof(names[0])) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
                    strcmp(de->d_name, "proc") == 0 || strcmp(de->d_name, "dev") == 0 ||
                    strcmp(de->d_name, "tmp") == 0)
                        continue;
                names[n] = path_join("/", de->d_name);
                if (!names[n])
                        r = -ENOMEM;
                else
                        n++;
        }
        if (n)
                qsort(names, n, sizeof(char *), cmp_str);
        for (size_t i = 0; i < n; i++) {
                char text[4096];
                ssize_t len = r < 0 ? -1 : path_readlink(names[i], text, sizeof(text) - 1);

                if (r >= 0 && len > 0) {
                        text[len] = '\0';
                        r = add_symlink(plan, names[i], text, err);
                } else if (r >= 0) {
                        r = add_ro_bind(plan, names[i], err);
                }
                free(names[i]);
        }
        return r == -ENOMEM ? bento_err_set(err, ENOMEM, "mounts") : r;
}

static int cmp_path(const void *a, const void *b)
{
        const struct policy_path *x = *(const struct policy_path *const *) a;
        const struct policy_path *y = *(const struct policy_path *const *) b;

        return strcmp(x->real, y->real);
}

/* Grants sorted by where they land, so a parent is mounted before a child,
 * and deduplicated. */
static int add_grants(const struct policy_path *grants, size_t n, bool write,
                      struct compile_plan *plan, struct bento_err *err)
{
        cleanup_free const struct policy_path **sorted = calloc(n + 1, sizeof(*sorted));

        if (!sorted)
                return bento_err_set(err, ENOMEM, "mounts");
        for (size_t i = 0; i < n; i++)
                sorted[i] = &grants[i];
        if (n)
                qsort(sorted, n, sizeof(*sorted), cmp_path);
        for (size_t i = 0; i < n; i++) {
                const struct policy_path *g = sorted[i];
                int r;

                if (i > 0 && strcmp(sorted[i - 1]->real, g->real) == 0)
                        continue;
                /* A missing read grant is simply absent (docs/manifest.md, "GRANTS A RUN REFUSES");
                 * a missing write grant is created before the run (docs/manifest.md, "WHAT THE
                 * PROGRAM SEES"). */
                if (!write && !g->exists)
                        continue;
                /* An existing read grant keeps the kind policy_resolve()
                 * stat()ed (this process only ever adds paths that were
                 * missing), so add_ro_bind()'s stat need not be repeated. */
                if (!write && strcmp(g->real, "/") == 0)
                        r = add_whole_root(plan, err);
                else if (write)
                        r = add_bind(plan, g->real, opts_rw, err);
                else
                        r = add_bind(plan, g->real, g->is_dir ? opts_ro : opts_file_ro, err);
                if (r < 0)
                        return r;
                /* The identity the grant checks saw, not a second look. */
                if (g->exists && strcmp(g->real, "/") != 0)
                        plan->mounts[plan->n_mounts - 1].identity =
                            (struct bento_mount_identity){BENTO_MOUNT_ID_SAME, g->dev, g->ino};
        }
        return 0;
}

/* docs/manifest.md, "PATH RESOLUTION": a grant named through a symlink is bound where the
 * link leads, and the link itself is recreated in the rootfs so that the
 * granted name works too.  Only for a link that is the grant's last
 * component, and only where no mount covers the name (a fresh /tmp, a
 * granted parent that already shows the host's link). */
static int add_grant_link(const struct policy_path *g, struct compile_plan *plan,
                          struct bento_err *err)
{
        cleanup_free char *name = NULL, *dir = NULL, *dir_real = NULL;
        char text[4096];
        struct stat st;
        ssize_t len;
        char *slash;

        if (!g->exists || !g->expanded || !g->real)
                return 0;
        name = path_clean(g->expanded);
        dir = name ? strdup(name) : NULL;
        if (!dir)
                return bento_err_set(err, ENOMEM, "mounts");
        if (strcmp(name, g->real) == 0 || path_lstat(name, &st) < 0 || !S_ISLNK(st.st_mode))
                return 0;
        slash = strrchr(dir, '/');
        *(slash == dir ? slash + 1 : slash) = '\0';
        if (path_resolve(dir, &dir_real) < 0)
                return bento_err_set(err, ENOMEM, "mounts");
        if (strcmp(dir, dir_real) != 0)
                return 0;
        for (size_t i = 0; i < plan->n_mounts; i++)
                if (path_within(plan->mounts[i].destination, name))
                        return 0;
        for (size_t i = 0; i < plan->n_symlinks; i++)
                if (strcmp(plan->symlinks[i].name, name) == 0)
                        return 0;
        len = path_readlink(name, text, sizeof(text) - 1);
        if (len <= 0)
                return 0;
        text[len] = '\0';
        return add_symlink(plan, name, text, err);
}

static int add_grant_links(const struct policy *p, struct compile_plan *plan, struct bento_err *err)
{
        int r = 0;

        for (size_t i = 0; r >= 0 && i < p->n_reads; i++)
                r = add_grant_link(&p->reads[i], plan, err);
        for (size_t i = 0; r >= 0 && i < p->n_writes; i++)
                r = add_grant_link(&p->writes[i], plan, err);
        return r;
}

/* The existing directories strictly between shield mount sm and the write
 * grant that holds it, unless a shield (in shields, the shield mounts by
 * path) already covers them: a read-only or hidden parent cannot be
 * renamed from inside either.  Appended to *v, repeats and all. */
static int shield_parents_of(const struct policy *p, const struct path_index *shields,
                             const char *path, char ***v, size_t *n)
{
        const char *grant = policy_holding_write(p, path);
        cleanup_free char *cur = grant ? strdup(path) : NULL;
        size_t glen = grant ? strlen(grant) : 0;
        char *slash;
        int r = 0;

        if (grant && !cur)
                return -ENOMEM;
        while (r >= 0 && cur && (slash = strrchr(cur, '/')) && (size_t) (slash - cur) > glen) {
                struct stat st;

                *slash = '\0';
                if (path_lstat(cur, &st) == 0 && S_ISDIR(st.st_mode) &&
                    !path_index_holds(shields, cur))
                        r = bento_strv_append(v, n, cur);
        }
        return r;
}

static int add_shield_parents(const struct policy *p, struct compile_plan *plan,
                              struct bento_err *err)
{
        cleanup_free const char **keys = calloc(p->n_shield_mounts + 1, sizeof(char *));
        cleanup_strv char **v = calloc(1, sizeof(char *));
        struct path_index shields = {0};
        size_t n = 0;
        int r = keys && v ? 0 : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < p->n_shield_mounts; i++)
                keys[i] = p->shield_mounts[i].path;
        if (r >= 0)
                r = path_index_init(&shields, keys, p->n_shield_mounts);
        for (size_t i = 0; r >= 0 && i < p->n_shield_mounts; i++)
                r = shield_parents_of(p, &shields, p->shield_mounts[i].path, &v, &n);
        path_index_done(&shields);
        if (r < 0)
                return bento_err_set(err, ENOMEM, "mounts");
        /* Parents before children, so each lands inside the one above; once
         * each, as shields in one checkout share their parents. */
        if (n)
                qsort(v, n, sizeof(char *), cmp_str);
        for (size_t i = 0; r >= 0 && i < n; i++)
                if (i == 0 || strcmp(v[i - 1], v[i]) != 0)
                        r = add_bind(plan, v[i], opts_rw, err);
        return r;
}

static int add_shields(const struct policy *p, const char *shield_file, const char *dot_file,
                       struct compile_plan *plan, struct bento_err *err)
{
        for (size_t i = 0; i < p->n_shield_mounts; i++) {
                const char *path = p->shield_mounts[i].path;
                int r;

                switch (p->shield_mounts[i].kind) {
                case SHIELD_MOUNT_HIDDEN_DIR:
                        r = add_mount(plan, path, "tmpfs", "tmpfs", opts_hidden_dir, err);
                        break;
                case SHIELD_MOUNT_DISCARDED:
                        r = add_mount(plan, path, "tmpfs", "tmpfs", opts_discarded, err);
                        break;
                case SHIELD_MOUNT_READ_ONLY:
                        r = add_ro_bind(plan, path, err);
                        break;
                case SHIELD_MOUNT_HIDDEN_FILE:
                case SHIELD_MOUNT_READ_ONLY_FILE:
                        r = add_mount(plan, path, "bind",
                                      p->shield_mounts[i].rule->reads_as_dot ? dot_file
                                                                             : shield_file,
                                      opts_file_ro, err);
                        break;
                default:
                        r = bento_err_set(err, EINVAL, "unknown shield mount kind");
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Profiling (compile.h, struct compile_profile): an empty tmpfs over the real home, before
 * any grant, so grants and shields inside home land on it and nothing else of home is
 * there; and the observer with its preload library. */
static int add_profile_home(const struct compile_profile *pr, struct compile_plan *plan,
                            struct bento_err *err)
{
        if (!pr || !pr->home)
                return 0;
        return add_mount(plan, pr->home, "tmpfs", "tmpfs", opts_home, err);
}

/* A file of bento's own installation (the observer, its library, bento-init), bound
 * read-only at a fixed path inside the rootfs: no host path is named there, so it
 * carries no identity. */
static int add_own_file(struct compile_plan *plan, const char *box_path, const char *host,
                        struct bento_err *err)
{
        int r = add_mount(plan, box_path, "bind", host, opts_file_ro, err);

        if (r >= 0)
                plan->mounts[plan->n_mounts - 1].identity = (struct bento_mount_identity){0};
        return r;
}

static int add_profile_observer(const struct compile_profile *pr, struct compile_plan *plan,
                                struct bento_err *err)
{
        int r;

        if (!pr)
                return 0;
        r = add_own_file(plan, COMPILE_OBSERVE_BOX_PATH, pr->observe, err);
        if (r >= 0 && pr->shim)
                r = add_own_file(plan, COMPILE_OBSERVE_SHIM_BOX_PATH, pr->shim, err);
        return r;
}

/* bento-init, bound like the observer. */
static int add_init(const struct policy *p, const struct compile_opts *o, struct compile_plan *plan,
                    struct bento_err *err)
{
        cleanup_free char *init = NULL;

        if (!compile_has_init(p, o))
                return 0;
        init = o->init ? strdup(o->init) : compile_helper_path("BENTO_INIT", "bento-init");
        if (!init)
                return bento_err_set(err, ENOMEM, "mounts");
        return add_own_file(plan, COMPILE_INIT_BOX_PATH, init, err);
}

int compile_plan_mounts(const struct policy *p, const struct compile_opts *o,
                        struct compile_plan *plan, struct bento_err *err)
{
        int r;

        /* Planning changes nothing on the host and asks about the system
         * paths several times over (manifest/path.h). */
        path_cache_begin();
        r = add_fresh(p, plan, err);
        if (r >= 0)
                r = add_system(p, plan, err);
        if (r >= 0)
                r = add_profile_home(o->profile, plan, err);
        if (r >= 0)
                r = add_grants(p->reads, p->n_reads, false, plan, err);
        if (r >= 0)
                r = add_grants(p->writes, p->n_writes, true, plan, err);
        if (r >= 0)
                r = add_grant_links(p, plan, err);
        if (r >= 0)
                r = add_shield_parents(p, plan, err);
        /* The shield files are in the bundle directory, so their sources are named
         * relative to it, as runtime-spec allows for bind sources (every runtime
         * resolves them against the bundle): a bundle moved elsewhere still binds
         * its own. */
        if (r >= 0)
                r = add_shields(p, COMPILE_SHIELD_FILE, COMPILE_SHIELD_DOT, plan, err);
        if (r >= 0 && p->entrypoint.exists)
                r = add_mount(plan, p->entrypoint.real, "bind", p->entrypoint.real, opts_file_ro,
                              err);
        if (r >= 0 && p->interpreter.real && p->interpreter.exists)
                r = add_mount(plan, p->interpreter.real, "bind", p->interpreter.real, opts_file_ro,
                              err);
        if (r >= 0)
                r = add_profile_observer(o->profile, plan, err);
        if (r >= 0)
                r = add_init(p, o, plan, err);
        path_cache_end();
        return r;
}

char *compile_mount_identities(const struct compile_plan *plan)
{
        cleanup_free struct bento_mount_identity *ids =
            calloc(plan->n_mounts + 1, sizeof(struct bento_mount_identity));
        char *text = NULL;

        if (!ids)
                return NULL;
        for (size_t i = 0; i < plan->n_mounts; i++)
                ids[i] = plan->mounts[i].identity;
        if (bento_mount_identity_format(ids, plan->n_mounts, &text) < 0)
                return NULL;
        return text;
}

void compile_write_mounts(struct bento_jsonw *w, const struct compile_plan *plan)
{
        bento_jsonw_key(w, "mounts");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < plan->n_mounts; i++) {
                const struct compile_mount *m = &plan->mounts[i];

                bento_jsonw_open_object(w);
                bento_jsonw_kstring(w, "destination", m->destination);
                bento_jsonw_kstring(w, "type", m->type);
                bento_jsonw_kstring(w, "source", m->source);
                bento_jsonw_key(w, "options");
                bento_jsonw_open_array(w);
                for (const char *const *opt = m->options; *opt; opt++)
                        bento_jsonw_string(w, *opt);
                if (m->size_option)
                        bento_jsonw_string(w, m->size_option);
                bento_jsonw_close_array(w);
                bento_jsonw_close_object(w);
        }
        bento_jsonw_close_array(w);
}
