/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The manifest loader, on libyaml's event API (docs/manifest.md, "SYNTAX RULES").  The
 * input is read twice.  The first pass looks only at the shape of the event
 * stream: syntax, explicit tags, anchors, aliases, merge keys, nesting depth
 * and the number of documents; these are refused before anything is
 * decoded, so a deeply nested or aliased value is reported as such and not
 * as a type error somewhere inside it.  The second pass decodes the single
 * document into the model through small per-level key tables, refusing
 * unknown and repeated keys and values of the wrong shape.  Every error
 * names the place of the offending event; none quotes the source beyond the
 * value or key itself, and libyaml's own problem texts are fixed strings.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "cleanup.h"
#include "internal.h"
#include "manifest.h"
#include "screen.h"
#include "utf8.h"
#include "yaml-cleanup.h"

struct loader {
        yaml_parser_t *parser;
        const char *data;
        size_t len;
        const char *name;
        struct manifest *m;
        struct manifest_problems *problems;
        struct manifest_nul_hits *hits;
};

static struct manifest_place place_of(yaml_mark_t mark)
{
        return (struct manifest_place){(unsigned) mark.line + 1, (unsigned) mark.column + 1};
}

/* Add the one problem a loader failure reports; returns -EINVAL (or
 * -ENOMEM when even that failed). */
__attribute__((format(printf, 3, 4))) static int refuse(struct loader *ld, yaml_mark_t mark,
                                                        const char *fmt, ...)
{
        struct manifest_place at = place_of(mark);
        cleanup_free char *msg = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return msg = NULL, -ENOMEM;
        return manifest_problem_add(ld->problems, ld->name, &at, "manifest: %s", msg) ?: -EINVAL;
}

/* Reader errors carry a byte offset instead of a mark. */
static yaml_mark_t mark_at_offset(const struct loader *ld, size_t offset)
{
        yaml_mark_t mark = {0};

        for (size_t i = 0; i < offset && i < ld->len; i++) {
                if (ld->data[i] == '\n')
                        mark.line++, mark.column = 0;
                else if (!bento_utf8_continuation((unsigned char) ld->data[i]))
                        mark.column++;
        }
        return mark;
}

static int syntax_error(struct loader *ld)
{
        const yaml_parser_t *p = ld->parser;
        yaml_mark_t mark = p->problem_mark;

        if (p->error == YAML_MEMORY_ERROR)
                return -ENOMEM;
        if (p->error == YAML_READER_ERROR)
                mark = mark_at_offset(ld, p->problem_offset);
        return refuse(ld, mark, "not valid YAML: %s%s%s", p->problem ? p->problem : "unknown error",
                      p->context ? " " : "", p->context ? p->context : "");
}

static int next_event(struct loader *ld, yaml_event_t *ev)
{
        if (!yaml_parser_parse(ld->parser, ev))
                return syntax_error(ld);
        return 0;
}

/* ---- pass 1: the shape of the stream ---------------------------------- */

/* One open collection: mappings alternate between key and value slots. */
struct level {
        bool is_map;
        bool want_key;
};

/* The bound of docs/manifest.md, "SYNTAX RULES" counts the nesting of values (flow collections and
 * block sequences), not the document's top-level mapping, which every
 * manifest has: the stack holds that one level more. */
#define SHAPE_MAX_LEVELS (MANIFEST_MAX_DEPTH + 1)

struct shape {
        struct level stack[SHAPE_MAX_LEVELS];
        unsigned depth;
        unsigned documents;
};

static int node_refs(struct loader *ld, const yaml_event_t *ev, const yaml_char_t *tag,
                     const yaml_char_t *anchor)
{
        unsigned line = (unsigned) ev->start_mark.line + 1;

        if (tag)
                return refuse(ld, ev->start_mark,
                              "line %u uses an explicit YAML tag; a manifest holds plain "
                              "values only",
                              line);
        if (anchor)
                return refuse(ld, ev->start_mark,
                              "line %u uses a YAML anchor, alias, or merge key; write every "
                              "value out where it is used",
                              line);
        return 0;
}

