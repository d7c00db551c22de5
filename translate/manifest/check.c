/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The validation rules of docs/manifest.md, "SYNTAX RULES", over the model.  The
 * order is the one docs/manifest.md gives: the character screen of the policy values first and
 * alone (a value with a hidden character makes every other message about it
 * misleading), then every policy rule collected so the author fixes them in
 * one go, then the manifest-level pids rule, then the provenance screen.
 * Validation never touches the filesystem: its verdict depends only on the
 * text, so it is the same on every host.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "limits-parse.h"
#include "internal.h"
#include "netrule.h"
#include "screen.h"

struct checker {
        const struct manifest *m;
        const char *name;
        struct manifest_problems *p;
        int r; /* sticky -ENOMEM */
};

__attribute__((format(printf, 3, 4))) static void
add(struct checker *c, const struct manifest_place *at, const char *fmt, ...)
{
        cleanup_free char *msg = NULL;
        va_list ap;
        int r;

        if (c->r < 0)
                return;
        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0) {
                msg = NULL;
                c->r = -ENOMEM;
                return;
        }
        c->r = manifest_problem_add(c->p, c->name, at, "%s", msg);
}

static const struct manifest_place *place_in(const struct manifest_place *arr, size_t i)
{
        return arr ? &arr[i] : NULL;
}

static const char *str(const char *s)
{
        return s ? s : "";
}

/* ---- docs/manifest.md, "SYNTAX RULES" the character screen
 * ---------------------------------------- */

static bool screen_value(struct checker *c, const char *v, const struct manifest_place *at,
                         bool provenance)
{
        char shown[MANIFEST_SHOWN_MAX + 8], cp[16] = "";
        struct screen_hit hit;

        if (screen_check(str(v), strlen(str(v)), &hit))
                return false;
        if (hit.cls != SCREEN_INVALID_UTF8)
                snprintf(cp, sizeof(cp), " (U+%04X)", (unsigned) hit.cp);
        manifest_shown(v, shown);
        if (provenance)
                add(c, at, "manifest: provenance value \"%s\" contains %s%s", shown,
                    screen_class_name(hit.cls), cp);
        else
                add(c, at,
                    "policy: value \"%s\" contains %s%s, which is not allowed in a path or "
                    "argument",
                    shown, screen_class_name(hit.cls), cp);
        return true;
}

static bool screen_list(struct checker *c, char *const *v, size_t n,
                        const struct manifest_place *places, bool provenance)
{
        for (size_t i = 0; i < n; i++)
                if (screen_value(c, v[i], place_in(places, i), provenance))
                        return true;
        return false;
}

static bool nul_hit(struct checker *c, const struct manifest_nul_hit *hit, bool provenance)
{
        if (!hit || !hit->set)
                return false;
        if (provenance)
                add(c, &hit->at,
                    "manifest: provenance value \"%s\" contains a control character (U+0000)",
                    hit->shown);
        else
                add(c, &hit->at,
                    "policy: value \"%s\" contains a control character (U+0000), which is not "
                    "allowed in a path or argument",
                    hit->shown);
        return true;
}

static bool screen_policy(struct checker *c, const struct manifest_nul_hits *hits)
{
        const struct manifest *m = c->m;
        const struct manifest_places *pl = &m->places;

        return nul_hit(c, hits ? &hits->policy : NULL, false) ||
               screen_value(c, m->entrypoint, &pl->entrypoint, false) ||
               screen_value(c, m->interpreter, &pl->interpreter, false) ||
               screen_list(c, m->args, m->n_args, pl->args, false) ||
               screen_list(c, m->interpreter_args, m->n_interpreter_args, pl->interpreter_args,
                           false) ||
               screen_list(c, m->read, m->n_read, m->read_places, false) ||
               screen_list(c, m->write, m->n_write, m->write_places, false);
}

