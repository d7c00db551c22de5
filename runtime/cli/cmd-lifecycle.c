/* SPDX-License-Identifier: Apache-2.0 */
/* The verbs create, start, kill and delete: argv in, one call, exit status out. */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "container/container.h"
#include "create-opts.h"
#include "base/log.h"
#include "container/notify.h"
#include "base/signals.h"

/* Open the state root, run fn, report its error. */
static int with_store(const struct rt_global *g,
                      int (*fn)(struct rt_store *, void *, struct bento_err *), void *data)
{
        struct rt_store store = {.root = NULL, .root_fd = -1};
        struct bento_err err = {0};
        int r;

        r = rt_store_open(g->root, &store, &err);
        if (r >= 0)
                r = fn(&store, data, &err);
        rt_store_close(&store);
        return r < 0 ? rt_log_err(&err) : 0;
}

static int need_one_id(const char *verb, struct bento_argv *a, int max_extra, const char **ret_id)
{
        int left = a->argc - a->i;

        if (left < 1 || left > 1 + max_extra) {
                rt_log_error("%s: expected a container id", verb);
                rt_usage(verb, true);
                return -EINVAL;
        }
        *ret_id = a->argv[a->i];
        return 0;
}

static int do_create(struct rt_store *store, void *data, struct bento_err *err)
{
        struct rt_created c;
        int r;

        r = rt_container_create(store, data, &c, err);
        if (r >= 0)
                close(c.pidfd);
        return r;
}

int cmd_create(const struct rt_global *g, int argc, char **argv)
{
        struct rt_create_opts o = {.id = NULL};
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_err err = {0};

        if (rt_create_opts_parse(&a, &o, NULL, &err) < 0)
                return rt_log_err(&err);
        if (need_one_id("create", &a, 0, &o.id) < 0)
                return 1;
        o.systemd_cgroup = g->systemd_cgroup;
        o.no_cgroup = g->no_cgroup;
        o.rootless = g->rootless;
        o.seccomp_cache = g->seccomp_cache;
        return with_store(g, do_create, &o);
}

/* With NOTIFY_SOCKET, start returns once the container said READY=1 (or
 * its init ended), as runc and crun do: a Type=notify unit is ready then. */
static int do_start(struct rt_store *store, void *data, struct bento_err *err)
{
        struct rt_notify_link l = RT_NOTIFY_LINK_INIT;
        const char *caller = rt_notify_caller();
        int r = caller ? rt_notify_bind(store, data, &l, err) : 0;

        if (r >= 0)
                r = rt_container_start(store, data, err);
        if (r >= 0 && l.fd >= 0)
                r = rt_notify_relay(&l, caller, err);
        rt_notify_link_close(&l);
        return r;
}

int cmd_start(const struct rt_global *g, int argc, char **argv)
{
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_err err = {0};
        const char *id;

        if (rt_args_none(&a, &err) < 0)
                return rt_log_err(&err);
        if (need_one_id("start", &a, 0, &id) < 0)
                return 1;
        return with_store(g, do_start, (void *) id);
}

struct kill_req {
        const char *id;
        int sig;
        bool all;
};

static int do_kill(struct rt_store *store, void *data, struct bento_err *err)
{
        struct kill_req *k = data;

        return rt_container_kill(store, k->id, k->sig, k->all, err);
}

int cmd_kill(const struct rt_global *g, int argc, char **argv)
{
        static const struct bento_opt opts[] = {
            {"all", 'a', BENTO_OPT_FLAG, 'a', NULL, "signal every process of the container"},
            {"signal", 's', BENTO_OPT_VALUE, 's', "SIGNAL", "a name (TERM, SIGKILL) or a number"},
            {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL}};
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct kill_req k = {.sig = 15};
        struct bento_err err = {0};
        const char *value = NULL;
        const char *sig = NULL;
        int id, r;

        while ((r = rt_args_next(&a, opts, &id, &value, &err)) > 0) {
                if (id == 'a')
                        k.all = true;
                else
                        sig = value;
        }
        if (r < 0)
                return rt_log_err(&err);
        if (need_one_id("kill", &a, 1, &k.id) < 0)
                return 1;
        if (a.argc - a.i == 2)
                sig = a.argv[a.i + 1];
        if (sig && rt_signal_parse(sig, &k.sig, &err) < 0)
                return rt_log_err(&err);
        return with_store(g, do_kill, &k);
}

struct delete_req {
        const char *id;
        bool force;
        bool regex;
};

static int do_delete(struct rt_store *store, void *data, struct bento_err *err)
{
        struct delete_req *d = data;

        return rt_container_delete(store, d->id, d->force, err);
}

/* --regex (crun's): every container whose id the extended regular
 * expression matches anywhere, as crun matches.  One that cannot be
 * deleted is reported and the others still go; the exit status then says
 * that not all went. */
static int do_delete_matching(struct rt_store *store, void *data, struct bento_err *err)
{
        struct delete_req *d = data;
        char **ids = NULL;
        size_t n = 0;
        int failed = 0;
        regex_t re;
        int r;

        if (regcomp(&re, d->id, REG_EXTENDED | REG_NOSUB) != 0)
                return bento_err_setx(err, EINVAL,
                                      "delete --regex: '%s' is not a valid regular "
                                      "expression",
                                      d->id);
        r = rt_store_ids(store, &ids, &n, err);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                struct bento_err one = {0};

                if (regexec(&re, ids[i], 0, NULL, 0) != 0)
                        continue;
                if (rt_container_delete(store, ids[i], d->force, &one) < 0) {
                        rt_log_error("%s", one.msg);
                        failed++;
                }
        }
        regfree(&re);
        rt_store_ids_free(ids, n);
        if (r >= 0 && failed)
                r = bento_err_setx(err, EIO, "delete --regex: %d container%s not deleted", failed,
                                   failed == 1 ? " was" : "s were");
        return r;
}

int cmd_delete(const struct rt_global *g, int argc, char **argv)
{
        static const struct bento_opt opts[] = {
            {"force", 'f', BENTO_OPT_FLAG, 'f', NULL, "kill a running container first"},
            {"regex", 'r', BENTO_OPT_FLAG, 'r', NULL,
             "ID is an extended regular expression: delete every container it matches"},
            {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL}};
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct delete_req d = {.force = false};
        struct bento_err err = {0};
        const char *value = NULL;
        int id, r;

        while ((r = rt_args_next(&a, opts, &id, &value, &err)) > 0) {
                if (id == 'f')
                        d.force = true;
                else
                        d.regex = true;
        }
        if (r < 0)
                return rt_log_err(&err);
        if (need_one_id("delete", &a, 0, &d.id) < 0)
                return 1;
        return with_store(g, d.regex ? do_delete_matching : do_delete, &d);
}
