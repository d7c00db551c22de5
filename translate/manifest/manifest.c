/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The manifest's public face (manifest.h): lifetime of the model, the
 * problem list and its rendering, and the load/parse/validate entry points
 * that chain the input checks of docs/manifest.md, "SYNTAX RULES", the event loader
 * (yaml.c) and the rules (check.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "fileio.h"
#include "hostname.h"
#include "internal.h"
#include "manifest.h"
#include "netrule.h"
#include "limits-parse.h"
#include "screen.h"
#include "utf8.h"

static void free_strs(char **v, size_t n)
{
        for (size_t i = 0; v && i < n; i++)
                free(v[i]);
        free(v);
}

static void free_places(struct manifest_places *pl)
{
        free(pl->interpreter_args);
        free(pl->args);
        free(pl->env);
        free(pl->network_host);
        free(pl->network_port);
        free(pl->blocked_hosts);
}

struct manifest *manifest_free(struct manifest *m)
{
        if (!m)
                return NULL;
        free(m->path);
        free(m->entrypoint);
        free(m->interpreter);
        free_strs(m->interpreter_args, m->n_interpreter_args);
        free_strs(m->args, m->n_args);
        free_strs(m->env, m->n_env);
        free_strs(m->read, m->n_read);
        free(m->read_places);
        free_strs(m->write, m->n_write);
        free(m->write_places);
        for (size_t i = 0; m->network && i < m->n_network; i++) {
                free(m->network[i].host);
                free(m->network[i].port);
        }
        free(m->network);
        free(m->limits.memory);
        free(m->limits.cpu);
        free(m->limits.tmp);
        free(m->provenance.generated_by);
        free(m->provenance.generated_at);
        free(m->provenance.approves);
        free_strs(m->provenance.blocked_hosts, m->provenance.n_blocked_hosts);
        free(m->exec_as_written);
        free_places(&m->places);
        free(m);
        return NULL;
}

void manifest_problems_done(struct manifest_problems *p)
{
        if (!p)
                return;
        free_strs(p->items, p->n);
        p->items = NULL;
        p->n = 0;
}

const char *manifest_shown(const char *s, char buf[static MANIFEST_SHOWN_MAX + 8])
{
        return screen_sanitize(s ? s : "", s ? strlen(s) : 0, MANIFEST_SHOWN_MAX, buf,
                               MANIFEST_SHOWN_MAX + 8);
}

int manifest_problem_add(struct manifest_problems *p, const char *name,
                         const struct manifest_place *at, const char *fmt, ...)
{
        cleanup_free char *msg = NULL, *line = NULL, *clean = NULL;
        char **items;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return msg = NULL, -ENOMEM;
        if (!name || !*name)
                name = "(manifest)";
        if (at && at->line > 0)
                r = asprintf(&line, "%s:%u:%u: %s", name, at->line, at->col, msg);
        else
                r = asprintf(&line, "%s: %s", name, msg);
        if (r < 0)
                return line = NULL, -ENOMEM;
        /* Sanitising the whole line covers the name and every quoted value;
         * bento's own words never contain what is dropped. */
        clean = malloc(3 * (size_t) r + 8);
        if (!clean)
                return -ENOMEM;
        screen_sanitize(line, (size_t) r, 3 * (size_t) r + 4, clean, 3 * (size_t) r + 8);
        items = realloc(p->items, (p->n + 1) * sizeof(*items));
        if (!items)
                return -ENOMEM;
        p->items = items;
        p->items[p->n++] = TAKE_PTR(clean);
        return 0;
}

char *manifest_problems_render(const struct manifest_problems *p)
{
        char *out = NULL;
        size_t size = 0;
        FILE *f;

        if (!p || p->n == 0)
                return strdup("");
        if (p->n == 1)
                return strdup(p->items[0]);
        f = open_memstream(&out, &size);
        if (!f)
                return NULL;
        fprintf(f, "the manifest has %zu problems:", p->n);
        for (size_t i = 0; i < p->n; i++)
                fprintf(f, "\n  %s", p->items[i]);
        if (fclose(f) != 0) {
                free(out);
                return NULL;
        }
        return out;
}

/* err gets a one-line form: bento_err cannot hold newlines. */
static int summarize(const struct manifest_problems *p, struct bento_err *err)
{
        char buf[BENTO_ERR_MSG_MAX];
        size_t n = 0;

        if (p->n == 1)
                return bento_err_setx(err, EINVAL, "%s", p->items[0]);
        n = (size_t) snprintf(buf, sizeof(buf), "the manifest has %zu problems:", p->n);
        for (size_t i = 0; i < p->n && n < sizeof(buf); i++)
                n +=
                    (size_t) snprintf(buf + n, sizeof(buf) - n, "%s %s", i ? ";" : "", p->items[i]);
        return bento_err_setx(err, EINVAL, "%s", buf);
}

const char *manifest_exec_to_string(enum manifest_exec e)
{
        switch (e) {
        case MANIFEST_EXEC_NONE:
                return "none";
        case MANIFEST_EXEC_NONE_STRICT:
                return "none-strict";
        case MANIFEST_EXEC_ALL:
                return "all";
        }
        /* Never let a corrupt value read as one of the real modes. */
        return "invalid";
}

bool manifest_network_allows(const struct manifest *m, const char *host, const char *port)
{
        if (!m || !host || !port)
                return false;
        for (size_t i = 0; i < m->n_network; i++)
                if (netrule_host_matches(m->network[i].host, host) &&
                    bento_port_matches(m->network[i].port, port))
                        return true;
        return false;
}

/* The two whole-input rules of docs/manifest.md, "SYNTAX RULES" that come before any YAML is read.
 */
static int check_input(const char *data, size_t len, const char *name, struct manifest_problems *p)
{
        if (len > MANIFEST_MAX_BYTES)
                return manifest_problem_add(p, name, NULL,
                                            "manifest: input is larger than %u bytes, which is "
                                            "not a manifest",
                                            MANIFEST_MAX_BYTES)
                           ?: -EINVAL;
        if (!bento_utf8_valid(data, len))
                return manifest_problem_add(p, name, NULL,
                                            "manifest: input is not valid UTF-8 text, so it is "
                                            "not a manifest")
                           ?: -EINVAL;
        return 0;
}

/* Fill the parsed forms the model carries next to the text.  Only called
 * once validation passed, so every value here is known to parse. */
static void decode_values(struct manifest *m)
{
        char why[8];

        if (strcmp(m->exec_as_written, "none-strict") == 0)
                m->exec = MANIFEST_EXEC_NONE_STRICT;
        else if (strcmp(m->exec_as_written, "all") == 0)
                m->exec = MANIFEST_EXEC_ALL;
        else
                m->exec = MANIFEST_EXEC_NONE;
        if (*m->limits.memory)
                (void) limits_parse_size(m->limits.memory, &m->limits.memory_bytes, why,
                                         sizeof(why));
        if (*m->limits.cpu)
                (void) limits_parse_percent(m->limits.cpu, &m->limits.cpu_hundredths, why,
                                            sizeof(why));
        if (*m->limits.tmp)
                (void) limits_parse_size(m->limits.tmp, &m->limits.tmp_bytes, why, sizeof(why));
}

static int fail(struct manifest_problems *p, int r, struct bento_err *err)
{
        if (r == -ENOMEM)
                return bento_err_set(err, ENOMEM, "manifest");
        return summarize(p, err);
}

int manifest_parse(const char *data, size_t len, const char *name, struct manifest **ret,
                   struct manifest_problems *problems, struct bento_err *err)
{
        cleanup_manifest struct manifest *m = NULL;
        struct manifest_problems p = {0};
        struct manifest_nul_hits hits = {0};
        int r;

        if (problems)
                *problems = (struct manifest_problems){0};
        if (!data)
                return bento_err_setx(err, EINVAL, "manifest: nil reader");
        m = calloc(1, sizeof(*m));
        if (!m || !(m->path = strdup(name ? name : "")))
                return bento_err_set(err, ENOMEM, "manifest");
        r = check_input(data, len, name, &p);
        if (r == 0)
                r = manifest_yaml_load(data, len, name, m, &p, &hits);
        if (r == 0)
                r = manifest_check_all(m, name, &hits, &p);
        if (r == 0 && p.n > 0)
                r = -EINVAL;
        /* Not "r < 0": the analyzer cannot see that manifest_problem_add()
         * (variadic, so not followed) never returns more than 0. */
        if (r != 0) {
                r = fail(&p, r, err);
                if (problems)
                        *problems = p;
                else
                        manifest_problems_done(&p);
                return r;
        }
        decode_values(m);
        *ret = TAKE_PTR(m);
        return 0;
}

int manifest_validate(const struct manifest *m, const char *name,
                      struct manifest_problems *problems, struct bento_err *err)
{
        struct manifest_problems p = {0};
        int r;

        if (!m)
                return bento_err_setx(err, EINVAL, "manifest: no manifest to validate");
        r = manifest_check_all(m, name, NULL, &p);
        if (r == 0 && p.n == 0)
                return 0;
        r = fail(&p, r < 0 ? r : -EINVAL, err);
        if (problems)
                *problems = p;
        else
                manifest_problems_done(&p);
        return r;
}

int manifest_load(const char *path, struct manifest **ret, struct manifest_problems *problems,
                  struct bento_err *err)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        int r;

        r = bento_read_file(path, MANIFEST_MAX_BYTES, &data, &len, err);
        if (r == -EFBIG) {
                struct manifest_problems p = {0};

                r = check_input("", MANIFEST_MAX_BYTES + 1, path, &p);
                r = fail(&p, r, err);
                if (problems)
                        *problems = p;
                else
                        manifest_problems_done(&p);
                return r;
        }
        if (r < 0)
                return bento_err_prefix(err, "manifest");
        return manifest_parse(data, len, path, ret, problems, err);
}