static bool screen_provenance(struct checker *c, const struct manifest_nul_hits *hits)
{
        const struct manifest_provenance *pv = &c->m->provenance;
        const struct manifest_places *pl = &c->m->places;

        return nul_hit(c, hits ? &hits->provenance : NULL, true) ||
               screen_value(c, pv->generated_by, &pl->generated_by, true) ||
               screen_value(c, pv->generated_at, &pl->generated_at, true) ||
               screen_value(c, pv->approves, &pl->approves, true) ||
               screen_list(c, pv->blocked_hosts, pv->n_blocked_hosts, pl->blocked_hosts, true);
}

/* ---- docs/manifest.md, "SYNTAX RULES" the policy rules
 * -------------------------------------------- */

/* "~user..." (anything but "~" or "~/..."): another account's home. */
static bool names_other_home(const char *s)
{
        return s && s[0] == '~' && s[1] != '\0' && s[1] != '/';
}

/* Whether "~" + rest, cleaned lexically, is the home directory itself (or,
 * through "..", a parent of it, which cleaning also folds onto "/"). */
static bool is_home_root(const char *s)
{
        size_t depth = 0;

        if (!s || s[0] != '~' || names_other_home(s))
                return false;
        for (const char *p = s + 1; *p;) {
                size_t n = strcspn(p, "/");

                if (n == 2 && p[0] == '.' && p[1] == '.')
                        depth = depth ? depth - 1 : 0;
                else if (n > 0 && !(n == 1 && p[0] == '.'))
                        depth++;
                p += n;
                if (*p == '/')
                        p++;
        }
        return depth == 0;
}

static void check_other_home(struct checker *c, const char *label, const char *v,
                             const struct manifest_place *at)
{
        char shown[MANIFEST_SHOWN_MAX + 8];

        if (!names_other_home(v))
                return;
        manifest_shown(v, shown);
        add(c, at,
            "policy: %s \"%s\" names another user's home directory; spell the path out, or "
            "write \"./%s\" for a file that really has that name",
            label, shown, shown);
}

static void check_grants(struct checker *c, const char *what, char *const *v, size_t n,
                         const struct manifest_place *places)
{
        for (size_t i = 0; i < n; i++)
                if (!*str(v[i]))
                        add(c, place_in(places, i),
                            "policy: %s[%zu] is empty; a grant must name a path (an unquoted ~ "
                            "is YAML's null: write \"~\" in quotes for your home directory)",
                            what, i);
}

static void check_homes(struct checker *c)
{
        const struct manifest *m = c->m;
        char label[32], shown[MANIFEST_SHOWN_MAX + 8];

        check_other_home(c, "entrypoint", m->entrypoint, &m->places.entrypoint);
        check_other_home(c, "interpreter", m->interpreter, &m->places.interpreter);
        for (size_t i = 0; i < m->n_read; i++) {
                snprintf(label, sizeof(label), "read[%zu]", i);
                check_other_home(c, label, m->read[i], place_in(m->read_places, i));
        }
        for (size_t i = 0; i < m->n_write; i++) {
                snprintf(label, sizeof(label), "write[%zu]", i);
                check_other_home(c, label, m->write[i], place_in(m->write_places, i));
        }
        for (size_t i = 0; i < m->n_write; i++)
                if (is_home_root(m->write[i]))
                        add(c, place_in(m->write_places, i),
                            "policy: write[%zu] \"%s\" grants your home directory or a parent "
                            "of it; grant the directory inside it that the script writes to",
                            i, manifest_shown(m->write[i], shown));
}

static bool env_name_ok(const char *s)
{
        if (!s || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
                return false;
        for (s++; *s; s++)
                if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
                      (*s >= '0' && *s <= '9') || *s == '_'))
                        return false;
        return true;
}

static void check_env_exec(struct checker *c)
{
        const struct manifest *m = c->m;
        const char *e = m->exec_as_written;
        char shown[MANIFEST_SHOWN_MAX + 8];

        for (size_t i = 0; i < m->n_env; i++)
                if (!env_name_ok(m->env[i]))
                        add(c, place_in(m->places.env, i),
                            "policy: invalid env name \"%s\": want a name matching "
                            "^[A-Za-z_][A-Za-z0-9_]*$ (env: lists the names of variables to "
                            "pass through, not their values)",
                            manifest_shown(m->env[i], shown));
        if (e && *e && strcmp(e, "none") != 0 && strcmp(e, "none-strict") != 0 &&
            strcmp(e, "all") != 0)
                add(c, &m->places.exec,
                    "policy: invalid exec mode \"%s\": want one of none, none-strict, all",
                    manifest_shown(e, shown));
}

