/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The approval stamp and recorded blocked hosts as minimal textual edits
 * (stamp.h).  The original is walked once more with libyaml's
 * event API to find where the top-level entries, the provenance keys and
 * the blocked-hosts items are; libyaml's marks count characters, so they
 * are turned into byte offsets on the (UTF-8) input.  Nothing here has to
 * be right for the result to be safe: the edited text is only used when
 * parsing it gives exactly the intended model.
 */
#include "stamp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "edit.h"
#include "cleanup.h"
#include "manifest/write.h"
#include "manifest/yaml-cleanup.h"
#include "utf8.h"

/* The provenance keys in canonical order.  The stamp edits the first
 * three; blocked-hosts is a landmark for it, and gains items only when a
 * run records a destination (approval_blocked_hosts_text). */
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
        bool block_seq;         /* the value is a block sequence */
};

/* Where each blocked-hosts item (a scalar) starts, in file order. */
struct items {
        size_t *at;
        size_t n;
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
        struct items blocked; /* the items of a blocked-hosts sequence */
        const char *why;      /* why the walk gave up, when it did */
};

struct walk {
        yaml_parser_t parser;
        bool failed;
        const char *why;
};

static bool next(struct walk *w, yaml_event_t *ev)
{
        if (w->failed || !yaml_parser_parse(&w->parser, ev))
                return !(w->failed = true);
        return true;
}

