/* SPDX-License-Identifier: Apache-2.0 */
/* Command-line parsing for bento-egress (see options.h), with the shared
 * parser (bundle/argv.h). */
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "listener.h"

enum {
        OPT_ALLOW = 'a',
        OPT_HELP = 'h',
        OPT_REPORT = 0x100,
        OPT_REPORT_DIR,
        OPT_REPORT_MAX,
        OPT_ANNOTATION,
        OPT_HOSTS_FILE,
        OPT_RESOLV_CONF,
        OPT_LOG,
        OPT_MAX_CONNS,
        OPT_HEAD_TIMEOUT,
        OPT_DIAL_TIMEOUT,
        OPT_FIRST_BYTE_TIMEOUT,
        OPT_IDLE_TIMEOUT,
        OPT_MAX_TUNNEL_TIME,
        OPT_ALLOW_INTERFACES,
        OPT_CHECK,
        OPT_GATE,
        OPT_GATE_TIMEOUT,
        OPT_VERSION,
};

static const struct bento_opt options[] = {
    {"allow", 'a', BENTO_OPT_VALUE, OPT_ALLOW, "HOST:PORT", NULL},
    {"report", 0, BENTO_OPT_VALUE, OPT_REPORT, "FILE", NULL},
    {"report-dir", 0, BENTO_OPT_VALUE, OPT_REPORT_DIR, "DIR", NULL},
    {"report-max", 0, BENTO_OPT_VALUE, OPT_REPORT_MAX, "N", NULL},
    {"rules-annotation", 0, BENTO_OPT_VALUE, OPT_ANNOTATION, "NAME", NULL},
    {"hosts-file", 0, BENTO_OPT_VALUE, OPT_HOSTS_FILE, "FILE", NULL},
    {"resolv-conf", 0, BENTO_OPT_VALUE, OPT_RESOLV_CONF, "FILE", NULL},
    {"log", 0, BENTO_OPT_VALUE, OPT_LOG, "FILE", NULL},
    {"max-connections", 0, BENTO_OPT_VALUE, OPT_MAX_CONNS, "N", NULL},
    {"head-timeout", 0, BENTO_OPT_VALUE, OPT_HEAD_TIMEOUT, "S", NULL},
    {"dial-timeout", 0, BENTO_OPT_VALUE, OPT_DIAL_TIMEOUT, "S", NULL},
    {"first-byte-timeout", 0, BENTO_OPT_VALUE, OPT_FIRST_BYTE_TIMEOUT, "S", NULL},
    {"idle-timeout", 0, BENTO_OPT_VALUE, OPT_IDLE_TIMEOUT, "S", NULL},
    {"max-tunnel-time", 0, BENTO_OPT_VALUE, OPT_MAX_TUNNEL_TIME, "S", NULL},
    {"allow-interfaces", 0, BENTO_OPT_FLAG, OPT_ALLOW_INTERFACES, NULL, NULL},
    {"gate", 0, BENTO_OPT_VALUE, OPT_GATE, "SOCKET", NULL},
    {"gate-timeout", 0, BENTO_OPT_VALUE, OPT_GATE_TIMEOUT, "S", NULL},
    {"check", 0, BENTO_OPT_FLAG, OPT_CHECK, NULL, NULL},
    {"help", 'h', BENTO_OPT_FLAG, OPT_HELP, NULL, NULL},
    {"version", 0, BENTO_OPT_FLAG, OPT_VERSION, NULL, NULL},
    {NULL, 0, BENTO_OPT_FLAG, 0, NULL, NULL},
};

