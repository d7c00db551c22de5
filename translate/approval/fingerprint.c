/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The approval fingerprint of docs/approve.md, "How the fingerprint is computed" and the approval
 * state of docs/approve.md, "What the stamp is, and what it is not".  The byte stream is fed to the
 * digest piece by piece instead of being assembled first: a manifest can hold up to 1 MiB of
 * strings and there is no reason to copy them.  Only the pointer arrays are copied, to sort them
 * without reordering the policy itself.
 */
#include "fingerprint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "sha256.h"

/* A digest being fed; it remembers the first libcrypto failure, so the
 * callers need not check every update. */
struct fp_stream {
        struct sha256 h;
};

/* The strings of a hand-built model may be NULL; the parser never leaves
 * them so, and the original hashes a missing string as an empty one. */
static const char *str_or_empty(const char *s)
{
        return s ? s : "";
}

static void feed(struct fp_stream *s, const char *data, size_t len)
{
        sha256_feed(&s->h, data, len);
}

static void feed_str(struct fp_stream *s, const char *str)
{
        str = str_or_empty(str);
        feed(s, str, strlen(str));
}

/* One line: label NUL value LF.  The label's own terminator is the NUL. */
static void feed_line(struct fp_stream *s, const char *label, const char *value)
{
        feed(s, label, strlen(label) + 1);
        feed_str(s, value);
        feed(s, "\n", 1);
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(str_or_empty(*(char *const *) a), str_or_empty(*(char *const *) b));
}

static int cmp_rule(const void *a, const void *b)
{
        const struct manifest_net_rule *x = *(const struct manifest_net_rule *const *) a;
        const struct manifest_net_rule *y = *(const struct manifest_net_rule *const *) b;
        int c = strcmp(str_or_empty(x->host), str_or_empty(y->host));

        return c ? c : strcmp(str_or_empty(x->port), str_or_empty(y->port));
}

/* Lines for a list in byte-wise sorted order; duplicates are kept. */
static int feed_sorted(struct fp_stream *s, const char *label, char *const *v, size_t n)
{
        cleanup_free char **sorted = NULL;

        if (n == 0)
                return 0;
        sorted = calloc(n, sizeof(*sorted));
        if (!sorted)
                return -ENOMEM;
        memcpy(sorted, v, n * sizeof(*sorted));
        qsort(sorted, n, sizeof(*sorted), cmp_str);
        for (size_t i = 0; i < n; i++)
                feed_line(s, label, sorted[i]);
        return 0;
}

static int feed_network(struct fp_stream *s, const struct manifest_net_rule *rules, size_t n)
{
        cleanup_free const struct manifest_net_rule **sorted = NULL;

        if (n == 0)
                return 0;
        sorted = calloc(n, sizeof(*sorted));
        if (!sorted)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                sorted[i] = &rules[i];
        qsort(sorted, n, sizeof(*sorted), cmp_rule);
        for (size_t i = 0; i < n; i++) {
                feed(s, "net", 4);
                feed_str(s, sorted[i]->host);
                feed(s, "", 1);
                feed_str(s, sorted[i]->port);
                feed(s, "\n", 1);
        }
        return 0;
}

/* The exec names are spelled here rather than borrowed from the parser:
 * they are part of the hashed format and must not change with it. */
static const char *exec_name(enum manifest_exec e)
{
        switch (e) {
        case MANIFEST_EXEC_NONE_STRICT:
                return "none-strict";
        case MANIFEST_EXEC_ALL:
                return "all";
        case MANIFEST_EXEC_NONE:
        default:
                return "none";
        }
}

static void feed_limits(struct fp_stream *s, const struct manifest_limits *l)
{
        char pids[24];

        snprintf(pids, sizeof(pids), "%" PRId64, l->pids);
        feed(s, "limits", 7);
        feed_str(s, l->memory);
        feed(s, "", 1);
        feed_str(s, l->cpu);
        feed(s, "", 1);
        feed_str(s, pids);
        /* limits.tmp is bento's own (the original has no such key): fed
         * only when set, so every other manifest keeps the fingerprint the
         * original gives it. */
        if (l->tmp && *l->tmp) {
                feed(s, "", 1);
                feed(s, "tmp=", 4);
                feed_str(s, l->tmp);
        }
        feed(s, "\n", 1);
}

static int feed_manifest(struct fp_stream *s, const struct manifest *m)
{
        int r;

        feed_line(s, "entrypoint", m->entrypoint);
        feed_line(s, "interpreter", m->interpreter);
        for (size_t i = 0; i < m->n_interpreter_args; i++)
                feed_line(s, "interpreter_arg", m->interpreter_args[i]);
        for (size_t i = 0; i < m->n_args; i++)
                feed_line(s, "arg", m->args[i]);
        r = feed_sorted(s, "env", m->env, m->n_env);
        if (r == 0)
                r = feed_sorted(s, "read", m->read, m->n_read);
        if (r == 0)
                r = feed_sorted(s, "write", m->write, m->n_write);
        if (r == 0)
                r = feed_network(s, m->network, m->n_network);
        if (r < 0)
                return r;
        feed_line(s, "exec", exec_name(m->exec));
        feed_limits(s, &m->limits);
        return 0;
}

int manifest_fingerprint(const struct manifest *m, char ret_hex[static 65], struct bento_err *err)
{
        struct fp_stream s;
        int r;

        if (!m) {
                ret_hex[0] = '\0';
                return 0;
        }
        sha256_begin(&s.h);
        r = feed_manifest(&s, m);
        if (r < 0)
                return bento_err_set(err, -r, "fingerprint");
        if (sha256_end_hex(&s.h, ret_hex) < 0)
                return bento_err_setx(err, EIO, "fingerprint: SHA-256 failed in libcrypto");
        return 0;
}

enum manifest_approval manifest_approval_state(const struct manifest *m)
{
        char hex[MANIFEST_FINGERPRINT_HEX_LEN + 1];
        struct bento_err err = {0};

        if (!m || !m->provenance.approves || !*m->provenance.approves)
                return MANIFEST_APPROVAL_UNAPPROVED;
        if (manifest_fingerprint(m, hex, &err) < 0)
                return MANIFEST_APPROVAL_STALE;
        return strcmp(hex, m->provenance.approves) == 0 ? MANIFEST_APPROVAL_CURRENT
                                                        : MANIFEST_APPROVAL_STALE;
}

const char *manifest_approval_to_string(enum manifest_approval a)
{
        switch (a) {
        case MANIFEST_APPROVAL_CURRENT:
                return "current";
        case MANIFEST_APPROVAL_STALE:
                return "stale";
        case MANIFEST_APPROVAL_UNAPPROVED:
        default:
                return "unapproved";
        }
}
