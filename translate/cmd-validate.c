/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento validate (spec/bento.md §3.3), first stage: load and validate the
 * manifest and show what it grants, as written.  The host-dependent half of
 * the verb (approval state, path resolution, the grants this host would
 * refuse, runnability) does not exist yet, and the output says so instead
 * of printing a verdict it did not reach; --strict, which gates on exactly
 * those checks, therefore refuses.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "commands.h"
#include "jsonw.h"
#include "manifest.h"

#define NOT_REPORTED                                                                               \
        "approval state, path resolution on this host and the grants this host would refuse "      \
        "are not checked by this build yet"

struct validate_opts {
        const char *path;
        bool json, strict;
};

/* --json, or --json=<bool> with strconv.ParseBool's spellings (§3.1). */
static int json_flag(const char *arg, bool *ret)
{
        static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
        static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};

        for (size_t i = 0; i < 6; i++) {
                if (strcmp(arg, yes[i]) == 0)
                        return *ret = true, 0;
                if (strcmp(arg, no[i]) == 0)
                        return *ret = false, 0;
        }
        return -1;
}

static int parse_args(int argc, char **argv, struct validate_opts *o)
{
        int npos = 0;
        bool dashdash = false;

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (!dashdash && strcmp(a, "--") == 0)
                        dashdash = true;
                else if (!dashdash && strcmp(a, "--json") == 0)
                        o->json = true;
                else if (!dashdash && strncmp(a, "--json=", 7) == 0) {
                        if (json_flag(a + 7, &o->json) < 0)
                                return bento_usage_error("validate", "invalid value for --json: %s",
                                                         a + 7);
                } else if (!dashdash && strcmp(a, "--strict") == 0)
                        o->strict = true;
                else if (!dashdash && a[0] == '-' && a[1] != '\0')
                        return bento_usage_error("validate", "unknown flag: %s", a);
                else if (npos++ == 0)
                        o->path = a;
        }
        if (npos == 0)
                return bento_usage_error("validate", "validate needs a manifest path");
        if (npos > 1)
                return bento_usage_error("validate",
                                         "validate takes a manifest path and nothing else, but "
                                         "got %d arguments",
                                         npos);
        return 0;
}

static void print_list(const char *label, char *const *v, size_t n, bool quoted)
{
        printf("%-13s ", label);
        if (n == 0) {
                puts("(none)");
                return;
        }
        fputs(quoted ? "" : "[", stdout);
        for (size_t i = 0; i < n; i++)
                printf(quoted ? "%s\"%s\"" : "%s%s", i ? " " : "", v[i]);
        puts(quoted ? "" : "]");
}

/* host:port the way the proxy's CONNECT line spells it: IPv6 bracketed. */
static void print_rule(const struct manifest_net_rule *r, bool first)
{
        bool v6 = strchr(r->host, ':') != NULL;

        printf("%s%s%s%s:%s", first ? "" : " ", v6 ? "[" : "", r->host, v6 ? "]" : "", r->port);
}

static const char *exec_words(enum manifest_exec e)
{
        switch (e) {
        case MANIFEST_EXEC_ALL:
                return "allowed (the script may spawn subprocesses)";
        case MANIFEST_EXEC_NONE_STRICT:
                return "blocked, strictly (no subprocesses; fork/vfork/clone blocked, threads "
                       "allowed)";
        default:
                return "blocked on the standard exec path (execve)";
        }
}

static void print_limits(const struct manifest_limits *l)
{
        const char *sep = "";

        if (!*l->memory && !*l->cpu && !l->has_pids)
                return;
        printf("%-14s", "limits:");
        if (*l->memory)
                printf("memory %s", l->memory), sep = ", ";
        if (*l->cpu)
                printf("%scpu %s", sep, l->cpu), sep = ", ";
        if (l->has_pids)
                printf("%spids %lld", sep, (long long) l->pids);
        putchar('\n');
}