void egress_usage(FILE *f)
{
        fprintf(
            f,
            "Usage: bento-egress [OPTIONS]\n"
            "\n"
            "An OCI hook (createRuntime or prestart) that gives a container with an empty\n"
            "network namespace an HTTP CONNECT proxy on 127.0.0.1:%d, which reaches only\n"
            "the granted host:port pairs.  It reads the container state on stdin, listens\n"
            "inside the container's network namespace, dials from the host's, and leaves a\n"
            "daemon that lives exactly as long as the container's init process.\n"
            "\n"
            "Rules:\n"
            "  -a, --allow HOST:PORT      grant a destination (repeatable).  HOST: a name,\n"
            "                             \".example.com\" (any name below it), \"*\", or an\n"
            "                             IP literal ([2001:db8::1] for IPv6); PORT: a number,\n"
            "                             LO-HI, or \"*\".  Private addresses are reachable\n"
            "                             only through a rule naming that literal address;\n"
            "                             loopback, link-local and metadata never.\n"
            "      --rules-annotation NAME  also read rules from the container annotation\n"
            "                             NAME (HOST:PORT items separated by commas or spaces)\n"
            "      --gate SOCKET          ask the network gate listening on the unix socket\n"
            "                             SOCKET about a destination no rule allows; no\n"
            "                             answer is a denial (docs/embedding.md)\n"
            "      --gate-timeout S       to wait for the gate's answer (default 10)\n"
            "\n"
            "Report:\n"
            "      --report FILE          append one JSON line per decision to FILE\n"
            "      --report-dir DIR       the same, to DIR/<container id>.jsonl\n"
            "      --report-max N         decision lines written at most (default 10000)\n"
            "      --log FILE             the daemon's diagnostics (default: discarded)\n"
            "\n"
            "Limits (seconds unless said otherwise):\n"
            "      --max-connections N    concurrent connections; more get 503 (default 512)\n"
            "      --head-timeout S       to send the whole request head (default 30)\n"
            "      --dial-timeout S       to connect upstream (default 15)\n"
            "      --first-byte-timeout S for the upstream's first byte, 0: none (default 30)\n"
            "      --idle-timeout S       a tunnel with no traffic is closed (default 300)\n"
            "      --max-tunnel-time S    a tunnel's whole life (default 86400)\n"
            "\n"
            "Other:\n"
            "      --check                validate the rules, print them normalised, exit\n"
            "      --resolv-conf FILE     the name servers, search list and options to ask\n"
            "                             (default /etc/resolv.conf); names are resolved by\n"
            "                             the proxy itself, /etc/hosts first, never via NSS\n"
            "      --hosts-file FILE      resolve the names listed in FILE (/etc/hosts\n"
            "                             format) to exactly those addresses; for tests\n"
            "      --allow-interfaces     do not refuse a namespace with interfaces besides lo\n"
            "                             up (the filter then covers only proxy users)\n"
            "  -h, --help                 this text\n"
            "      --version              the version\n"
            "\n"
            "Exit status: 0 when the proxy is listening (or --check passed), 1 on any\n"
            "error, 2 for a usage error.  See docs/egress.md for the report format.\n",
            EGRESS_LISTEN_PORT);
}

/* A number of seconds (or a count) in [min, max]. */
static int number(const char *opt, const char *s, long long min, long long max, long long *ret,
                  struct bento_err *err)
{
        char *end = NULL;
        long long v;

        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno || !end || end == s || *end || v < min || v > max)
                return bento_err_setx(err, EINVAL,
                                      "--%s \"%s\": expected a number from %lld to %lld", opt, s,
                                      min, max);
        *ret = v;
        return 0;
}

static void defaults(struct egress_config *cfg)
{
        memset(cfg, 0, sizeof(*cfg));
        cfg->limits = (struct egress_limits){.max_conns = 512,
                                             .head_ms = 30000,
                                             .dial_ms = 15000,
                                             .first_byte_ms = 30000,
                                             .idle_ms = 300000,
                                             .tunnel_ms = 86400000LL,
                                             .write_ms = 5000};
        cfg->gate_ms = 10000;
        cfg->report_max = 10000;
}

static int add_rule(struct egress_config *cfg, const char *spec, struct bento_err *err)
{
        if (cfg->n_rules == EGRESS_MAX_RULES)
                return bento_err_setx(err, E2BIG, "more than %d rules", EGRESS_MAX_RULES);
        return egress_rule_parse(spec, &cfg->rules[cfg->n_rules++], err) < 0
                   ? (cfg->n_rules--, -EINVAL)
                   : 0;
}

int egress_rules_add_list(struct egress_config *cfg, const char *text, const char *where,
                          struct bento_err *err)
{
        char *copy = strdup(text), *save = NULL;
        int r = 0;

        if (!copy)
                return bento_err_set(err, ENOMEM, "%s", where);
        for (char *t = strtok_r(copy, ", \t\r\n", &save); t && r == 0;
             t = strtok_r(NULL, ", \t\r\n", &save))
                r = add_rule(cfg, t, err);
        free(copy);
        return r < 0 ? bento_err_prefix(err, "%s", where) : 0;
}