/* Whether this node sits in a key slot of a mapping (and take the slot). */
static bool take_slot(struct shape *sh)
{
        struct level *l;
        bool key;

        if (sh->depth == 0)
                return false;
        l = &sh->stack[sh->depth - 1];
        key = l->is_map && l->want_key;
        if (l->is_map)
                l->want_key = !l->want_key;
        return key;
}

static int shape_node(struct loader *ld, struct shape *sh, const yaml_event_t *ev)
{
        bool key = take_slot(sh), is_map = ev->type == YAML_MAPPING_START_EVENT;
        int r;

        if (ev->type == YAML_ALIAS_EVENT)
                return node_refs(ld, ev, NULL, (const yaml_char_t *) "*");
        if (ev->type == YAML_SCALAR_EVENT) {
                r = node_refs(ld, ev, ev->data.scalar.tag, ev->data.scalar.anchor);
                if (r == 0 && key && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
                    ev->data.scalar.length == 2 && memcmp(ev->data.scalar.value, "<<", 2) == 0)
                        r = node_refs(ld, ev, NULL, (const yaml_char_t *) "<<");
                return r;
        }
        r = is_map ? node_refs(ld, ev, ev->data.mapping_start.tag, ev->data.mapping_start.anchor)
                   : node_refs(ld, ev, ev->data.sequence_start.tag, ev->data.sequence_start.anchor);
        if (r < 0)
                return r;
        if (sh->depth == SHAPE_MAX_LEVELS)
                return refuse(ld, ev->start_mark, "line %u nests more than %d levels deep",
                              (unsigned) ev->start_mark.line + 1, MANIFEST_MAX_DEPTH);
        sh->stack[sh->depth++] = (struct level){is_map, true};
        return 0;
}

static int shape_event(struct loader *ld, struct shape *sh, const yaml_event_t *ev)
{
        switch (ev->type) {
        case YAML_DOCUMENT_START_EVENT:
                if (++sh->documents > 1)
                        return refuse(ld, ev->start_mark,
                                      "the input contains more than one YAML document; a "
                                      "manifest must be a single policy");
                if (ev->data.document_start.tag_directives.start !=
                    ev->data.document_start.tag_directives.end)
                        return node_refs(ld, ev, (const yaml_char_t *) "%TAG", NULL);
                return 0;
        case YAML_ALIAS_EVENT:
        case YAML_SCALAR_EVENT:
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
                return shape_node(ld, sh, ev);
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
                if (sh->depth > 0)
                        sh->depth--;
                return 0;
        default:
                return 0;
        }
}

static int check_shape(struct loader *ld)
{
        struct shape sh = {0};

        for (;;) {
                cleanup_yaml_event yaml_event_t ev = {0};
                int r = next_event(ld, &ev);

                if (r == 0)
                        r = shape_event(ld, &sh, &ev);
                if (r < 0)
                        return r;
                if (ev.type == YAML_STREAM_END_EVENT)
                        return 0;
        }
}

/* ---- pass 2: decoding into the model ---------------------------------- */

struct field;

/* A key table for one mapping level. */
struct section {
        const char *prefix; /* prepended to keys in messages: "limits." */
        const char *where;  /* "the manifest", "limits", ... */
        const struct field *fields;
        size_t n;
};

typedef int (*field_load_fn)(struct loader *ld, const struct field *f, void *base,
                             const char *label, const yaml_event_t *ev);

struct field {
        const char *key;
        field_load_fn load;
        size_t off;       /* the value: char *, char ** or int64_t */
        size_t count_off; /* lists: the size_t count; pids: the "has" flag */
        size_t place_off; /* struct manifest_place, or (lists) its array; SIZE_MAX: none */
        bool provenance;  /* NUL bytes are a provenance problem, not a policy one */
        const struct section *sub;
};

#define AT(base, off, type) ((type *) (void *) ((char *) (base) + (off)))

/* Plain scalars YAML reads as null decode as "" (so "read: [~]" is an empty
 * grant, as docs/manifest.md, "SYNTAX RULES" expects), quoted ones never do. */
