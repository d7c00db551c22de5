/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Recording blocked hosts in provenance (stamp.h): which entries
 * are new, where each goes among the recorded ones, and the check that the
 * edited text reads back as the manifest with exactly those entries added.
 * The edit itself is stamp.c's, on the same layout walk.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "edit.h"
#include "stamp.h"
#include "cleanup.h"
#include "manifest/write.h"

/* Longer than any host (253) with a bracketed IPv6 and a port. */
#define ENTRY_MAX 300

/* Printable ASCII without quotes or backslashes: what a double-quoted
 * YAML scalar carries verbatim. */
static bool plain_entry(const char *s)
{
        size_t n = strlen(s);

        if (n == 0 || n > ENTRY_MAX)
                return false;
        for (size_t i = 0; i < n; i++) {
                unsigned char ch = (unsigned char) s[i];

                if (ch <= ' ' || ch >= 0x7f || ch == '"' || ch == '\\')
                        return false;
        }
        return true;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static bool recorded(const struct manifest_provenance *pv, const char *e)
{
        for (size_t i = 0; i < pv->n_blocked_hosts; i++)
                if (strcmp(pv->blocked_hosts[i], e) == 0)
                        return true;
        return false;
}

static void free_list(char **v, size_t n)
{
        for (size_t i = 0; v && i < n; i++)
                free(v[i]);
        free(v);
}

struct merge {
        char **add; /* the new entries, sorted, unique (borrowed) */
        size_t *before;
        size_t n_add;
        char **list; /* the merged list (owned) */
        size_t n_list;
};

static void merge_done(struct merge *mg)
{
        free(mg->add);
        free(mg->before);
        free_list(mg->list, mg->n_list);
        *mg = (struct merge){0};
}

/* The merged list: recorded entries in their order, each new one before
 * the first recorded entry that sorts after it. */
static int merge_list(const struct manifest_provenance *pv, struct merge *mg)
{
        size_t n = pv->n_blocked_hosts, k = 0;

        mg->list = calloc(n + mg->n_add, sizeof(*mg->list));
        if (!mg->list)
                return -ENOMEM;
        for (size_t i = 0; i <= n; i++) {
                for (size_t j = 0; j < mg->n_add; j++)
                        if (mg->before[j] == i && !(mg->list[k++] = strdup(mg->add[j])))
                                return -ENOMEM;
                if (i < n && !(mg->list[k++] = strdup(pv->blocked_hosts[i])))
                        return -ENOMEM;
        }
        mg->n_list = k;
        return 0;
}

static int plan(const struct manifest_provenance *pv, char *const *entries, size_t n,
                struct merge *mg)
{
        size_t u = 0;

        mg->add = calloc(n + 1, sizeof(*mg->add));
        mg->before = calloc(n + 1, sizeof(*mg->before));
        if (!mg->add || !mg->before)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (!recorded(pv, entries[i]))
                        mg->add[mg->n_add++] = entries[i];
        if (mg->n_add == 0)
                return 0;
        qsort(mg->add, mg->n_add, sizeof(*mg->add), cmp_str);
        for (size_t j = 0; j < mg->n_add; j++)
                if (u == 0 || strcmp(mg->add[u - 1], mg->add[j]) != 0)
                        mg->add[u++] = mg->add[j];
        mg->n_add = u;
        for (size_t j = 0; j < u; j++) {
                size_t i = 0;

                while (i < pv->n_blocked_hosts && strcmp(pv->blocked_hosts[i], mg->add[j]) <= 0)
                        i++;
                mg->before[j] = i;
        }
        return merge_list(pv, mg);
}

static char **strv_copy(char *const *v, size_t n)
{
        char **out = calloc(n + 1, sizeof(*out));

        for (size_t i = 0; out && i < n; i++)
                if (!(out[i] = strdup(v[i]))) {
                        strv_free(out);
                        return NULL;
                }
        return out;
}

/* The edited text for m with mg's list swapped in; err says why not. */
static int edit(struct manifest *m, const char *data, size_t len, const struct merge *mg,
                size_t n_recorded, struct approval_blocked_edit *ret, struct bento_err *err)
{
        cleanup_free char *canon = NULL;
        struct approval_edit_req req = {
            .hosts = mg->add, .before = mg->before, .n_hosts = mg->n_add, .n_recorded = n_recorded};
        const char *why = NULL;
        size_t canon_len = 0;
        int r;

        r = manifest_to_yaml(m, 0, &canon, &canon_len, err);
        if (r < 0)
                return r;
        ret->text = approval_edit_text(data, len, &req, &ret->len, &why);
        if (ret->text && !approval_edit_confirms(ret->text, ret->len, m->path, canon, canon_len)) {
                why = "the edited file would not read back as the same manifest";
                free(TAKE_PTR(ret->text));
        }
        if (!ret->text)
                return bento_err_setx(err, EOPNOTSUPP, "%s", why);
        return 0;
}

int approval_blocked_hosts_text(struct manifest *m, const char *data, size_t len,
                                char *const *entries, size_t n, struct approval_blocked_edit *ret,
                                struct bento_err *err)
{
        struct manifest_provenance *pv = &m->provenance;
        struct approval_blocked_edit out = {0};
        struct merge mg = {0};
        char **old = pv->blocked_hosts;
        size_t old_n = pv->n_blocked_hosts;
        int r;

        *ret = (struct approval_blocked_edit){0};
        for (size_t i = 0; i < n; i++)
                if (!plain_entry(entries[i]))
                        return bento_err_setx(err, EINVAL, "\"%s\" is not a host:port entry",
                                              entries[i]);
        r = plan(pv, entries, n, &mg);
        if (r == 0 && mg.n_add > 0 && !(out.added = strv_copy(mg.add, mg.n_add)))
                r = -ENOMEM;
        if (r < 0 || mg.n_add == 0) {
                merge_done(&mg);
                strv_free(out.added);
                return r < 0 ? bento_err_set(err, -r, "recording blocked hosts") : 0;
        }
        out.n_added = mg.n_add;
        pv->blocked_hosts = mg.list;
        pv->n_blocked_hosts = mg.n_list;
        r = edit(m, data, len, &mg, old_n, &out, err);
        if (r < 0) {
                pv->blocked_hosts = old;
                pv->n_blocked_hosts = old_n;
                merge_done(&mg);
                approval_blocked_edit_done(&out);
                return r;
        }
        /* m owns the merged list now; the old places no longer line up. */
        mg.list = NULL;
        merge_done(&mg);
        free_list(old, old_n);
        free(m->places.blocked_hosts);
        m->places.blocked_hosts = NULL;
        *ret = out;
        return 1;
}

void approval_blocked_edit_done(struct approval_blocked_edit *e)
{
        free(e->text);
        strv_free(e->added);
        *e = (struct approval_blocked_edit){0};
}