static void check_network(struct checker *c)
{
        const struct manifest *m = c->m;
        char why[512];

        for (size_t i = 0; i < m->n_network; i++) {
                if (netrule_check_host(m->network[i].host, why, sizeof(why)) < 0)
                        add(c, place_in(m->places.network_host, i), "policy: network rule %zu: %s",
                            i, why);
                else if (netrule_check_port(m->network[i].port, why, sizeof(why)) < 0)
                        add(c, place_in(m->places.network_port, i), "policy: network rule %zu: %s",
                            i, why);
        }
}

/* Only the first limits problem is reported (docs/manifest.md, "SYNTAX RULES"). */
static void check_limits(struct checker *c)
{
        const struct manifest_limits *l = &c->m->limits;
        const struct manifest_places *pl = &c->m->places;
        char why[256];
        uint64_t v;

        if (*str(l->memory)) {
                if (limits_parse_size(l->memory, &v, why, sizeof(why)) < 0) {
                        add(c, &pl->memory, "policy: limits.memory: %s", why);
                        return;
                }
                if (v == 0) {
                        char shown[MANIFEST_SHOWN_MAX + 8];

                        add(c, &pl->memory,
                            "policy: limits.memory \"%s\" is zero; leave memory out for no cap",
                            manifest_shown(l->memory, shown));
                        return;
                }
        }
        if (*str(l->cpu) && limits_parse_percent(l->cpu, &v, why, sizeof(why)) < 0) {
                add(c, &pl->cpu, "policy: limits.cpu %s", why);
                return;
        }
        if (l->has_pids && l->pids < 0) {
                add(c, &pl->pids, "policy: limits.pids must not be negative (it is %lld)",
                    (long long) l->pids);
                return;
        }
        if (*str(l->tmp)) {
                if (limits_parse_size(l->tmp, &v, why, sizeof(why)) < 0) {
                        add(c, &pl->tmp, "policy: limits.tmp: %s", why);
                } else if (v < 4096) {
                        char shown[MANIFEST_SHOWN_MAX + 8];

                        add(c, &pl->tmp,
                            "policy: limits.tmp \"%s\" is less than one page (4096 bytes); "
                            "leave tmp out for the default of 1G",
                            manifest_shown(l->tmp, shown));
                }
        }
}

static void check_policy(struct checker *c)
{
        const struct manifest *m = c->m;

        if (!*str(m->entrypoint))
                add(c, m->places.top.line ? &m->places.top : NULL,
                    "policy: entrypoint is required");
        if (m->n_interpreter_args > 0 && !*str(m->interpreter))
                add(c, place_in(m->places.interpreter_args, 0),
                    "policy: interpreter_args is set but interpreter is not; arguments for the "
                    "script itself belong in args");
        check_grants(c, "read", m->read, m->n_read, m->read_places);
        check_grants(c, "write", m->write, m->n_write, m->write_places);
        check_homes(c);
        check_env_exec(c);
        check_network(c);
        check_limits(c);
}

int manifest_check_all(const struct manifest *m, const char *name,
                       const struct manifest_nul_hits *hits, struct manifest_problems *p)
{
        struct checker c = {m, name, p, 0};
        size_t before = p->n;

        if (screen_policy(&c, hits))
                return c.r;
        check_policy(&c);
        if (c.r < 0 || p->n > before)
                return c.r;
        if (m->limits.has_pids && m->limits.pids == 0) {
                add(&c, &m->places.pids,
                    "policy: limits.pids is zero, which would forbid every new process; leave "
                    "pids out for no cap");
                return c.r;
        }
        (void) screen_provenance(&c, hits);
        return c.r;
}
