/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the egress hook decided during a run, read back from its report
 * file (one JSON object per line, docs/egress.md).  The file is written by
 * a program that talked to the sandboxed target, so it is parsed as
 * hostile input: size-capped, line by line, unknown lines skipped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "json.h"
#include "run.h"

#define EGRESS_REPORT_MAX (8u << 20)

static const char *str(const struct bento_json *obj, const char *key)
{
        const struct bento_json *v = bento_json_get(obj, key);

        return v && v->type == BENTO_JSON_STRING ? v->u.string.s : NULL;
}

static int add(struct run_dest **v, size_t *n, const char *host, const char *port)
{
        struct run_dest *nv;

        for (size_t i = 0; i < *n; i++)
                if (strcmp((*v)[i].host, host) == 0 && strcmp((*v)[i].port, port) == 0)
                        return 0;
        nv = reallocarray(*v, *n + 1, sizeof(*nv));
        if (!nv)
                return -ENOMEM;
        *v = nv;
        nv[*n] = (struct run_dest){strdup(host), strdup(port)};
        if (!nv[*n].host || !nv[*n].port) {
                free(nv[*n].host);
                free(nv[*n].port);
                return -ENOMEM;
        }
        (*n)++;
        return 0;
}

static int cmp_dest(const void *a, const void *b)
{
        const struct run_dest *x = a, *y = b;
        int c = strcmp(x->host, y->host);

        return c ? c : strcmp(x->port, y->port);
}

static int one_line(struct run_egress *e, const char *line, size_t len)
{
        struct bento_err ignored = {0};
        struct bento_json *j = NULL;
        const char *event, *decision, *host, *port;
        int r = 0;

        if (bento_json_parse(line, len, EGRESS_REPORT_MAX, &j, &ignored) < 0)
                return 0;
        event = str(j, "event");
        decision = str(j, "decision");
        host = str(j, "host");
        port = str(j, "port");
        if (event && strcmp(event, "truncated") == 0)
                e->truncated = true;
        if (!event || strcmp(event, "decision") != 0 || !decision) {
                bento_json_free(j);
                return 0;
        }
        if (strcmp(decision, "fault") == 0)
                e->faults++;
        else
                e->connections++;
        if (!host)
                host = "";
        if (!port)
                port = "";
        if (strcmp(decision, "deny") == 0)
                r = add(&e->denied, &e->n_denied, host, port);
        else if (strcmp(decision, "blocked") == 0)
                r = add(&e->blocked, &e->n_blocked, host, port);
        else if (strcmp(decision, "untunneled") == 0)
                r = add(&e->untunneled, &e->n_untunneled, host, port);
        bento_json_free(j);
        return r;
}

int run_egress_read(const char *path, struct run_egress *ret, struct bento_err *err)
{
        cleanup_free char *data = NULL;
        struct bento_err why = {0};
        size_t len = 0;

        *ret = (struct run_egress){0};
        if (bento_read_file(path, EGRESS_REPORT_MAX, &data, &len, &why) < 0)
                return why.code == ENOENT ? 0 : bento_err_setx(err, why.code, "%s", why.msg);
        for (size_t i = 0; i < len;) {
                size_t end = i;
                int r;

                while (end < len && data[end] != '\n')
                        end++;
                r = one_line(ret, data + i, end - i);
                if (r < 0)
                        return bento_err_set(err, -r, "egress report");
                i = end + 1;
        }
        if (ret->n_denied)
                qsort(ret->denied, ret->n_denied, sizeof(*ret->denied), cmp_dest);
        if (ret->n_blocked)
                qsort(ret->blocked, ret->n_blocked, sizeof(*ret->blocked), cmp_dest);
        if (ret->n_untunneled)
                qsort(ret->untunneled, ret->n_untunneled, sizeof(*ret->untunneled), cmp_dest);
        return 0;
}

static void dests_free(struct run_dest *v, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(v[i].host);
                free(v[i].port);
        }
        free(v);
}

void run_egress_done(struct run_egress *e)
{
        dests_free(e->denied, e->n_denied);
        dests_free(e->blocked, e->n_blocked);
        dests_free(e->untunneled, e->n_untunneled);
        *e = (struct run_egress){0};
}
