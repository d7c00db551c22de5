/* SPDX-License-Identifier: Apache-2.0 */
/*
 * validate's report model (validate.h): which refusal belongs beside which
 * grant, the exact-path opt-ins, grants far broader than a script needs,
 * blocked-host notes, the docs/approve.md, "What approve does, in order" callouts and the paths
 * that pin a manifest to this host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "review.h"
#include "cleanup.h"
#include "hostname.h"
#include "manifest/netrule.h"
#include "manifest/path.h"
#include "shields/shields.h"
#include "text.h"
#include "validate.h"

const char *validate_holds_noun(int holds)
{
        switch (holds) {
        case SHIELD_HOLDS_CREDENTIALS:
                return "credential store";
        case SHIELD_HOLDS_PRIVATE_DATA:
                return "private data store";
        case SHIELD_HOLDS_HISTORY:
                return "history store";
        case SHIELD_HOLDS_PERSISTENCE:
                return "host-startup path";
        case SHIELD_HOLDS_SERVICES:
                return "service socket path";
        default:
                return "always-shielded path";
        }
}

bool validate_broad_path(const struct policy *p, const char *path)
{
        const struct shield_set *s = p ? p->shields : NULL;

        if (!path || path[0] != '/')
                return false;
        if (strcmp(path, "/") == 0 || !strchr(path + 1, '/'))
                return true;
        if (p && p->home) {
                cleanup_free char *home = path_clean(p->home);

                if (home && path_within(path, home))
                        return true;
        }
        for (size_t i = 0; s && i < s->n_anchors; i++)
                if (path_within(path, s->anchors[i]) || path_within(path, s->resolved_anchors[i]))
                        return true;
        return false;
}

bool validate_fileish(const struct policy_path *w)
{
        const char *path = w->real ? w->real : w->written;
        const char *base = strrchr(path, '/');
        const char *dot;

        base = base ? base + 1 : path;
        dot = strrchr(base, '.');
        return !w->exists && dot && dot != base;
}

static bool grant_broad(const struct policy *p, const struct policy_path *g)
{
        cleanup_free char *clean = g->expanded ? path_clean(g->expanded) : NULL;

        return validate_broad_path(p, clean) || validate_broad_path(p, g->real);
}

static bool is_write_check(enum shield_check c)
{
        switch (c) {
        case SHIELD_CHECK_WRITE_ROOT:
        case SHIELD_CHECK_WRITE_INSIDE_DENY_ALL:
        case SHIELD_CHECK_WORKSPACE_REDIRECT:
        case SHIELD_CHECK_WRITE_DENY_WRITE:
        case SHIELD_CHECK_WRITE_CONTAINS:
        case SHIELD_CHECK_WRITE_NOT_DIR:
        case SHIELD_CHECK_CARVE:
        case SHIELD_CHECK_JOURNAL:
                return true;
        default:
                return false;
        }
}

static bool names(const struct policy_path *pp, const char *name)
{
        return strcmp(pp->written, name) == 0 || (pp->expanded && strcmp(pp->expanded, name) == 0);
}

/* The grant index named name (as written or resolved as docs/manifest.md, "PATH RESOLUTION" says:
 * refusals use either) and not yet given a refusal, else the first one so named; n when none. */
static size_t find_grant(const struct policy_path *v, size_t n, const bool *taken, const char *name)
{
        size_t first = n;

        for (size_t i = 0; i < n; i++) {
                if (!names(&v[i], name))
                        continue;
                if (!taken[i])
                        return i;
                if (first == n)
                        first = i;
        }
        return first;
}

/* A refusal names its grant as written; put it beside that grant. */
static int place_refusals(struct validate_report *r, struct bento_err *err)
{
        const struct policy *p = r->p;
        cleanup_free bool *read_taken = calloc(p->n_reads + 1, sizeof(bool));
        cleanup_free bool *write_taken = calloc(p->n_writes + 1, sizeof(bool));

        r->refusal_places = calloc(p->n_refusals + 1, sizeof(*r->refusal_places));
        if (!r->refusal_places || !read_taken || !write_taken)
                return bento_err_set(err, ENOMEM, "validate");
        for (size_t k = 0; k < p->n_refusals; k++) {
                const struct shield_refusal *ref = &p->refusals[k];
                struct validate_place *pl = &r->refusal_places[k];
                size_t i;

                if (ref->check == SHIELD_CHECK_EXPOSES_TARGET) {
                        pl->field = names(&p->entrypoint, ref->grant) ? VALIDATE_FIELD_ENTRYPOINT
                                                                      : VALIDATE_FIELD_INTERPRETER;
                        continue;
                }
                i = is_write_check(ref->check)
                        ? p->n_reads
                        : find_grant(p->reads, p->n_reads, read_taken, ref->grant);
                if (i < p->n_reads) {
                        *pl = (struct validate_place){VALIDATE_FIELD_READ, i};
                        read_taken[i] = true;
                        continue;
                }
                i = find_grant(p->writes, p->n_writes, write_taken, ref->grant);
                /* A refusal naming no grant (it cannot happen with today's
                 * checks) still shows, under the last write grant. */
                if (i == p->n_writes)
                        i = p->n_writes ? p->n_writes - 1 : 0;
                *pl = (struct validate_place){VALIDATE_FIELD_WRITE, i};
                if (i < p->n_writes)
                        write_taken[i] = true;
        }
        return 0;
}

