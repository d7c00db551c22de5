/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The approval stamp as a minimal textual edit (approval-stamp.h).  The
 * original is walked once more with libyaml's event API to find where the
 * top-level entries and the provenance keys are; libyaml's marks count
 * characters, so they are turned into byte offsets on the (UTF-8) input.
 * Nothing here has to be right for the result to be safe: the edited text
 * is only used when parsing it gives exactly the stamped model.
 */
#include "approval-stamp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "cleanup.h"
#include "manifest-write.h"

static void cleanup_parser_fn(yaml_parser_t *p)
{
        yaml_parser_delete(p);
}

static void cleanup_event_fn(yaml_event_t *e)
{
        yaml_event_delete(e);
}

#define cleanup_parser __attribute__((cleanup(cleanup_parser_fn)))
#define cleanup_event  __attribute__((cleanup(cleanup_event_fn)))

/* The provenance keys in canonical order; blocked-hosts is only a
 * landmark (it is carried, never rewritten). */
enum pkey { PK_GENERATED_BY, PK_GENERATED_AT, PK_APPROVES, PK_BLOCKED_HOSTS, PK_MAX };

static const char *const pkey_names[PK_MAX] = {"generated-by", "generated-at", "approves",
                                               "blocked-hosts"};

struct pentry {
        bool present;
        bool scalar;
        yaml_scalar_style_t style;
        size_t key_at;          /* character index of the key */
        size_t val_at, val_end; /* character span of a scalar value */
        size_t end;             /* character index where the entry's content ends */
};

struct layout {
        bool ok;             /* the walk understood the document */
        size_t top_col;      /* column of the top-level keys */
        size_t top_end;      /* where the last top-level value's content ends */
        bool has_prov;       /* a provenance block mapping exists */
        size_t prov_key_end; /* end of the "provenance" key (for a null value) */
        bool prov_null;      /* "provenance:" with an empty value */
        size_t prov_col;     /* column of the provenance keys */
        struct pentry keys[PK_MAX];
};

struct walk {
        yaml_parser_t parser;
        bool failed;
};

static bool next(struct walk *w, yaml_event_t *ev)
{
        if (w->failed || !yaml_parser_parse(&w->parser, ev))
                return !(w->failed = true);
        return true;
}

/* Consume the rest of a node whose first event is ev; returns the index
 * where its content ends (block collections end at their last child, not
 * at the token that closes them, which may sit after comments). */
static size_t skip_node(struct walk *w, const yaml_event_t *ev)
{
        size_t end = ev->end_mark.index;
        int depth;

        if (ev->type != YAML_SEQUENCE_START_EVENT && ev->type != YAML_MAPPING_START_EVENT)
                return end;
        for (depth = 1; depth > 0 && !w->failed;) {
                cleanup_event yaml_event_t e = {0};

                if (!next(w, &e))
                        break;
                if (e.type == YAML_SEQUENCE_START_EVENT || e.type == YAML_MAPPING_START_EVENT)
                        depth++;
                else if (e.type == YAML_SEQUENCE_END_EVENT || e.type == YAML_MAPPING_END_EVENT)
                        depth--;
                if (e.type == YAML_SCALAR_EVENT || e.start_mark.index != e.end_mark.index)
                        end = e.end_mark.index;
        }
        return end;
}

static enum pkey pkey_of(const yaml_event_t *key)
{
        for (int k = 0; k < PK_MAX; k++)
                if (key->type == YAML_SCALAR_EVENT &&
                    strlen(pkey_names[k]) == key->data.scalar.length &&
                    memcmp(pkey_names[k], key->data.scalar.value, key->data.scalar.length) == 0)
                        return (enum pkey) k;
        return PK_MAX;
}