static void print_human(const struct manifest *m)
{
        printf("%-14s%s - ok\n", "manifest:", m->path);
        printf("%-14s%s\n", "entrypoint:", m->entrypoint);
        if (*m->interpreter)
                printf("%-14s%s\n", "interpreter:", m->interpreter);
        else
                printf("%-14s%s\n", "interpreter:", "(none - the entrypoint is a compiled binary)");
        if (m->n_interpreter_args > 0)
                print_list("  args passed to the interpreter, before the entrypoint:",
                           m->interpreter_args, m->n_interpreter_args, true);
        if (m->n_args > 0)
                print_list("args:", m->args, m->n_args, true);
        print_list("read:", m->read, m->n_read, false);
        print_list("write:", m->write, m->n_write, false);
        print_list("env:", m->env, m->n_env, false);
        printf("%-14s", "network:");
        if (m->n_network == 0)
                fputs("denied (no egress)", stdout);
        else
                putchar('[');
        for (size_t i = 0; i < m->n_network; i++)
                print_rule(&m->network[i], i == 0);
        puts(m->n_network ? "]" : "");
        printf("%-14s%s\n", "exec:", exec_words(m->exec));
        print_limits(&m->limits);
        printf("\nEverything not listed above is denied.\n");
        printf("not reported: %s.\n", NOT_REPORTED);
}

static void json_rules(struct bento_jsonw *w, const struct manifest *m)
{
        bento_jsonw_key(w, "network");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < m->n_network; i++) {
                const struct manifest_net_rule *r = &m->network[i];
                cleanup_free char *s = NULL;
                bool v6 = strchr(r->host, ':') != NULL;

                if (asprintf(&s, "%s%s%s:%s", v6 ? "[" : "", r->host, v6 ? "]" : "", r->port) < 0)
                        s = NULL;
                bento_jsonw_string(w, s); /* NULL records the failure */
        }
        bento_jsonw_close_array(w);
}

static void json_limits(struct bento_jsonw *w, const struct manifest_limits *l)
{
        if (!*l->memory && !*l->cpu && !l->has_pids)
                return;
        bento_jsonw_key(w, "limits");
        bento_jsonw_open_object(w);
        if (*l->memory)
                bento_jsonw_kstring(w, "memory", l->memory);
        if (*l->cpu)
                bento_jsonw_kstring(w, "cpu", l->cpu);
        if (l->has_pids)
                bento_jsonw_kint(w, "pids", l->pids);
        bento_jsonw_close_object(w);
}

static void json_list(struct bento_jsonw *w, const char *key, char *const *v, size_t n)
{
        if (n > 0)
                bento_jsonw_kstrv(w, key, v, n);
}

static int print_json(const struct manifest *m, struct bento_err *err)
{
        static char *not_reported[] = {"approval", "path resolution", "host refusals"};
        cleanup_jsonw struct bento_jsonw w = {0};
        cleanup_free char *buf = NULL;
        size_t len = 0;

        if (bento_jsonw_init(&w, true, err) < 0)
                return -err->code;
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "entrypoint", m->entrypoint);
        if (*m->interpreter)
                bento_jsonw_kstring(&w, "interpreter", m->interpreter);
        json_list(&w, "interpreter_args", m->interpreter_args, m->n_interpreter_args);
        json_list(&w, "args", m->args, m->n_args);
        json_list(&w, "env", m->env, m->n_env);
        json_list(&w, "read", m->read, m->n_read);
        json_list(&w, "write", m->write, m->n_write);
        json_rules(&w, m);
        bento_jsonw_kstring(&w, "exec", manifest_exec_to_string(m->exec));
        json_limits(&w, &m->limits);
        /* The host-dependent fields of §3.3 are left out, not guessed. */
        bento_jsonw_kstrv(&w, "not_reported", not_reported, 3);
        bento_jsonw_close_object(&w);
        if (bento_jsonw_finish(&w, &buf, &len) < 0)
                return -err->code;
        fwrite(buf, 1, len, stdout);
        return 0;
}

int cmd_validate(int argc, char **argv)
{
        struct validate_opts o = {0};
        cleanup_manifest struct manifest *m = NULL;
        struct bento_err err = {0};
        int r;

        r = parse_args(argc, argv, &o);
        if (r != 0)
                return r;
        r = cli_load_manifest(o.path, &m);
        if (r != 0)
                return r;
        if (o.json ? print_json(m, &err) < 0 : (print_human(m), 0)) {
                fprintf(stderr, "bento: %s\n", err.msg);
                return BENTO_EXIT_REFUSED;
        }
        if (fflush(stdout) != 0) {
                fprintf(stderr, "bento: writing the report failed\n");
                return BENTO_EXIT_REFUSED;
        }
        if (o.strict) {
                fprintf(stderr, "bento: --strict cannot pass: %s\n", NOT_REPORTED);
                return BENTO_EXIT_REFUSED;
        }
        return 0;
}
