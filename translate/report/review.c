/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The callouts of approve (review.h).  Containment is judged on
 * cleaned paths, in both the docs/manifest.md, "PATH RESOLUTION" spelling and the symlink-resolved
 * one, so a grant reaching the manifest through a link is caught as well.
 */
#include "review.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "manifest/path.h"
#include "shields/shields.h"

struct list {
        char **v;
        size_t n;
        int r;
};

__attribute__((format(printf, 2, 3))) static void add(struct list *l, const char *fmt, ...)
{
        char *s = NULL, **v;
        va_list ap;
        int r;

        if (l->r < 0)
                return;
        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        v = r < 0 ? NULL : realloc(l->v, (l->n + 2) * sizeof(*v));
        if (!v) {
                free(r < 0 ? NULL : s);
                l->r = -ENOMEM;
                return;
        }
        l->v = v;
        v[l->n++] = s;
        v[l->n] = NULL;
}

/* Does grant (cleaned spellings a and b) contain target? */
static bool covers(const char *a, const char *b, const char *target)
{
        cleanup_free char *t = target ? path_clean(target) : NULL;

        return t && ((a && path_within(a, t)) || (b && path_within(b, t)));
}

static bool top_level(const char *p)
{
        return strcmp(p, "/") == 0 || (p[0] == '/' && !strchr(p + 1, '/'));
}

/* A home anchor, or the directory holding one (/home). */
static bool home_like(const struct policy *p, const char *c)
{
        for (size_t i = 0; p && p->shields && i < p->shields->n_anchors; i++) {
                const char *a = p->shields->anchors[i];
                const char *slash = strrchr(a, '/');
                size_t n = slash ? (size_t) (slash - a) : 0;

                if (strcmp(a, c) == 0 || (n > 0 && strlen(c) == n && strncmp(a, c, n) == 0))
                        return true;
        }
        return false;
}

struct grant {
        const char *kind; /* "read" or "write" */
        const struct policy_path *pp;
};

static void breadth_and_tmp(struct list *l, const struct approval_review *rv, const struct grant *g)
{
        cleanup_free char *c = path_clean(g->pp->expanded ? g->pp->expanded : g->pp->written);
        cleanup_free char *ep =
            rv->p->entrypoint.expanded ? path_clean(rv->p->entrypoint.expanded) : NULL;
        cleanup_free char *ep_dir = ep ? strdup(ep) : NULL;
        char *slash = ep_dir ? strrchr(ep_dir, '/') : NULL;

        if (!c) {
                l->r = -ENOMEM;
                return;
        }
        if (slash)
                slash[slash == ep_dir ? 1 : 0] = '\0';
        if (top_level(c) || home_like(rv->p, c))
                add(l,
                    "%s grant \"%s\" is a whole home or top-level directory, far more than a "
                    "script needs",
                    g->kind, g->pp->written);
        if (path_beneath("/tmp", c) &&
            !(ep_dir && path_beneath("/tmp", ep_dir) && path_within(ep_dir, c)))
                add(l,
                    "%s grant \"%s\" lies under /tmp, where anything on this host (the target "
                    "included) can plant files and links that steer it",
                    g->kind, g->pp->written);
}

static void self_rewrite(struct list *l, const struct approval_review *rv, const struct grant *g)
{
        cleanup_free char *a = g->pp->expanded ? path_clean(g->pp->expanded) : NULL;
        cleanup_free char *b = g->pp->real ? path_clean(g->pp->real) : NULL;
        const struct policy_path *ep = &rv->p->entrypoint;

        if (covers(a, b, rv->manifest_real) || covers(a, b, rv->manifest_named))
                add(l,
                    "write grant \"%s\" covers this manifest: the script can rewrite its own "
                    "policy and stamp",
                    g->pp->written);
        if (covers(a, b, ep->expanded) || covers(a, b, ep->real))
                add(l,
                    "write grant \"%s\" covers the entrypoint: the script can rewrite its own "
                    "code",
                    g->pp->written);
}

static void grants(struct list *l, const struct approval_review *rv)
{
        const struct policy *p = rv->p;

        for (size_t i = 0; i < p->n_reads; i++)
                breadth_and_tmp(l, rv, &(struct grant){"read", &p->reads[i]});
        for (size_t i = 0; i < p->n_writes; i++) {
                breadth_and_tmp(l, rv, &(struct grant){"write", &p->writes[i]});
                self_rewrite(l, rv, &(struct grant){"write", &p->writes[i]});
        }
        for (size_t k = 0; p->shields && p->opted && k < p->shields->n_rules; k++)
                if (p->opted[k])
                        add(l,
                            "a read grant opens the shielded path \"%s\" (it holds %s), which "
                            "bento hides on every other run",
                            p->shields->rules[k].literal,
                            shield_holds_to_string(p->shields->rules[k].holds));
}

/* Split "host:port" / "[v6]:port" in place. */
static bool split_hostport(char *s, const char **host, const char **port)
{
        char *colon = strrchr(s, ':');

        if (!colon)
                return false;
        *colon = '\0';
        *port = colon + 1;
        if (s[0] == '[' && colon > s + 1 && colon[-1] == ']') {
                colon[-1] = '\0';
                s++;
        }
        *host = s;
        return true;
}

static void blocked_hosts(struct list *l, const struct manifest *m)
{
        for (size_t i = 0; i < m->provenance.n_blocked_hosts; i++) {
                cleanup_free char *s = strdup(m->provenance.blocked_hosts[i]);
                const char *host = NULL, *port = NULL;

                if (!s) {
                        l->r = -ENOMEM;
                        return;
                }
                if (split_hostport(s, &host, &port) && manifest_network_allows(m, host, port))
                        add(l,
                            "a network rule covers \"%s\", which the egress guard refused on "
                            "an earlier run (it resolved to a loopback, private, link-local or "
                            "metadata address)",
                            m->provenance.blocked_hosts[i]);
        }
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int approval_callouts(const struct approval_review *rv, char ***ret, size_t *ret_n)
{
        const struct manifest *m = rv->m;
        struct list l = {0};

        if (m->n_interpreter_args > 0)
                add(&l,
                    "the interpreter gets %zu option(s) before the entrypoint: read them as "
                    "code, they change what runs",
                    m->n_interpreter_args);
        if (m->exec == MANIFEST_EXEC_ALL)
                add(&l, "exec: all - the script may spawn any subprocess");
        blocked_hosts(&l, m);
        if (rv->name_callout)
                add(&l, "%s", rv->name_callout);
        if (rv->p)
                grants(&l, rv);
        else
                add(&l,
                    "the grants could not be resolved on this host (%s), so none of them was "
                    "checked here",
                    rv->unresolved ? rv->unresolved : "unknown reason");
        if (l.r < 0) {
                strv_free(l.v);
                return l.r;
        }
        if (l.n > 1)
                qsort(l.v, l.n, sizeof(*l.v), cmp_str);
        *ret = l.v;
        *ret_n = l.n;
        return 0;
}