static bool is_null(const yaml_event_t *ev)
{
        static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
        const char *v = (const char *) ev->data.scalar.value;

        if (ev->type != YAML_SCALAR_EVENT || ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
                return false;
        for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
                if (strlen(nulls[i]) == ev->data.scalar.length && strcmp(v, nulls[i]) == 0)
                        return true;
        return false;
}

static void note_nul(struct loader *ld, bool provenance, const yaml_event_t *ev)
{
        struct manifest_nul_hit *hit = provenance ? &ld->hits->provenance : &ld->hits->policy;

        if (hit->set)
                return;
        hit->set = true;
        hit->at = place_of(ev->start_mark);
        screen_sanitize((const char *) ev->data.scalar.value, ev->data.scalar.length,
                        MANIFEST_SHOWN_MAX, hit->shown, sizeof(hit->shown));
}

static int scalar_text(struct loader *ld, const struct field *f, const yaml_event_t *ev, char **ret)
{
        size_t n = is_null(ev) ? 0 : ev->data.scalar.length;

        if (memchr(ev->data.scalar.value, '\0', n))
                note_nul(ld, f->provenance, ev);
        *ret = strndup((const char *) ev->data.scalar.value, n);
        return *ret ? 0 : -ENOMEM;
}

static int load_string(struct loader *ld, const struct field *f, void *base, const char *label,
                       const yaml_event_t *ev)
{
        char **dst = AT(base, f->off, char *);

        if (ev->type != YAML_SCALAR_EVENT)
                return refuse(ld, ev->start_mark, "%s must be a string", label);
        free(*dst);
        *dst = NULL;
        if (f->place_off != SIZE_MAX)
                *AT(base, f->place_off, struct manifest_place) = place_of(ev->start_mark);
        return scalar_text(ld, f, ev, dst);
}

/* Grow an array by one element, doubling at powers of two so that a list of
 * many thousand entries is not copied once per entry. */
static int grow(void **arr, size_t n, size_t elem)
{
        void *p;

        if (n != 0 && (n & (n - 1)) != 0)
                return 0;
        p = realloc(*arr, (n ? 2 * n : 1) * elem);
        if (!p)
                return -ENOMEM;
        *arr = p;
        return 0;
}

static int list_append(struct loader *ld, const struct field *f, void *base, const yaml_event_t *ev)
{
        char ***items = AT(base, f->off, char **);
        size_t *n = AT(base, f->count_off, size_t);
        struct manifest_place **places = AT(base, f->place_off, struct manifest_place *);

        if (grow((void **) items, *n, sizeof(char *)) < 0 ||
            grow((void **) places, *n, sizeof(struct manifest_place)) < 0)
                return -ENOMEM;
        (*places)[*n] = place_of(ev->start_mark);
        if (scalar_text(ld, f, ev, &(*items)[*n]) < 0)
                return -ENOMEM;
        (*n)++;
        return 0;
}

static int load_list(struct loader *ld, const struct field *f, void *base, const char *label,
                     const yaml_event_t *ev)
{
        if (is_null(ev))
                return 0;
        if (ev->type != YAML_SEQUENCE_START_EVENT)
                return refuse(ld, ev->start_mark, "%s must be a list of strings", label);
        for (size_t i = 0;; i++) {
                cleanup_yaml_event yaml_event_t item = {0};
                int r = next_event(ld, &item);

                if (r < 0)
                        return r;
                if (item.type == YAML_SEQUENCE_END_EVENT)
                        return 0;
                if (item.type != YAML_SCALAR_EVENT)
                        return refuse(ld, item.start_mark, "%s[%zu] must be a string", label, i);
                r = list_append(ld, f, base, &item);
                if (r < 0)
                        return r;
        }
}

static int load_pids(struct loader *ld, const struct field *f, void *base, const char *label,
                     const yaml_event_t *ev)
{
        const char *v = (const char *) ev->data.scalar.value;
        size_t n = ev->type == YAML_SCALAR_EVENT ? ev->data.scalar.length : 0;
        size_t i = n > 0 && (v[0] == '-' || v[0] == '+') ? 1 : 0;
        uint64_t x = 0;

        if (ev->type == YAML_SCALAR_EVENT && is_null(ev))
                return 0;
        if (ev->type != YAML_SCALAR_EVENT || ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
            i == n || strspn(v + i, "0123456789") != n - i)
                return refuse(ld, ev->start_mark, "%s must be a whole number", label);
        for (; i < n; i++) {
                x = x * 10 + (uint64_t) (v[i] - '0');
                if (x > (uint64_t) INT64_MAX)
                        return refuse(ld, ev->start_mark, "%s is out of range", label);
        }
        *AT(base, f->off, int64_t) = v[0] == '-' ? -(int64_t) x : (int64_t) x;
        *AT(base, f->count_off, bool) = true;
        *AT(base, f->place_off, struct manifest_place) = place_of(ev->start_mark);
        return 0;
}

static int load_mapping(struct loader *ld, const struct section *sec, void *base);

static int load_section(struct loader *ld, const struct field *f, void *base, const char *label,
                        const yaml_event_t *ev)
{
        if (is_null(ev))
                return 0;
        if (ev->type != YAML_MAPPING_START_EVENT)
                return refuse(ld, ev->start_mark, "%s must be a mapping", label);
        return load_mapping(ld, f->sub, base);
}

/* A network rule while it is read; moved into the model when complete. */
struct rule_tmp {
        char *host, *port;
        struct manifest_place host_at, port_at;
};

static const struct field rule_fields[] = {
    {"host", load_string, offsetof(struct rule_tmp, host), 0, offsetof(struct rule_tmp, host_at),
     false, NULL},
    {"port", load_string, offsetof(struct rule_tmp, port), 0, offsetof(struct rule_tmp, port_at),
     false, NULL},
};

static int rule_append(struct manifest *m, struct rule_tmp *t, struct manifest_place at)
{
        struct manifest_places *pl = &m->places;
        size_t n = m->n_network;

        if ((!t->host && !(t->host = strdup(""))) || (!t->port && !(t->port = strdup(""))))
                return -ENOMEM;
        if (grow((void **) &m->network, n, sizeof(*m->network)) < 0 ||
            grow((void **) &pl->network_host, n, sizeof(*pl->network_host)) < 0 ||
            grow((void **) &pl->network_port, n, sizeof(*pl->network_port)) < 0)
                return -ENOMEM;
        /* A missing key is reported at the rule itself. */
        pl->network_host[n] = t->host_at.line ? t->host_at : at;
        pl->network_port[n] = t->port_at.line ? t->port_at : at;
        /* One TAKE_PTR per statement: cppcheck 2.10 cannot parse a statement
         * expression inside a compound literal (internalAstError). */
        m->network[n].host = TAKE_PTR(t->host);
        m->network[n].port = TAKE_PTR(t->port);
        m->n_network++;
        return 0;
}

static int load_rule(struct loader *ld, size_t i, const yaml_event_t *ev)
{
        char prefix[64];
        struct section sec = {prefix, "a network rule", rule_fields,
                              sizeof(rule_fields) / sizeof(rule_fields[0])};
        struct rule_tmp t = {0};
        int r;

        snprintf(prefix, sizeof(prefix), "network rule %zu: ", i);
        r = load_mapping(ld, &sec, &t);
        if (r == 0)
                r = rule_append(ld->m, &t, place_of(ev->start_mark));
        free(t.host);
        free(t.port);
        return r;
}

static int load_network(struct loader *ld, const struct field *f, void *base, const char *label,
                        const yaml_event_t *ev)
{
        (void) f, (void) base;
        if (is_null(ev))
                return 0;
        if (ev->type != YAML_SEQUENCE_START_EVENT)
                return refuse(ld, ev->start_mark, "%s must be a list of {host, port} mappings",
                              label);
        for (size_t i = 0;; i++) {
                cleanup_yaml_event yaml_event_t item = {0};
                int r = next_event(ld, &item);

                if (r < 0)
                        return r;
                if (item.type == YAML_SEQUENCE_END_EVENT)
                        return 0;
                if (item.type != YAML_MAPPING_START_EVENT)
                        return refuse(ld, item.start_mark,
                                      "network rule %zu must be a mapping with `host:` and "
                                      "`port:` keys; write it as - {host: api.example.com, "
                                      "port: \"443\"}",
                                      i);
                r = load_rule(ld, i, &item);
                if (r < 0)
                        return r;
        }
}

#define M_OFF(member) offsetof(struct manifest, member)
#define NO_PLACE      SIZE_MAX
#define STR(k, m)                                                                                  \
        {                                                                                          \
                k, load_string, M_OFF(m), 0, M_OFF(places.m), false, NULL                          \
        }
#define LIST(k, m, pl)                                                                             \
        {                                                                                          \
                k, load_list, M_OFF(m), M_OFF(n_##m), M_OFF(pl), false, NULL                       \
        }
#define PSTR(k, m, pl)                                                                             \
        {                                                                                          \
                k, load_string, M_OFF(provenance.m), 0, M_OFF(places.pl), true, NULL               \
        }

static const struct field limits_fields[] = {
    {"memory", load_string, M_OFF(limits.memory), 0, M_OFF(places.memory), false, NULL},
    {"cpu", load_string, M_OFF(limits.cpu), 0, M_OFF(places.cpu), false, NULL},
    {"pids", load_pids, M_OFF(limits.pids), M_OFF(limits.has_pids), M_OFF(places.pids), false,
     NULL},
    {"tmp", load_string, M_OFF(limits.tmp), 0, M_OFF(places.tmp), false, NULL},
};

static const struct field provenance_fields[] = {
    PSTR("generated-by", generated_by, generated_by),
    PSTR("generated-at", generated_at, generated_at),
    PSTR("approves", approves, approves),
    {"blocked-hosts", load_list, M_OFF(provenance.blocked_hosts), M_OFF(provenance.n_blocked_hosts),
     M_OFF(places.blocked_hosts), true, NULL},
};

static const struct section limits_section = {"limits.", "limits", limits_fields,
                                              sizeof(limits_fields) / sizeof(limits_fields[0])};
static const struct section provenance_section = {"provenance.", "provenance", provenance_fields,
                                                  sizeof(provenance_fields) /
                                                      sizeof(provenance_fields[0])};

static const struct field top_fields[] = {
    STR("entrypoint", entrypoint),
    STR("interpreter", interpreter),
    LIST("interpreter_args", interpreter_args, places.interpreter_args),
    LIST("args", args, places.args),
    LIST("env", env, places.env),
    LIST("read", read, read_places),
    LIST("write", write, write_places),
    {"network", load_network, 0, 0, NO_PLACE, false, NULL},
    {"exec", load_string, M_OFF(exec_as_written), 0, M_OFF(places.exec), false, NULL},
    {"limits", load_section, 0, 0, NO_PLACE, false, &limits_section},
    {"provenance", load_section, 0, 0, NO_PLACE, false, &provenance_section},
};

static const struct section top_section = {"", "the manifest", top_fields,
                                           sizeof(top_fields) / sizeof(top_fields[0])};

static int unknown_key(struct loader *ld, const struct section *sec, const yaml_event_t *key)
{
        char shown[MANIFEST_SHOWN_MAX + 8], known[256];
        size_t o = 0;

        known[0] = '\0';
        for (size_t i = 0; i < sec->n && o < sizeof(known); i++)
                o += (size_t) snprintf(known + o, sizeof(known) - o, "%s%s", i ? ", " : "",
                                       sec->fields[i].key);
        screen_sanitize((const char *) key->data.scalar.value, key->data.scalar.length,
                        MANIFEST_SHOWN_MAX, shown, sizeof(shown));
        return refuse(ld, key->start_mark, "unknown field \"%s\" in %s (known fields: %s)", shown,
                      sec->where, known);
}

/* The table entry for a key event; each key may appear once per mapping. */
static int find_field(struct loader *ld, const struct section *sec, const yaml_event_t *key,
                      uint32_t *seen, const struct field **ret)
{
        if (key->type != YAML_SCALAR_EVENT)
                return refuse(ld, key->start_mark, "keys in %s must be plain words", sec->where);
        for (size_t i = 0; i < sec->n; i++) {
                const struct field *f = &sec->fields[i];

                if (strlen(f->key) != key->data.scalar.length ||
                    memcmp(f->key, key->data.scalar.value, key->data.scalar.length) != 0)
                        continue;
                if (*seen & (1u << i))
                        return refuse(ld, key->start_mark,
                                      "field \"%s%s\" is given twice; a reviewer would see only "
                                      "one of them",
                                      sec->prefix, f->key);
                *seen |= 1u << i;
                *ret = f;
                return 0;
        }
        return unknown_key(ld, sec, key);
}

static int load_mapping(struct loader *ld, const struct section *sec, void *base)
{
        uint32_t seen = 0;

        for (;;) {
                cleanup_yaml_event yaml_event_t key = {0}, value = {0};
                const struct field *f = NULL;
                char label[96];
                int r;

                r = next_event(ld, &key);
                if (r < 0 || key.type == YAML_MAPPING_END_EVENT)
                        return r;
                r = find_field(ld, sec, &key, &seen, &f);
                if (r == 0)
                        r = next_event(ld, &value);
                if (r < 0)
                        return r;
                /* find_field() sets f whenever it returns 0; it returns
                 * refuse()'s result otherwise, which is always negative, but
                 * the analyzer does not follow variadic refuse() and so also
                 * tries r > 0 with f still NULL. */
                /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
                snprintf(label, sizeof(label), "%s%s", sec->prefix, f->key);
                r = f->load(ld, f, base, label, &value);
                if (r < 0)
                        return r;
        }
}

/* Pass 1 guaranteed at most one document and a well-formed stream. */
static int decode(struct loader *ld)
{
        cleanup_yaml_event yaml_event_t start = {0}, doc = {0}, root = {0};
        int r;

        r = next_event(ld, &start);
        if (r == 0)
                r = next_event(ld, &doc);
        if (r < 0 || doc.type != YAML_DOCUMENT_START_EVENT)
                return r; /* an empty stream is an empty policy */
        r = next_event(ld, &root);
        if (r < 0 || is_null(&root))
                return r;
        if (root.type != YAML_MAPPING_START_EVENT)
                return refuse(ld, root.start_mark,
                              "the top level must be a mapping of fields (entrypoint:, read:, "
                              "...)");
        ld->m->places.top = place_of(root.start_mark);
        return load_mapping(ld, &top_section, ld->m);
}

static int run_pass(struct loader *ld, int (*pass)(struct loader *))
{
        /* yaml_parser_initialize() undoes its own allocations when it
         * fails, so deleting the zeroed parser afterwards is harmless. */
        cleanup_yaml_parser yaml_parser_t parser = {0};
        int r;

        if (!yaml_parser_initialize(&parser))
                return -ENOMEM;
        yaml_parser_set_input_string(&parser, (const unsigned char *) ld->data, ld->len);
        yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
        ld->parser = &parser;
        r = pass(ld);
        ld->parser = NULL; /* parser dies with this frame */
        return r;
}

/* "Strings are never NULL" (manifest.h): absent ones become "". */
static int fill_absent(struct manifest *m)
{
        char **strs[] = {&m->entrypoint,
                         &m->interpreter,
                         &m->limits.memory,
                         &m->limits.cpu,
                         &m->limits.tmp,
                         &m->provenance.generated_by,
                         &m->provenance.generated_at,
                         &m->provenance.approves,
                         &m->exec_as_written};

        for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
                if (!*strs[i] && !(*strs[i] = strdup("")))
                        return -ENOMEM;
        return 0;
}

int manifest_yaml_load(const char *data, size_t len, const char *name, struct manifest *m,
                       struct manifest_problems *p, struct manifest_nul_hits *hits)
{
        struct loader ld = {NULL, data, len, name, m, p, hits};
        int r;

        r = run_pass(&ld, check_shape);
        if (r == 0)
                r = run_pass(&ld, decode);
        if (r == 0)
                r = fill_absent(m);
        return r;
}