static int mark_grants(struct validate_report *r, struct bento_err *err)
{
        const struct policy *p = r->p;

        r->read_opt_in = calloc(p->n_reads + 1, sizeof(*r->read_opt_in));
        r->read_broad = calloc(p->n_reads + 1, sizeof(bool));
        r->write_broad = calloc(p->n_writes + 1, sizeof(bool));
        if (!r->read_opt_in || !r->read_broad || !r->write_broad)
                return bento_err_set(err, ENOMEM, "validate");
        for (size_t i = 0; i < p->n_reads; i++) {
                r->read_broad[i] = grant_broad(p, &p->reads[i]);
                for (size_t j = 0; p->shields && p->opted && j < p->shields->n_rules; j++) {
                        const struct shield_rule *rule = &p->shields->rules[j];

                        if (p->opted[j] && rule->origin != SHIELD_ORIGIN_WORKSPACE &&
                            strcmp(rule->literal, p->reads[i].expanded) == 0) {
                                r->read_opt_in[i] = rule;
                                r->n_opted++;
                                break;
                        }
                }
        }
        for (size_t i = 0; i < p->n_writes; i++)
                r->write_broad[i] = grant_broad(p, &p->writes[i]);
        return 0;
}

/* "host:port" as net.JoinHostPort writes it (IPv6 bracketed). */
bool validate_split_host_port(const char *entry, char **host, char **port)
{
        const char *colon;

        if (entry[0] == '[') {
                const char *close = strstr(entry, "]:");

                if (!close)
                        return false;
                *host = strndup(entry + 1, (size_t) (close - entry - 1));
                colon = close + 1;
        } else {
                colon = strrchr(entry, ':');
                if (!colon || memchr(entry, ':', (size_t) (colon - entry)))
                        return false;
                *host = strndup(entry, (size_t) (colon - entry));
        }
        *port = strdup(colon + 1);
        if (!*host || !*port || !**host || !**port ||
            strspn(*port, "0123456789") != strlen(*port)) {
                free(*host);
                free(*port);
                *host = *port = NULL;
                return false;
        }
        return true;
}

static int blocked_hosts(struct validate_report *r, struct bento_err *err)
{
        const struct manifest *m = r->m;
        size_t n = m->provenance.n_blocked_hosts;

        r->blocked = calloc(n * (m->n_network + 1) + 1, sizeof(*r->blocked));
        r->blocked_unreadable = calloc(n + 1, sizeof(char *));
        if (!r->blocked || !r->blocked_unreadable)
                return bento_err_set(err, ENOMEM, "validate");
        for (size_t i = 0; i < n; i++) {
                const char *e = m->provenance.blocked_hosts[i];
                cleanup_free char *host = NULL, *port = NULL;

                if (!validate_split_host_port(e, &host, &port)) {
                        r->blocked_unreadable[r->n_blocked_unreadable++] = e;
                        continue;
                }
                for (size_t k = 0; k < m->n_network; k++) {
                        struct validate_blocked *b = &r->blocked[r->n_blocked];

                        if (!netrule_host_matches(m->network[k].host, host) ||
                            !bento_port_matches(m->network[k].port, port))
                                continue;
                        *b = (struct validate_blocked){k, e, strdup(host), strdup(port)};
                        r->n_blocked++;
                        if (!b->host || !b->port)
                                return bento_err_set(err, ENOMEM, "validate");
                }
        }
        return 0;
}

char *validate_pin_text(const struct validate_pin *pin)
{
        char *s;

        return asprintf(&s, "%s \"%s\"", pin->field, pin->path) < 0 ? NULL : s;
}

static void add_pin(struct validate_report *r, const char *field, const char *path)
{
        r->pins[r->n_pins++] = (struct validate_pin){field, path};
}

/* docs/manifest.md, "PATH RESOLUTION": absolute or `~` paths pin the manifest to this host's
 * layout. */
static int find_pins(struct validate_report *r, struct bento_err *err)
{
        const struct manifest *m = r->m;

        r->pins = calloc(m->n_read + m->n_write + 3, sizeof(*r->pins));
        if (!r->pins)
                return bento_err_set(err, ENOMEM, "validate");
        if (m->entrypoint[0] == '/' || m->entrypoint[0] == '~')
                add_pin(r, "entrypoint", m->entrypoint);
        if (m->interpreter[0] == '~')
                add_pin(r, "interpreter", m->interpreter);
        for (size_t i = 0; i < m->n_read; i++)
                if (m->read[i][0] == '/' || m->read[i][0] == '~')
                        add_pin(r, "read grant", m->read[i]);
        for (size_t i = 0; i < m->n_write; i++)
                if (m->write[i][0] == '/' || m->write[i][0] == '~')
                        add_pin(r, "write grant", m->write[i]);
        return 0;
}