/* The entries of a block provenance mapping. */
static void walk_provenance(struct walk *w, struct layout *lo)
{
        bool first = true;

        for (;;) {
                cleanup_event yaml_event_t key = {0}, val = {0};
                enum pkey k;

                if (!next(w, &key) || key.type == YAML_MAPPING_END_EVENT || !next(w, &val))
                        return;
                k = pkey_of(&key);
                if (first)
                        lo->prov_col = key.start_mark.column;
                first = false;
                if (k == PK_MAX || key.start_mark.column != lo->prov_col) {
                        w->failed = true;
                        return;
                }
                lo->keys[k] = (struct pentry){
                    .present = true,
                    .scalar = val.type == YAML_SCALAR_EVENT,
                    .style = val.type == YAML_SCALAR_EVENT ? val.data.scalar.style : 0,
                    .key_at = key.start_mark.index,
                    .val_at = val.start_mark.index,
                    .val_end = val.end_mark.index,
                };
                lo->keys[k].end = skip_node(w, &val);
        }
}

static bool is_key(const yaml_event_t *ev, const char *name)
{
        return ev->type == YAML_SCALAR_EVENT && strlen(name) == ev->data.scalar.length &&
               memcmp(name, ev->data.scalar.value, ev->data.scalar.length) == 0;
}

static void walk_top_entry(struct walk *w, struct layout *lo, const yaml_event_t *key,
                           const yaml_event_t *val)
{
        if (!is_key(key, "provenance")) {
                lo->top_end = skip_node(w, val);
                return;
        }
        if (val->type == YAML_SCALAR_EVENT && val->data.scalar.length == 0 &&
            val->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
                lo->prov_null = true;
                lo->prov_key_end = key->end_mark.index;
                lo->top_end = key->end_mark.index;
                return;
        }
        if (val->type != YAML_MAPPING_START_EVENT ||
            val->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE) {
                w->failed = true;
                return;
        }
        lo->has_prov = true;
        walk_provenance(w, lo);
        lo->top_end = 0;
        for (int k = 0; k < PK_MAX; k++)
                if (lo->keys[k].present && lo->keys[k].end > lo->top_end)
                        lo->top_end = lo->keys[k].end;
}

static void walk_top(struct walk *w, struct layout *lo)
{
        cleanup_event yaml_event_t s = {0}, d = {0}, root = {0};
        bool first = true;

        if (!next(w, &s) || !next(w, &d) || !next(w, &root) ||
            root.type != YAML_MAPPING_START_EVENT ||
            root.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE)
                return;
        for (;;) {
                cleanup_event yaml_event_t key = {0}, val = {0};

                if (!next(w, &key) || key.type == YAML_MAPPING_END_EVENT)
                        break;
                if (first)
                        lo->top_col = key.start_mark.column;
                first = false;
                if (!next(w, &val))
                        break;
                walk_top_entry(w, lo, &key, &val);
        }
        lo->ok = !w->failed && !first;
}

static void find_layout(const char *data, size_t len, struct layout *lo)
{
        struct walk w = {0};

        *lo = (struct layout){0};
        if (!yaml_parser_initialize(&w.parser))
                return;
        yaml_parser_set_input_string(&w.parser, (const unsigned char *) data, len);
        yaml_parser_set_encoding(&w.parser, YAML_UTF8_ENCODING);
        walk_top(&w, lo);
        cleanup_parser_fn(&w.parser);
}

/* ---- edits --------------------------------------------------------------- */

/* Byte offset of the character at index idx (libyaml counts characters). */
static size_t byte_at(const char *data, size_t len, size_t idx)
{
        size_t b = 0;

        for (size_t c = 0; b < len && c < idx; c++)
                do
                        b++;
                while (b < len && ((unsigned char) data[b] & 0xc0) == 0x80);
        return b;
}

/* Just after the line that holds byte offset b. */
static size_t after_line(const char *data, size_t len, size_t b)
{
        const char *nl = b < len ? memchr(data + b, '\n', len - b) : NULL;

        return nl ? (size_t) (nl - data) + 1 : len;
}

struct edit {
        size_t at, del;
        char *text;
};

struct edits {
        struct edit v[PK_MAX + 1];
        size_t n;
        bool failed;
};

static void add_edit(struct edits *e, size_t at, size_t del, char *text)
{
        if (!text) {
                e->failed = true;
                return;
        }
        for (size_t i = 0; del == 0 && i < e->n; i++)
                if (e->v[i].at == at && e->v[i].del == 0) {
                        char *joined = NULL;

                        if (asprintf(&joined, "%s%s", e->v[i].text, text) < 0)
                                joined = NULL, e->failed = true;
                        free(text);
                        free(e->v[i].text);
                        e->v[i].text = joined;
                        return;
                }
        if (e->n == sizeof(e->v) / sizeof(e->v[0])) {
                free(text);
                e->failed = true;
                return;
        }
        e->v[e->n++] = (struct edit){at, del, text};
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
        char *s = NULL;
        va_list ap;
        int r;

        va_start(ap, f);
        r = vasprintf(&s, f, ap);
        va_end(ap);
        return r < 0 ? NULL : s;
}