static void give_up(struct walk *w, const char *why)
{
        w->failed = true;
        if (!w->why)
                w->why = why;
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
                cleanup_yaml_event yaml_event_t e = {0};

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

/* The blocked-hosts sequence whose start event is seq: where each item
 * starts; returns where its content ends. */
static size_t walk_items(struct walk *w, struct items *it, const yaml_event_t *seq)
{
        size_t end = seq->end_mark.index;

        for (;;) {
                cleanup_yaml_event yaml_event_t e = {0};
                size_t *grown;

                if (!next(w, &e))
                        return end;
                if (e.type == YAML_SEQUENCE_END_EVENT) {
                        if (e.start_mark.index != e.end_mark.index)
                                end = e.end_mark.index;
                        return end;
                }
                if (e.type != YAML_SCALAR_EVENT) {
                        give_up(w, "provenance.blocked-hosts holds something other than strings");
                        return end;
                }
                grown = reallocarray(it->at, it->n + 1, sizeof(*grown));
                if (!grown) {
                        give_up(w, "out of memory");
                        return end;
                }
                it->at = grown;
                it->at[it->n++] = e.start_mark.index;
                end = e.end_mark.index;
        }
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
                cleanup_yaml_event yaml_event_t key = {0}, val = {0};
                enum pkey k;

                if (!next(w, &key) || key.type == YAML_MAPPING_END_EVENT || !next(w, &val))
                        return;
                k = pkey_of(&key);
                if (first)
                        lo->prov_col = key.start_mark.column;
                first = false;
                if (k == PK_MAX || key.start_mark.column != lo->prov_col) {
                        give_up(w, "its provenance block is laid out in a way bento does not "
                                   "edit");
                        return;
                }
                lo->keys[k] = (struct pentry){
                    .present = true,
                    .scalar = val.type == YAML_SCALAR_EVENT,
                    .style = val.type == YAML_SCALAR_EVENT ? val.data.scalar.style : 0,
                    .key_at = key.start_mark.index,
                    .val_at = val.start_mark.index,
                    .val_end = val.end_mark.index,
                    .block_seq = val.type == YAML_SEQUENCE_START_EVENT &&
                                 val.data.sequence_start.style != YAML_FLOW_SEQUENCE_STYLE,
                };
                if (k == PK_BLOCKED_HOSTS && val.type == YAML_SEQUENCE_START_EVENT &&
                    lo->blocked.n == 0)
                        lo->keys[k].end = walk_items(w, &lo->blocked, &val);
                else
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
                give_up(w, "its provenance block is written in flow style ({...})");
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
        cleanup_yaml_event yaml_event_t s = {0}, d = {0}, root = {0};
        bool first = true;

        if (!next(w, &s) || !next(w, &d) || !next(w, &root) ||
            root.type != YAML_MAPPING_START_EVENT ||
            root.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE) {
                give_up(w, "the manifest is written in flow style ({...})");
                return;
        }
        for (;;) {
                cleanup_yaml_event yaml_event_t key = {0}, val = {0};

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
        lo->why = w.why ? w.why : "bento could not read its layout";
        yaml_parser_delete(&w.parser);
}

static void layout_done(struct layout *lo)
{
        free(lo->blocked.at);
        lo->blocked = (struct items){0};
}

/* ---- edits --------------------------------------------------------------- */

/* Byte offset of the character at index idx (libyaml counts characters). */
static size_t byte_at(const char *data, size_t len, size_t idx)
{
        size_t b = 0;

        for (size_t c = 0; b < len && c < idx; c++)
                do
                        b++;
                while (b < len && bento_utf8_continuation((unsigned char) data[b]));
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
        struct edit *v;
        size_t n;
        bool failed;
};

static void add_edit(struct edits *e, size_t at, size_t del, char *text)
{
        struct edit *grown;

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
        grown = reallocarray(e->v, e->n + 1, sizeof(*grown));
        if (!grown) {
                free(text);
                e->failed = true;
                return;
        }
        e->v = grown;
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

/* One edit of the provenance block: the stamp's values, or entries to add
 * to blocked-hosts. */
struct stamp_ctx {
        const char *data;
        size_t len;
        const char *eol;
        const char *values[PK_APPROVES + 1]; /* NULL: the key is left alone */
        char *const *hosts;                  /* blocked-hosts entries to add, sorted */
        const size_t *before;                /* per host: the recorded item it goes before */
        size_t n_hosts;
        size_t n_recorded; /* the items blocked-hosts holds now */
        const char *why;   /* why the edit is not possible */
        bool lead_done;    /* the end of a file without a final newline got one */
        struct layout lo;
        struct edits ed;
};

static bool wanted(const struct stamp_ctx *c, enum pkey k)
{
        return k == PK_BLOCKED_HOSTS ? c->n_hosts > 0 : c->values[k] != NULL;
}

static void fail(struct stamp_ctx *c, const char *why)
{
        c->ed.failed = true;
        if (!c->why)
                c->why = why;
}

/* Insert text at byte offset at; text that lands after a last line without
 * a newline first ends that line. */
static void insert_text(struct stamp_ctx *c, size_t at, char *text)
{
        if (at == c->len && c->len > 0 && c->data[c->len - 1] != '\n' && !c->lead_done) {
                c->lead_done = true;
                add_edit(&c->ed, at, 0, fmt("%s", c->eol));
        }
        add_edit(&c->ed, at, 0, text);
}

static void insert_item(struct stamp_ctx *c, size_t at, size_t dash, const char *host)
{
        insert_text(c, at, fmt("%*s- \"%s\"%s", (int) dash, "", host, c->eol));
}

/* A whole key k, at indentation ind. */
static void insert_key(struct stamp_ctx *c, size_t at, enum pkey k, int ind)
{
        if (k != PK_BLOCKED_HOSTS) {
                insert_text(c, at,
                            fmt("%*s%s: %s%s", ind, "", pkey_names[k], c->values[k], c->eol));
                return;
        }
        insert_text(c, at, fmt("%*s%s:%s", ind, "", pkey_names[k], c->eol));
        for (size_t j = 0; j < c->n_hosts; j++)
                insert_item(c, at, (size_t) ind + 2, c->hosts[j]);
}

/* Replace an existing scalar value, keeping its quoting style. */
static void replace_value(struct stamp_ctx *c, const struct pentry *p, const char *value)
{
        size_t a = byte_at(c->data, c->len, p->val_at), b = byte_at(c->data, c->len, p->val_end);
        const char *q = p->style == YAML_SINGLE_QUOTED_SCALAR_STYLE   ? "'"
                        : p->style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ? "\""
                                                                      : "";

        if (!p->scalar || b <= a || (p->style != YAML_PLAIN_SCALAR_STYLE && !*q)) {
                fail(c, "a provenance value is not a one-line string");
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
                        fail(c, "two provenance keys share a line");
                return b;
        }
        return after_line(c->data, c->len, byte_at(c->data, c->len, end));
}

/* The line of the block sequence item that starts at character index idx
 * holds nothing before it but spaces and "- ": *ret_start gets the line's
 * byte offset, *ret_dash the column of the dash. */
static bool item_line(const struct stamp_ctx *c, size_t idx, size_t *ret_start, size_t *ret_dash)
{
        size_t b = byte_at(c->data, c->len, idx), s = b, i;

        while (s > 0 && c->data[s - 1] != '\n')
                s--;
        for (i = s; i < b && c->data[i] == ' ';)
                i++;
        if (i + 1 >= b || c->data[i] != '-' || c->data[i + 1] != ' ')
                return false;
        *ret_dash = i - s;
        for (i++; i < b && c->data[i] == ' ';)
                i++;
        *ret_start = s;
        return i == b;
}

/* New blocked-hosts items as lines of their own: each before the recorded
 * item it sorts before, the others after the last one.  An empty
 * "blocked-hosts:" gets its items below it. */
static void merge_items(struct stamp_ctx *c, const struct pentry *p)
{
        const struct items *it = &c->lo.blocked;
        size_t dash = 0, start = 0;

        if (p->scalar && p->style == YAML_PLAIN_SCALAR_STYLE && p->val_at == p->val_end &&
            c->n_recorded == 0) {
                size_t at = after_line(c->data, c->len, byte_at(c->data, c->len, p->key_at));

                for (size_t j = 0; j < c->n_hosts; j++)
                        insert_item(c, at, c->lo.prov_col + 2, c->hosts[j]);
                return;
        }
        if (!p->block_seq) {
                fail(c, "its provenance.blocked-hosts is not a block list (\"- item\" lines); "
                        "a flow list ([...]) is not edited");
                return;
        }
        if (it->n != c->n_recorded || it->n == 0 || !item_line(c, it->at[0], &start, &dash)) {
                fail(c, "its provenance.blocked-hosts list is laid out in a way bento does not "
                        "edit");
                return;
        }
        for (size_t j = 0; j < c->n_hosts; j++) {
                size_t i = c->before[j], at = 0, col = 0;

                if (i >= it->n)
                        at = after_line(c->data, c->len, byte_at(c->data, c->len, p->end));
                else if (!item_line(c, it->at[i], &at, &col) || col != dash) {
                        fail(c, "its provenance.blocked-hosts list is laid out in a way bento "
                                "does not edit");
                        return;
                }
                insert_item(c, at, dash, c->hosts[j]);
        }
}

/* The edits for an existing provenance block. */
static void edit_provenance(struct stamp_ctx *c)
{
        for (int k = PK_GENERATED_BY; k < PK_MAX; k++) {
                const struct pentry *p = &c->lo.keys[k];

                if (!wanted(c, (enum pkey) k))
                        continue;
                if (!p->present)
                        insert_key(c, insert_point(c, (enum pkey) k), (enum pkey) k,
                                   (int) c->lo.prov_col);
                else if (k == PK_BLOCKED_HOSTS)
                        merge_items(c, p);
                else
                        replace_value(c, p, c->values[k]);
        }
}

/* A whole new block after the last top-level entry (or, below an empty
 * "provenance:" key, just its entries). */
static void insert_provenance(struct stamp_ctx *c)
{
        size_t anchor = c->lo.prov_null ? c->lo.prov_key_end : c->lo.top_end;
        size_t at = after_line(c->data, c->len, byte_at(c->data, c->len, anchor));
        int ind = (int) c->lo.top_col;

        if (!c->lo.prov_null)
                insert_text(c, at, fmt("%*sprovenance:%s", ind, "", c->eol));
        for (int k = PK_GENERATED_BY; k < PK_MAX; k++)
                if (wanted(c, (enum pkey) k))
                        insert_key(c, at, (enum pkey) k, ind + 2);
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

bool approval_edit_confirms(const char *text, size_t len, const char *name, const char *want,
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

static const char *eol_of(const char *data, size_t len)
{
        return memmem(data, len, "\r\n", 2) ? "\r\n" : "\n";
}

char *approval_edit_text(const char *data, size_t len, const struct approval_edit_req *req,
                         size_t *ret_len, const char **ret_why)
{
        struct stamp_ctx c = {.data = data,
                              .len = len,
                              .eol = eol_of(data, len),
                              .values = {req->values[0], req->values[1], req->values[2]},
                              .hosts = req->hosts,
                              .before = req->before,
                              .n_hosts = req->n_hosts,
                              .n_recorded = req->n_recorded};
        char *out = NULL;

        find_layout(data, len, &c.lo);
        if (!c.lo.ok)
                c.why = c.lo.why;
        else if (c.lo.has_prov)
                edit_provenance(&c);
        else
                insert_provenance(&c);
        if (c.lo.ok && !c.ed.failed) {
                out = apply(&c, ret_len);
                if (!out)
                        fail(&c, "out of memory");
        }
        for (size_t i = 0; i < c.ed.n; i++)
                free(c.ed.v[i].text);
        free(c.ed.v);
        layout_done(&c.lo);
        if (!out && ret_why)
                *ret_why = c.why ? c.why : "the edit could not be made";
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
        if (data) {
                struct approval_edit_req req = {
                    .values = {APPROVAL_GENERATED_BY, stamp->generated_at, stamp->fingerprint}};

                edited = approval_edit_text(data, len, &req, &edited_len, NULL);
        }
        if (edited && approval_edit_confirms(edited, edited_len, m->path, canon, canon_len)) {
                *ret = (struct approval_stamped){TAKE_PTR(edited), edited_len, true};
                return 0;
        }
        /* Never write what the parser would refuse (docs/approve.md, "How the file is rewritten"),
         * even here. */
        if (!approval_edit_confirms(canon, canon_len, m->path, canon, canon_len))
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