/* A timeout option: seconds into milliseconds. */
static int seconds(const char *opt, const char *s, long long min, long long max, long long *ms,
                   struct bento_err *err)
{
        long long v = 0;
        int r = number(opt, s, min, max, &v, err);

        if (r >= 0)
                *ms = v * 1000;
        return r;
}

static int one_option(int c, const char *arg, struct egress_config *cfg, struct bento_err *err)
{
        struct egress_limits *l = &cfg->limits;
        long long v = 0;
        int r = 0;

        switch (c) {
        case OPT_ALLOW:
                return add_rule(cfg, arg, err);
        case OPT_REPORT:
                cfg->report = arg;
                return 0;
        case OPT_REPORT_DIR:
                cfg->report_dir = arg;
                return 0;
        case OPT_ANNOTATION:
                cfg->annotation = arg;
                return 0;
        case OPT_HOSTS_FILE:
                cfg->hosts_file = arg;
                return 0;
        case OPT_RESOLV_CONF:
                cfg->resolv_conf = arg;
                return 0;
        case OPT_LOG:
                cfg->log = arg;
                return 0;
        case OPT_GATE:
                if (arg[0] != '/')
                        return bento_err_setx(err, EINVAL, "--gate \"%s\": want an absolute path",
                                              arg);
                cfg->gate = arg;
                return 0;
        case OPT_ALLOW_INTERFACES:
                cfg->allow_interfaces = true;
                return 0;
        case OPT_REPORT_MAX:
                r = number("report-max", arg, 0, 100000000, &v, err);
                cfg->report_max = (unsigned long) v;
                return r;
        case OPT_MAX_CONNS:
                r = number("max-connections", arg, 1, 8192, &v, err);
                l->max_conns = (unsigned) v;
                return r;
        default:
                break;
        }
        switch (c) {
        case OPT_HEAD_TIMEOUT:
                r = seconds("head-timeout", arg, 1, 3600, &v, err);
                l->head_ms = (int) v;
                break;
        case OPT_DIAL_TIMEOUT:
                r = seconds("dial-timeout", arg, 1, 3600, &v, err);
                l->dial_ms = (int) v;
                break;
        case OPT_FIRST_BYTE_TIMEOUT:
                r = seconds("first-byte-timeout", arg, 0, 3600, &v, err);
                l->first_byte_ms = (int) v;
                break;
        case OPT_IDLE_TIMEOUT:
                r = seconds("idle-timeout", arg, 1, 86400, &v, err);
                l->idle_ms = (int) v;
                break;
        case OPT_GATE_TIMEOUT:
                r = seconds("gate-timeout", arg, 1, 600, &v, err);
                cfg->gate_ms = (int) v;
                break;
        case OPT_MAX_TUNNEL_TIME:
                r = seconds("max-tunnel-time", arg, 1, 30LL * 86400, &v, err);
                l->tunnel_ms = v;
                break;
        default:
                return bento_err_setx(err, EINVAL, "unknown option (see bento-egress --help)");
        }
        return r;
}

int egress_options_parse(int argc, char **argv, struct egress_config *cfg, struct bento_err *err)
{
        /* options end at the first operand, which is then refused */
        struct bento_argv a = {.argc = argc, .argv = argv, .i = 1};
        struct bento_argv_hit h;
        int mode = EGRESS_MODE_HOOK, r;

        defaults(cfg);
        while ((r = bento_argv_next(&a, options, &h, err)) > 0) {
                if (h.id == OPT_HELP)
                        mode = EGRESS_MODE_HELP;
                else if (h.id == OPT_VERSION)
                        mode = EGRESS_MODE_VERSION;
                else if (h.id == OPT_CHECK)
                        mode = EGRESS_MODE_CHECK;
                else if (one_option(h.id, h.value, cfg, err) < 0)
                        return -EINVAL;
        }
        if (r < 0)
                return r;
        if (a.i < argc)
                return bento_err_setx(err, EINVAL,
                                      "unexpected argument \"%s\" (rules are given with --allow)",
                                      argv[a.i]);
        if (cfg->report && cfg->report_dir)
                return bento_err_setx(err, EINVAL, "--report and --report-dir exclude each other");
        return mode;
}
