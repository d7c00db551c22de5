/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The permission lines of validate and approve (permissions.h).
 */
#include "permissions.h"

#include <stdbool.h>
#include <string.h>

static void print_list(FILE *f, const char *label, char *const *v, size_t n, bool quoted)
{
        fprintf(f, "%-13s ", label);
        if (n == 0) {
                fputs("(none)\n", f);
                return;
        }
        fputs(quoted ? "" : "[", f);
        for (size_t i = 0; i < n; i++)
                fprintf(f, quoted ? "%s\"%s\"" : "%s%s", i ? " " : "", v[i]);
        fputs(quoted ? "\n" : "]\n", f);
}

/* host:port the way the proxy's CONNECT line spells it: IPv6 bracketed. */
static void print_rule(FILE *f, const struct manifest_net_rule *r, bool first)
{
        bool v6 = strchr(r->host, ':') != NULL;

        fprintf(f, "%s%s%s%s:%s", first ? "" : " ", v6 ? "[" : "", r->host, v6 ? "]" : "", r->port);
}

const char *permissions_exec_words(enum manifest_exec e)
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

void permissions_print_limits(FILE *f, const struct manifest_limits *l)
{
        const char *sep = "";

        if (!*l->memory && !*l->cpu && !l->has_pids && !*l->tmp)
                return;
        fprintf(f, "%-14s", "limits:");
        if (*l->memory)
                fprintf(f, "memory %s", l->memory), sep = ", ";
        if (*l->cpu)
                fprintf(f, "%scpu %s", sep, l->cpu), sep = ", ";
        if (l->has_pids)
                fprintf(f, "%spids %lld", sep, (long long) l->pids), sep = ", ";
        if (*l->tmp)
                fprintf(f, "%s/tmp %s", sep, l->tmp);
        fputc('\n', f);
}

void permissions_print(FILE *f, const struct manifest *m)
{
        fprintf(f, "%-14s%s\n", "entrypoint:", m->entrypoint);
        if (*m->interpreter)
                fprintf(f, "%-14s%s\n", "interpreter:", m->interpreter);
        else
                fprintf(f, "%-14s%s\n",
                        "interpreter:", "(none - the entrypoint is a compiled binary)");
        if (m->n_interpreter_args > 0)
                print_list(f, "  args passed to the interpreter, before the entrypoint:",
                           m->interpreter_args, m->n_interpreter_args, true);
        if (m->n_args > 0)
                print_list(f, "args:", m->args, m->n_args, true);
        print_list(f, "read:", m->read, m->n_read, false);
        print_list(f, "write:", m->write, m->n_write, false);
        print_list(f, "env:", m->env, m->n_env, false);
        fprintf(f, "%-14s", "network:");
        if (m->n_network == 0)
                fputs("denied (no egress)", f);
        else
                fputc('[', f);
        for (size_t i = 0; i < m->n_network; i++)
                print_rule(f, &m->network[i], i == 0);
        fputs(m->n_network ? "]\n" : "\n", f);
        fprintf(f, "%-14s%s\n", "exec:", permissions_exec_words(m->exec));
        permissions_print_limits(f, &m->limits);
}