/* docs/manifest.md, "CREDENTIAL SHIELDS"/docs/cli/bento-run.md, "NOTES": a runtime dir no shield
 * can follow (relative, or at or above a home anchor). */
static const char *unshieldable_runtime_dir(const struct policy *p)
{
        const char *v = getenv("XDG_RUNTIME_DIR");

        if (!v || !*v)
                return NULL;
        if (v[0] != '/')
                return v;
        for (size_t i = 0; p && p->shields && i < p->shields->n_unshieldable; i++)
                if (strcmp(p->shields->unshieldable[i].variable, "XDG_RUNTIME_DIR") == 0)
                        return v;
        return NULL;
}

/* The callouts validate prints beside a grant already (breadth, shield
 * opt-ins, blocked hosts) are left out of "Worth a second look".  They
 * are recognised by review.c's wording, which this must follow. */
static bool noted_already(const char *callout)
{
        return strstr(callout, "is a whole home or top-level directory") ||
               strncmp(callout, "a read grant opens the shielded path", 36) == 0 ||
               strncmp(callout, "a network rule covers", 21) == 0;
}

static int callouts(struct validate_report *r, struct bento_err *err)
{
        cleanup_free char *real = r->m->path[0] ? realpath(r->m->path, NULL) : NULL;
        const char *slash = strrchr(r->m->path, '/');
        cleanup_free char *named =
            r->p ? path_join(r->p->base, slash ? slash + 1 : r->m->path) : NULL;
        struct approval_review rv = {.m = r->m,
                                     .p = r->p,
                                     .unresolved = r->resolve_error,
                                     .manifest_real = real,
                                     .manifest_named = named};
        size_t keep = 0;

        if (approval_callouts(&rv, &r->callouts, &r->n_callouts) < 0)
                return bento_err_set(err, ENOMEM, "callouts");
        for (size_t i = 0; i < r->n_callouts; i++) {
                if (noted_already(r->callouts[i]))
                        free(r->callouts[i]);
                else
                        r->callouts[keep++] = r->callouts[i];
        }
        r->n_callouts = keep;
        if (r->callouts)
                r->callouts[keep] = NULL;
        return 0;
}

int validate_report_build(const struct manifest *m, const struct policy *p,
                          const char *resolve_error, const struct approval_status *approval,
                          struct validate_report *ret, struct bento_err *err)
{
        struct validate_report r = {.m = m, .p = p, .resolve_error = resolve_error};
        int rc = 0;

        if (approval)
                r.approval = *approval;
        if (p)
                rc = place_refusals(&r, err);
        if (rc >= 0 && p)
                rc = mark_grants(&r, err);
        if (rc >= 0)
                rc = blocked_hosts(&r, err);
        if (rc >= 0)
                rc = callouts(&r, err);
        if (rc >= 0)
                rc = find_pins(&r, err);
        if (rc >= 0 && p && p->shields)
                rc = alias_scan(p, ALIAS_SCAN_BUDGET, &r.aliases, err);
        if (rc < 0) {
                validate_report_done(&r);
                return rc;
        }
        r.runtime_dir_unshieldable = unshieldable_runtime_dir(p);
        *ret = r;
        return 0;
}

void validate_report_done(struct validate_report *r)
{
        free(r->refusal_places);
        free(r->read_opt_in);
        free(r->read_broad);
        free(r->write_broad);
        for (size_t i = 0; r->blocked && i < r->n_blocked; i++) {
                free(r->blocked[i].host);
                free(r->blocked[i].port);
        }
        free(r->blocked);
        free(r->blocked_unreadable);
        strv_free(r->callouts);
        free(r->pins);
        alias_scan_done(&r->aliases);
        *r = (struct validate_report){0};
}

static int append(char **buf, const char *piece)
{
        char *s = NULL;

        if (!piece)
                return -ENOMEM;
        if (asprintf(&s, "%s%s%s", *buf ? *buf : "", *buf ? "; " : "", piece) < 0)
                return -ENOMEM;
        free(*buf);
        *buf = s;
        return 0;
}

char *validate_host_failures(const struct validate_report *r, bool *ret_oom)
{
        const struct policy *p = r->p;
        cleanup_free char *anchor = NULL;
        char *out = NULL;
        int rc = 0;

        *ret_oom = false;
        if (!p) {
                rc = append(&out, text_printf("this host could not resolve the manifest's paths "
                                              "(%s)",
                                              r->resolve_error ? r->resolve_error : "unknown"));
                if (rc < 0)
                        goto oom;
                return out;
        }
        for (size_t i = 0; rc >= 0 && i < p->n_problems; i++)
                rc = append(&out, p->problems[i]);
        if (rc >= 0 && !p->shields) {
                anchor = text_printf("the credential shields cannot be anchored on this host: %s",
                                     p->shields_error ? p->shields_error : "no home directory");
                rc = anchor ? append(&out, anchor) : -ENOMEM;
        }
        for (size_t i = 0; rc >= 0 && i < p->n_refusals; i++)
                rc = append(&out, p->refusals[i].message);
        if (rc >= 0)
                return out;
oom:
        free(out);
        *ret_oom = true;
        return NULL;
}
