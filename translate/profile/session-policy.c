/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The discovery policy (docs/profile.md, "What runs"): the sandbox the target is watched
 * under.  It grants the script's own directory (unless that is too broad to hand over
 * whole: then nothing), lets every exec through (exec: all, so the observer sees each one),
 * and passes the few environment names a recorded $HOME path needs to mean the same thing
 * at run time.  Built in code, validated like any manifest before it runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "jsonr.h"
#include "manifest/path.h"
#include "session.h"

const char *const profile_discovery_env[] = {
    "HOME",          "USER",           "LOGNAME",        "XDG_CONFIG_HOME",
    "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", NULL};

bool profile_dir_is_broad(const char *dir, const char *home)
{
        static const char *const containers[] = {"/home", "/var/home", "/export/home", "/Users"};
        const char *second = dir[0] == '/' ? strchr(dir + 1, '/') : NULL;

        if (strcmp(dir, "/") == 0 || !second)
                return true; /* "/" or a top-level directory */
        for (size_t i = 0; i < sizeof(containers) / sizeof(containers[0]); i++)
                if (strcmp(dir, containers[i]) == 0)
                        return true;
        return home && home[0] == '/' && strcmp(home, "/") != 0 && strcmp(dir, home) == 0;
}

static int append_all(char ***v, size_t *n, char *const *add, size_t n_add)
{
        for (size_t i = 0; i < n_add; i++)
                if (bento_strv_append(v, n, add[i]) < 0)
                        return -ENOMEM;
        return 0;
}

static int discovery_env(struct manifest *m)
{
        for (const char *const *name = profile_discovery_env; *name; name++) {
                const char *value = getenv(*name);

                if (value && value[0] && bento_strv_append(&m->env, &m->n_env, *name) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* read and write = [dirname(script)] unless broad, then what the loop accepted. */
static int discovery_grants(struct manifest *m, const struct profile_discovery *d)
{
        cleanup_free char *dir = strdup(d->script);
        char *slash = dir ? strrchr(dir, '/') : NULL;
        int r = dir ? 0 : -ENOMEM;

        if (slash)
                *(slash == dir ? slash + 1 : slash) = '\0';
        if (r == 0 && slash && !profile_dir_is_broad(dir, getenv("HOME"))) {
                r = bento_strv_append(&m->read, &m->n_read, dir);
                if (r >= 0)
                        r = bento_strv_append(&m->write, &m->n_write, dir);
        }
        if (r >= 0)
                r = append_all(&m->read, &m->n_read, d->extra_read, d->n_extra_read);
        if (r >= 0)
                r = append_all(&m->write, &m->n_write, d->extra_write, d->n_extra_write);
        return r < 0 ? -ENOMEM : 0;
}

static int discovery_network(struct manifest *m, bool allow_network)
{
        if (!allow_network)
                return 0;
        m->network = calloc(1, sizeof(*m->network));
        if (!m->network)
                return -ENOMEM;
        m->network[0] = (struct manifest_net_rule){strdup("*"), strdup("*")};
        m->n_network = 1;
        return m->network[0].host && m->network[0].port ? 0 : -ENOMEM;
}

int profile_discovery_manifest(const struct profile_discovery *d, struct manifest **ret,
                               struct bento_err *err)
{
        cleanup_manifest struct manifest *m = calloc(1, sizeof(*m));
        struct manifest_problems problems = {0};
        int r;

        if (!m || !(m->path = strdup("")) || !(m->entrypoint = strdup(d->script)) ||
            !(m->interpreter = strdup(d->interpreter ? d->interpreter : "")))
                return bento_err_set(err, ENOMEM, "discovery policy");
        m->exec = MANIFEST_EXEC_ALL;
        r = append_all(&m->interpreter_args, &m->n_interpreter_args, d->interpreter_args,
                       d->n_interpreter_args);
        if (r >= 0)
                r = append_all(&m->args, &m->n_args, d->args, d->n_args);
        if (r >= 0)
                r = discovery_env(m);
        if (r >= 0)
                r = discovery_grants(m, d);
        if (r >= 0)
                r = discovery_network(m, d->allow_network);
        if (r < 0)
                return bento_err_set(err, ENOMEM, "discovery policy");
        /* What runs is checked as any manifest is (an interpreter or argument the manifest
         * rules refuse is refused here, not half-run). */
        r = manifest_validate(m, d->script, &problems, err);
        manifest_problems_done(&problems);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}