struct stamp_ctx {
        const char *data;
        size_t len;
        const char *eol;
        const char *values[PK_APPROVES + 1];
        struct layout lo;
        struct edits ed;
};

/* Replace an existing scalar value, keeping its quoting style. */
static void replace_value(struct stamp_ctx *c, const struct pentry *p, const char *value)
{
        size_t a = byte_at(c->data, c->len, p->val_at), b = byte_at(c->data, c->len, p->val_end);
        const char *q = p->style == YAML_SINGLE_QUOTED_SCALAR_STYLE   ? "'"
                        : p->style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ? "\""
                                                                      : "";

        if (!p->scalar || b <= a || (p->style != YAML_PLAIN_SCALAR_STYLE && !*q)) {
                c->ed.failed = true;
                return;
        }
        add_edit(&c->ed, a, b - a, fmt("%s%s%s", q, value, q));
}

/* Where a missing key k goes: before the first key that follows it in
 * canonical order, else after the block's last entry. */
static size_t insert_point(struct stamp_ctx *c, enum pkey k)
{
        size_t best = SIZE_MAX, end = 0;

        for (int j = 0; j < PK_MAX; j++) {
                const struct pentry *p = &c->lo.keys[j];

                if (!p->present)
                        continue;
                if (j > (int) k && p->key_at < best)
                        best = p->key_at;
                if (p->end > end)
                        end = p->end;
        }
        if (best != SIZE_MAX) {
                size_t b = byte_at(c->data, c->len, best);

                while (b > 0 && c->data[b - 1] == ' ')
                        b--;
                if (b > 0 && c->data[b - 1] != '\n')
                        c->ed.failed = true;
                return b;
        }
        return after_line(c->data, c->len, byte_at(c->data, c->len, end));
}

/* The edits for an existing provenance block. */
static void edit_provenance(struct stamp_ctx *c)
{
        for (int k = PK_GENERATED_BY; k <= PK_APPROVES; k++) {
                const struct pentry *p = &c->lo.keys[k];

                if (p->present)
                        replace_value(c, p, c->values[k]);
                else
                        add_edit(&c->ed, insert_point(c, (enum pkey) k), 0,
                                 fmt("%*s%s: %s%s", (int) c->lo.prov_col, "", pkey_names[k],
                                     c->values[k], c->eol));
        }
}

/* A whole new block after the last top-level entry (or, below an empty
 * "provenance:" key, just its entries). */
static void insert_provenance(struct stamp_ctx *c)
{
        size_t anchor = c->lo.prov_null ? c->lo.prov_key_end : c->lo.top_end;
        size_t at = after_line(c->data, c->len, byte_at(c->data, c->len, anchor));
        int ind = (int) c->lo.top_col;
        const char *lead = at == c->len && c->len > 0 && c->data[c->len - 1] != '\n' ? c->eol : "";

        if (c->lo.prov_null)
                add_edit(&c->ed, at, 0, fmt("%s", lead));
        else
                add_edit(&c->ed, at, 0, fmt("%s%*sprovenance:%s", lead, ind, "", c->eol));
        for (int k = PK_GENERATED_BY; k <= PK_APPROVES; k++)
                add_edit(&c->ed, at, 0,
                         fmt("%*s%s: %s%s", ind + 2, "", pkey_names[k], c->values[k], c->eol));
}

static int cmp_edit_desc(const void *a, const void *b)
{
        const struct edit *x = a, *y = b;

        return x->at < y->at ? 1 : x->at > y->at ? -1 : 0;
}

