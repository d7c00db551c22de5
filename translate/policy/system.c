/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every sandbox sees besides its grants (docs/manifest.md, "WHAT THE PROGRAM SEES"): the
 * system directories a dynamically linked program needs, the loader's
 * configuration, the CA stores, and the interpreter's install prefix when
 * it lives outside them.  Nothing else of /etc: no passwd, hosts or
 * resolv.conf.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "internal.h"

/* The directories an interpreter may live in without a prefix bind. */
static const char *const base_dirs[] = {"/usr", "/bin", "/sbin", "/lib", "/lib64"};

const char *const policy_system_candidates[] = {
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/alternatives",
    NULL,
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static bool under_base_dirs(const char *path)
{
        for (size_t i = 0; i < N_OF(base_dirs); i++) {
                cleanup_free char *real = NULL;

                if (path_within(base_dirs[i], path))
                        return true;
                /* /bin -> /usr/bin: the resolved spelling counts as well. */
                if (path_resolve(base_dirs[i], &real) == 0 && path_within(real, path))
                        return true;
        }
        return false;
}

static int add_path(struct policy *p, const char *path, struct bento_err *err)
{
        char **v;

        for (size_t i = 0; i < p->n_system_paths; i++)
                if (strcmp(p->system_paths[i], path) == 0)
                        return 0;
        v = reallocarray(p->system_paths, p->n_system_paths + 2, sizeof(char *));
        if (!v)
                return bento_err_set(err, ENOMEM, "system paths");
        p->system_paths = v;
        v[p->n_system_paths] = strdup(path);
        if (!v[p->n_system_paths])
                return bento_err_set(err, ENOMEM, "system paths");
        v[++p->n_system_paths] = NULL;
        return 0;
}

/* A prefix that would expose far more than an interpreter: the root, a
 * top-level directory, /home/<x>, a home anchor, its ancestors or its
 * siblings. */
static bool prefix_too_broad(const struct policy *p, const char *prefix)
{
        const char *second = strchr(prefix + 1, '/');

        if (strcmp(prefix, "/") == 0 || !second)
                return true;
        if (strncmp(prefix, "/home/", 6) == 0 && !strchr(prefix + 6, '/'))
                return true;
        for (size_t i = 0; p->shields && i < p->shields->n_anchors; i++) {
                const char *a = p->shields->resolved_anchors[i];
                cleanup_free char *parent = path_join(a, "..");

                if (path_within(prefix, a))
                        return true;
                if (parent && path_beneath(parent, prefix) &&
                    !strchr(prefix + strlen(parent) + 1, '/'))
                        return true;
        }
        return false;
}

/* docs/manifest.md, "WHAT THE PROGRAM SEES": the interpreter's read path, when it lives outside the
 * base directories. */
static int interpreter_read_path(struct policy *p, struct bento_err *err)
{
        const char *interp = p->interpreter.real;
        cleanup_free char *dir = NULL;
        char *slash;

        if (!interp || !p->interpreter.exists || under_base_dirs(interp))
                return 0;
        if (path_within("/nix/store", interp))
                return add_path(p, "/nix/store", err);
        dir = strdup(interp);
        if (!dir)
                return bento_err_set(err, ENOMEM, "system paths");
        slash = strrchr(dir, '/');
        *(slash == dir ? slash + 1 : slash) = '\0';
        slash = strrchr(dir, '/');
        if (slash && strcmp(slash + 1, "bin") == 0)
                *(slash == dir ? slash + 1 : slash) = '\0';
        return add_path(p, prefix_too_broad(p, dir) ? interp : dir, err);
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

int policy_system_paths(struct policy *p, struct bento_err *err)
{
        int r;

        for (size_t i = 0; policy_system_candidates[i]; i++) {
                struct stat st;

                if (lstat(policy_system_candidates[i], &st) < 0)
                        continue;
                r = add_path(p, policy_system_candidates[i], err);
                if (r < 0)
                        return r;
        }
        r = interpreter_read_path(p, err);
        if (r < 0)
                return r;
        if (p->n_system_paths)
                qsort(p->system_paths, p->n_system_paths, sizeof(char *), cmp_str);
        return 0;
}
