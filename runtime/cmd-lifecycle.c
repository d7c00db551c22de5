/* SPDX-License-Identifier: Apache-2.0 */
/* The verbs create, start, kill and delete: argv in, one call, exit status out. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "container.h"
#include "create-opts.h"
#include "log.h"
#include "signals.h"

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

static int need_one_id(const char *verb, struct rt_args *a, int max_extra, const char **ret_id)
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
        struct rt_args a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_err err = {0};

        if (rt_create_opts_parse(&a, &o, NULL, &err) < 0)
                return rt_log_err(&err);
        if (need_one_id("create", &a, 0, &o.id) < 0)
                return 1;
        o.systemd_cgroup = g->systemd_cgroup;
        return with_store(g, do_create, &o);
}

static int do_start(struct rt_store *store, void *data, struct bento_err *err)
{
        return rt_container_start(store, data, err);
}

int cmd_start(const struct rt_global *g, int argc, char **argv)
{
        struct rt_args a = {.argc = argc, .argv = argv, .i = 1};
        const char *id;

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
        static const struct rt_opt opts[] = {
            {"all", 'a', false, 'a'}, {"signal", 's', true, 's'}, {NULL, 0, false, 0}};
        struct rt_args a = {.argc = argc, .argv = argv, .i = 1};
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
};

static int do_delete(struct rt_store *store, void *data, struct bento_err *err)
{
        struct delete_req *d = data;

        return rt_container_delete(store, d->id, d->force, err);
}

int cmd_delete(const struct rt_global *g, int argc, char **argv)
{
        static const struct rt_opt opts[] = {{"force", 'f', false, 'f'}, {NULL, 0, false, 0}};
        struct rt_args a = {.argc = argc, .argv = argv, .i = 1};
        struct delete_req d = {.force = false};
        struct bento_err err = {0};
        const char *value = NULL;
        int id, r;

        while ((r = rt_args_next(&a, opts, &id, &value, &err)) > 0)
                d.force = true;
        if (r < 0)
                return rt_log_err(&err);
        if (need_one_id("delete", &a, 0, &d.id) < 0)
                return 1;
        return with_store(g, do_delete, &d);
}
