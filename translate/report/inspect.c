/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inspect_bundle(): read config.json under a cap, classify each mount by
 * its shape, then run the checks (inspect-check.c) and, for a bundle
 * bento says it wrote, the missing-shield check (inspect-shields.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "compile/compile.h"
#include "fileio.h"
#include "inspect.h"
#include "manifest/path.h"
#include "policy/policy.h"

/* Read-only binds taken for system ones besides policy_system_candidates
 * (docs/manifest.md, "WHAT THE PROGRAM SEES"): /nix/store, an interpreter's whole-store read path,
 * and the multilib directories beside /lib64. */
static const char *const more_system_paths[] = {"/lib32", "/libx32", "/nix/store", NULL};

/* No write grant may land at or beneath these. */
static const char *const never_writable[] = {"/usr",   "/bin",   "/sbin",   "/lib",
                                             "/lib32", "/lib64", "/libx32", "/etc",
                                             "/boot",  "/proc",  "/sys",    "/dev"};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

int inspect_flag(struct inspect_report *r, const char *fmt, ...)
{
        char **v = reallocarray(r->flags, r->n_flags + 2, sizeof(char *));
        va_list ap;
        int n;

        if (!v)
                return -ENOMEM;
        r->flags = v;
        va_start(ap, fmt);
        n = vasprintf(&v[r->n_flags], fmt, ap);
        va_end(ap);
        if (n < 0) {
                v[r->n_flags] = NULL;
                return -ENOMEM;
        }
        v[++r->n_flags] = NULL;
        return 0;
}

const char *inspect_str(const struct bento_json *obj, const char *key)
{
        const struct bento_json *v = bento_json_get(obj, key);

        return v && v->type == BENTO_JSON_STRING ? v->u.string.s : NULL;
}

const char *inspect_annotation(const struct inspect_report *r, const char *key)
{
        return r->annotations ? inspect_str(r->annotations, key) : NULL;
}

const char *inspect_role_name(enum inspect_role role)
{
        static const char *const names[] = {
            "fresh",      "system",    "read",      "write",  "target", "hidden",
            "empty-file", "read-only", "discarded", "pinned", "other",
        };

        return role < INSPECT_ROLE_MAX ? names[role] : "other";
}

static bool has_option(const struct bento_json *opts, const char *want)
{
        for (size_t i = 0; opts && opts->type == BENTO_JSON_ARRAY && i < opts->u.array.n; i++) {
                const struct bento_json *o = opts->u.array.items[i];

                if (o->type == BENTO_JSON_STRING && strcmp(o->u.string.s, want) == 0)
                        return true;
        }
        return false;
}

static bool never_writable_path(const char *path)
{
        for (size_t i = 0; i < N_OF(never_writable); i++)
                if (path_within(never_writable[i], path))
                        return true;
        return false;
}

static bool in_system_list(const char *const *list, const char *dest)
{
        for (size_t i = 0; list[i]; i++) {
                cleanup_free char *real = NULL;

                if (strcmp(list[i], dest) == 0)
                        return true;
                /* Merged /usr: /lib64 bound at its resolved /usr/lib64, and so on. */
                if (path_resolve(list[i], &real) == 0 && strcmp(real, dest) == 0)
                        return true;
        }
        return false;
}

static bool is_system(const char *dest)
{
        return in_system_list(policy_system_candidates, dest) ||
               in_system_list(more_system_paths, dest);
}

static bool is_arg(const struct inspect_report *r, const char *dest)
{
        const struct bento_json *args = bento_json_get(r->process, "args");

        for (size_t i = 0; args && args->type == BENTO_JSON_ARRAY && i < args->u.array.n; i++) {
                const struct bento_json *a = args->u.array.items[i];

                if (a->type == BENTO_JSON_STRING && strcmp(a->u.string.s, dest) == 0)
                        return true;
        }
        return false;
}

static bool under_write(const struct inspect_report *r, size_t upto, const char *dest)
{
        for (size_t i = 0; i < upto; i++)
                if (r->mounts[i].role == INSPECT_WRITE &&
                    path_within(r->mounts[i].destination, dest))
                        return true;
        return false;
}

static bool fresh(const char *dest, const char *type)
{
        return (strcmp(dest, "/proc") == 0 && strcmp(type, "proc") == 0) ||
               (strcmp(dest, "/dev") == 0 && strcmp(type, "tmpfs") == 0) ||
               (strcmp(dest, "/dev/pts") == 0 && strcmp(type, "devpts") == 0) ||
               (strcmp(dest, "/dev/shm") == 0 && strcmp(type, "tmpfs") == 0) ||
               (strcmp(dest, "/tmp") == 0 && strcmp(type, "tmpfs") == 0);
}

/* A bind source as the runtime opens it: a relative one is in the bundle
 * directory (runtime-spec; translate names the shield files so).  Heap. */
static char *bundle_source(const struct inspect_report *r, const char *source)
{
        return source[0] == '/' ? strdup(source) : path_join(r->dir, source);
}

/* File shields bind an empty read-only file, "shield" in the bundle
 * directory as translate writes it (named relative to the bundle, or, in
 * bundles of older versions, by an absolute path that a copy still names,
 * so only the file's emptiness is judged, not where it is). */
static int check_shield_file(struct inspect_report *r, const char *source)
{
        cleanup_free char *path = bundle_source(r, source);
        struct stat st;

        if (!path || lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != 0)
                return inspect_flag(r,
                                    "the shield file \"%s\" is missing or not an empty regular "
                                    "file, so shielded files would not read as empty",
                                    source);
        return 0;
}

/* The file a missing git commondir is bound to must say "." and nothing
 * else: anything more would point git at another config. */
static int check_dot_file(struct inspect_report *r, const char *source)
{
        cleanup_free char *path = bundle_source(r, source);
        cleanup_free char *text = NULL;
        struct bento_err err = {0};
        size_t len = 0;

        if (!path || bento_read_file(path, 16, &text, &len, &err) < 0 || len != 2 ||
            memcmp(text, ".\n", 2) != 0)
                return inspect_flag(r,
                                    "the shield file \"%s\" does not hold exactly \".\", so a "
                                    "shielded git commondir could point git elsewhere",
                                    source);
        return 0;
}

static int classify_bind(struct inspect_report *r, size_t i)
{
        struct inspect_mount *m = &r->mounts[i];
        /* "/name" of an absolute source; a relative one is "name" in the bundle */
        const char *slash = strrchr(m->source, '/');
        cleanup_free char *rel = NULL;
        const char *base = slash;

        if (!slash && m->source[0] && asprintf(&rel, "/%s", m->source) >= 0)
                base = rel;

        if (strcmp(m->source, m->destination) != 0) {
                if (m->ro && base && strcmp(base, "/shield") == 0) {
                        m->role = INSPECT_SHIELD_FILE;
                        return check_shield_file(r, m->source);
                }
                if (m->ro && base && strcmp(base, "/" COMPILE_SHIELD_DOT) == 0) {
                        m->role = INSPECT_SHIELD_FILE;
                        return check_dot_file(r, m->source);
                }
                /* bento-init, the box's process 1 (compile.h): bento's own program at
                 * its fixed place, run under the box's confinement like the target. */
                if (m->ro && base && strcmp(base, "/bento-init") == 0 &&
                    strcmp(m->destination, COMPILE_INIT_BOX_PATH) == 0 &&
                    is_arg(r, m->destination)) {
                        m->role = INSPECT_TARGET;
                        return 0;
                }
                m->role = INSPECT_OTHER;
                return inspect_flag(r,
                                    "mount at \"%s\" binds \"%s\", another host path: bento binds "
                                    "every grant at its own path",
                                    m->destination, m->source);
        }
        if (!m->ro) {
                m->role = INSPECT_WRITE;
                if (never_writable_path(m->destination) || strcmp(m->destination, "/") == 0)
                        return inspect_flag(r,
                                            "the system path \"%s\" is bound writable: no "
                                            "manifest grants writes there",
                                            m->destination);
                return 0;
        }
        if (is_system(m->destination))
                m->role = INSPECT_SYSTEM;
        else if (is_arg(r, m->destination) && !m->rw)
                m->role = INSPECT_TARGET;
        else if (under_write(r, i, m->destination))
                m->role = INSPECT_SHIELD_RO;
        else
                m->role = INSPECT_READ;
        return 0;
}

static int classify(struct inspect_report *r, size_t i)
{
        struct inspect_mount *m = &r->mounts[i];

        if (fresh(m->destination, m->type)) {
                m->role = INSPECT_FRESH;
                return 0;
        }
        if (strcmp(m->type, "tmpfs") == 0) {
                m->role = m->ro ? INSPECT_SHIELD_HIDDEN : INSPECT_SHIELD_SCRATCH;
                if (m->role == INSPECT_SHIELD_SCRATCH && !under_write(r, i, m->destination))
                        return inspect_flag(r,
                                            "writable tmpfs at \"%s\" outside every write grant: "
                                            "bento only discards writes inside one",
                                            m->destination);
                return 0;
        }
        if (m->bind &&
            (m->type[0] == '\0' || strcmp(m->type, "bind") == 0 || strcmp(m->type, "none") == 0))
                return classify_bind(r, i);
        m->role = INSPECT_OTHER;
        return inspect_flag(r, "mount of type \"%s\" at \"%s\": no manifest produces one",
                            m->type[0] ? m->type : "(none)", m->destination);
}

static bool is_shield(enum inspect_role role)
{
        return role == INSPECT_SHIELD_HIDDEN || role == INSPECT_SHIELD_FILE ||
               role == INSPECT_SHIELD_RO || role == INSPECT_SHIELD_SCRATCH;
}

/* A read-write rebind strictly inside an earlier write grant, with a
 * shield mounted beneath it later, is no grant of its own: translate pins
 * the directories between a write grant and its shields as mount points so
 * the sandbox cannot rename them away (threat-model.md).  It grants
 * nothing the enclosing grant does not, so it is not listed as a write. */
static void find_shield_parents(struct inspect_report *r)
{
        for (size_t i = 0; i < r->n_mounts; i++) {
                struct inspect_mount *m = &r->mounts[i];
                bool inside = false, above = false;

                if (m->role != INSPECT_WRITE)
                        continue;
                for (size_t j = 0; j < i && !inside; j++)
                        inside = r->mounts[j].role == INSPECT_WRITE &&
                                 path_beneath(r->mounts[j].destination, m->destination);
                for (size_t j = i + 1; j < r->n_mounts && inside && !above; j++)
                        above = is_shield(r->mounts[j].role) &&
                                path_beneath(m->destination, r->mounts[j].destination);
                if (above)
                        m->role = INSPECT_SHIELD_PARENT;
        }
}

int inspect_read_mounts(struct inspect_report *r)
{
        const struct bento_json *mounts = bento_json_get(r->doc, "mounts");
        int rc = 0;

        if (!mounts)
                return inspect_flag(r, "config.json has no mounts: a bento bundle always has them");
        if (mounts->type != BENTO_JSON_ARRAY)
                return inspect_flag(r, "mounts is not an array");
        r->mounts = calloc(mounts->u.array.n + 1, sizeof(*r->mounts));
        if (!r->mounts)
                return -ENOMEM;
        for (size_t i = 0; rc >= 0 && i < mounts->u.array.n; i++) {
                const struct bento_json *e = mounts->u.array.items[i];
                const char *dest = inspect_str(e, "destination");
                const char *type = inspect_str(e, "type");
                const char *source = inspect_str(e, "source");
                const struct bento_json *opts = bento_json_get(e, "options");
                struct inspect_mount *m = &r->mounts[r->n_mounts];

                if (!dest || dest[0] != '/') {
                        rc = inspect_flag(r, "mounts[%zu] has no absolute destination", i);
                        continue;
                }
                *m = (struct inspect_mount){
                    .destination = dest,
                    .type = type ? type : "",
                    .source = source ? source : "",
                    .ro = has_option(opts, "ro"),
                    .rw = has_option(opts, "rw"),
                    .bind = has_option(opts, "bind") || has_option(opts, "rbind"),
                };
                if (strcmp(m->type, "bind") == 0)
                        m->bind = true;
                r->n_mounts++;
                rc = classify(r, r->n_mounts - 1);
        }
        if (rc >= 0)
                find_shield_parents(r);
        return rc;
}

static int load(const char *dir, struct inspect_report *r, struct bento_err *err)
{
        cleanup_free char *path = path_join(dir, "config.json");
        cleanup_free char *data = NULL;
        size_t len = 0;
        int rc;

        if (!path)
                return bento_err_set(err, ENOMEM, "inspect");
        rc = bento_read_file(path, INSPECT_CONFIG_MAX, &data, &len, err);
        if (rc < 0)
                return rc;
        rc = bento_json_parse(data, len, INSPECT_CONFIG_MAX, &r->doc, err);
        if (rc < 0)
                return bento_err_prefix(err, "%s", path), rc;
        if (r->doc->type != BENTO_JSON_OBJECT)
                return bento_err_set(err, EINVAL, "%s: not a JSON object", path);
        return 0;
}

static const struct bento_json *object_member(struct inspect_report *r, const char *key, int *rc)
{
        const struct bento_json *v = bento_json_get(r->doc, key);

        if (v && v->type != BENTO_JSON_OBJECT) {
                *rc = inspect_flag(r, "%s is not an object, so it cannot be judged", key);
                return NULL;
        }
        return v;
}

int inspect_bundle(const char *dir, struct inspect_report *ret, struct bento_err *err)
{
        struct inspect_report r = {0};
        cleanup_free char *cwd = NULL;
        int rc = 0;

        if (dir[0] == '/') {
                r.dir = path_clean(dir);
        } else {
                cwd = getcwd(NULL, 0);
                r.dir = cwd ? path_join(cwd, dir) : NULL;
        }
        if (!r.dir)
                return bento_err_set(err, ENOMEM, "inspect");
        rc = load(r.dir, &r, err);
        if (rc >= 0) {
                r.process = object_member(&r, "process", &rc);
                r.linux_ = rc >= 0 ? object_member(&r, "linux", &rc) : NULL;
                r.annotations = rc >= 0 ? object_member(&r, "annotations", &rc) : NULL;
        }
        if (rc >= 0)
                rc = inspect_read_mounts(&r);
        if (rc >= 0)
                rc = inspect_check_process(&r);
        if (rc >= 0)
                rc = inspect_check_linux(&r);
        if (rc >= 0)
                rc = inspect_check_hooks(&r);
        if (rc >= 0)
                rc = inspect_check_shields(&r, err);
        if (rc >= 0)
                rc = inspect_check_identities(&r);
        if (rc < 0) {
                if (rc == -ENOMEM)
                        bento_err_set(err, ENOMEM, "inspect");
                inspect_report_done(&r);
                return rc;
        }
        *ret = r;
        return 0;
}

void inspect_report_done(struct inspect_report *r)
{
        free(r->dir);
        bento_json_free(r->doc);
        free(r->mounts);
        free((void *) r->egress);
        free(r->opened);
        for (size_t i = 0; i < r->n_flags; i++)
                free(r->flags[i]);
        free(r->flags);
        *r = (struct inspect_report){0};
}