/* Apply the edits back to front; NULL when they overlap or memory ran out. */
static char *apply(struct stamp_ctx *c, size_t *ret_len)
{
        size_t len = c->len, prev = SIZE_MAX;
        char *out = malloc(c->len + 1);

        if (!out)
                return NULL;
        memcpy(out, c->data, c->len);
        out[len] = '\0';
        qsort(c->ed.v, c->ed.n, sizeof(c->ed.v[0]), cmp_edit_desc);
        for (size_t i = 0; i < c->ed.n; i++) {
                const struct edit *e = &c->ed.v[i];
                size_t tl = strlen(e->text);
                char *grown;

                if (e->at + e->del > prev || e->at + e->del > len ||
                    !(grown = malloc(len - e->del + tl + 1))) {
                        free(out);
                        return NULL;
                }
                memcpy(grown, out, e->at);
                memcpy(grown + e->at, e->text, tl);
                memcpy(grown + e->at + tl, out + e->at + e->del, len - e->at - e->del + 1);
                free(out);
                out = grown;
                len = len - e->del + tl;
                prev = e->at;
        }
        *ret_len = len;
        return out;
}

/* ---- the stamp --------------------------------------------------------- */

static int set_str(char **dst, const char *v)
{
        char *s = strdup(v);

        if (!s)
                return -ENOMEM;
        free(*dst);
        *dst = s;
        return 0;
}

/* Does text parse to exactly the model whose canonical form is want? */
static bool confirms(const char *text, size_t len, const char *name, const char *want,
                     size_t want_len)
{
        cleanup_manifest struct manifest *again = NULL;
        cleanup_free char *got = NULL;
        struct bento_err err = {0};
        size_t got_len = 0;

        if (manifest_parse(text, len, name, &again, NULL, &err) < 0 ||
            manifest_to_yaml(again, 0, &got, &got_len, &err) < 0)
                return false;
        return got_len == want_len && memcmp(got, want, want_len) == 0;
}

static char *textual_edit(const char *data, size_t len, const struct approval_stamp *stamp,
                          size_t *ret_len)
{
        struct stamp_ctx c = {
            .data = data,
            .len = len,
            .eol = memmem(data, len, "\r\n", 2) ? "\r\n" : "\n",
            .values = {APPROVAL_GENERATED_BY, stamp->generated_at, stamp->fingerprint}};
        char *out = NULL;

        find_layout(data, len, &c.lo);
        if (c.lo.ok && c.lo.has_prov)
                edit_provenance(&c);
        else if (c.lo.ok)
                insert_provenance(&c);
        if (c.lo.ok && !c.ed.failed)
                out = apply(&c, ret_len);
        for (size_t i = 0; i < c.ed.n; i++)
                free(c.ed.v[i].text);
        return out;
}

int approval_stamp_text(struct manifest *m, const char *data, size_t len,
                        const struct approval_stamp *stamp, struct approval_stamped *ret,
                        struct bento_err *err)
{
        cleanup_free char *canon = NULL, *edited = NULL;
        size_t canon_len = 0, edited_len = 0;
        int r;

        if (set_str(&m->provenance.generated_by, APPROVAL_GENERATED_BY) < 0 ||
            set_str(&m->provenance.generated_at, stamp->generated_at) < 0 ||
            set_str(&m->provenance.approves, stamp->fingerprint) < 0)
                return bento_err_set(err, ENOMEM, "stamping %s", m->path);
        r = manifest_to_yaml(m, 0, &canon, &canon_len, err);
        if (r < 0)
                return r;
        if (data)
                edited = textual_edit(data, len, stamp, &edited_len);
        if (edited && confirms(edited, edited_len, m->path, canon, canon_len)) {
                *ret = (struct approval_stamped){TAKE_PTR(edited), edited_len, true};
                return 0;
        }
        /* Never write what the parser would refuse (§1.10), even here. */
        if (!confirms(canon, canon_len, m->path, canon, canon_len))
                return bento_err_setx(err, EINVAL,
                                      "%s: the stamped manifest would not read back as the "
                                      "approved policy; refusing to write it",
                                      m->path);
        *ret = (struct approval_stamped){TAKE_PTR(canon), canon_len, false};
        return 0;
}

void approval_now_rfc3339(char buf[static 32])
{
        time_t now = time(NULL);
        struct tm tm;

        if (!gmtime_r(&now, &tm) || strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                snprintf(buf, 32, "1970-01-01T00:00:00Z");
}
