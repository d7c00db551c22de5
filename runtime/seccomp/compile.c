/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.seccomp -> a classic BPF program, in `create` before the clone.
 * The object is read and checked, with a JSON path in every message, into
 * a model (struct rt_seccomp_model) that bpf.c turns into the
 * program with libseccomp (or finds in the cache), so that the init needs
 * neither libseccomp nor the heap to install it.  Behaviour follows crun
 * and runc where the runtime-spec is silent: names libseccomp does not know
 * are skipped with a warning, a rule whose action is the default action is
 * dropped, and a rule with several conditions on one argument becomes one
 * rule per condition (libseccomp cannot AND conditions on one argument).
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "jsonr.h"

/* Far more than any profile needs; bounds the condition array. */
#define MAX_CONDITIONS 64
/* The kernel clamps larger values to this anyway (MAX_ERRNO). */
#define MAX_ERRNO_RET 4095

struct compiler {
        struct bento_jsonr r;
        struct rt_seccomp *s;
        struct rt_seccomp_model m;
        const char *bundle; /* a relative listenerPath's base, or NULL */
        char *warn;
        size_t warn_size;
};

/* One warning line; lines that no longer fit are dropped whole, and the
 * last bytes are kept for a line that says so. */
static void warn_line(struct compiler *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void warn_line(struct compiler *c, const char *fmt, ...)
{
        static const char more[] = "linux.seccomp: more unknown system calls skipped\n";
        size_t used = c->warn_size ? strlen(c->warn) : 0;
        char line[256];
        va_list ap;

        if (c->warn_size == 0 || strstr(c->warn, more))
                return;
        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        if (used + strlen(line) + 1 + sizeof(more) <= c->warn_size)
                snprintf(c->warn + used, c->warn_size - used, "%s\n", line);
        else if (used + sizeof(more) <= c->warn_size)
                snprintf(c->warn + used, c->warn_size - used, "%s", more);
}

/* "<path>.<key>: <message>" for a member that was read fine but is wrong. */
static int fail_at(struct compiler *c, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(struct compiler *c, const char *key, const char *fmt, ...)
{
        size_t mark = bento_jsonr_push_key(&c->r, key);
        char msg[BENTO_ERR_MSG_MAX];
        va_list ap;
        int r;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        r = bento_jsonr_fail(&c->r, "%s", msg);
        bento_jsonr_pop(&c->r, mark);
        return r;
}

/* action (required) and its errno (optional) from obj[key], obj[errno_key] */
static int read_action(struct compiler *c, const struct bento_json *obj, const char *key,
                       const char *errno_key, uint32_t *ret, char **ret_name)
{
        cleanup_free char *name = NULL;
        uint64_t e = EPERM;
        int64_t a;
        int has_errno;

        JSONR_TRY(bento_jsonr_string(&c->r, obj, key, true, &name));
        a = rt_seccomp_lookup(rt_seccomp_actions, name);
        if (a < 0)
                return fail_at(c, key, "unknown action \"%s\"", name);
        has_errno = bento_jsonr_uint(&c->r, obj, errno_key, false, MAX_ERRNO_RET, &e);
        if (has_errno < 0)
                return has_errno;
        if (has_errno && !rt_seccomp_action_takes_errno((uint32_t) a))
                return fail_at(c, errno_key,
                               "only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take an errno, not %s",
                               name);
        *ret = rt_seccomp_action_takes_errno((uint32_t) a) ? ((uint32_t) a | (uint32_t) e)
                                                           : (uint32_t) a;
        if (ret_name)
                *ret_name = TAKE_PTR(name);
        return 0;
}

static int read_archs(struct compiler *c, const struct bento_json *obj)
{
        struct rt_seccomp *s = c->s;
        size_t mark;
        int r = 0;

        JSONR_TRY(bento_jsonr_strv(&c->r, obj, "architectures", &s->archs, &s->n_archs));
        if (s->n_archs == 0)
                return 0;
        c->m.arch_tokens = calloc(s->n_archs, sizeof(uint32_t));
        if (!c->m.arch_tokens)
                return bento_err_set(c->r.err, ENOMEM, "linux.seccomp");
        mark = bento_jsonr_push_key(&c->r, "architectures");
        for (size_t i = 0; i < s->n_archs && r >= 0; i++) {
                uint32_t token = rt_seccomp_arch_token(s->archs[i]);
                size_t m = bento_jsonr_push_index(&c->r, i);

                if (token == 0)
                        r = bento_jsonr_fail(&c->r, "unknown architecture \"%s\"", s->archs[i]);
                else
                        c->m.arch_tokens[c->m.n_arch_tokens++] = token;
                bento_jsonr_pop(&c->r, m);
        }
        bento_jsonr_pop(&c->r, mark);
        return r;
}

static int read_flags(struct compiler *c, const struct bento_json *obj)
{
        struct rt_seccomp *s = c->s;
        size_t mark;
        int r = 0;

        JSONR_TRY(bento_jsonr_strv(&c->r, obj, "flags", &s->flag_names, &s->n_flags));
        mark = bento_jsonr_push_key(&c->r, "flags");
        for (size_t i = 0; i < s->n_flags && r >= 0; i++) {
                int64_t f = rt_seccomp_lookup(rt_seccomp_flags, s->flag_names[i]);
                size_t m = bento_jsonr_push_index(&c->r, i);

                if (f < 0)
                        r = bento_jsonr_fail(&c->r, "unknown flag \"%s\"", s->flag_names[i]);
                else
                        s->flags |= (unsigned int) f;
                bento_jsonr_pop(&c->r, m);
        }
        bento_jsonr_pop(&c->r, mark);
        return r;
}

/* listenerPath, absolute or relative to the bundle (runc, which runs in the
 * bundle directory, reads a relative one the same way). */
static int read_listener(struct compiler *c, const struct bento_json *obj)
{
        struct rt_seccomp *s = c->s;
        cleanup_free char *given = NULL;
        int r;

        r = bento_jsonr_string(&c->r, obj, "listenerPath", false, &given);
        if (r < 0)
                return r;
        if (r > 0 && given[0] == '\0')
                return fail_at(c, "listenerPath", "must not be empty");
        if (r > 0 && given[0] != '/' && !c->bundle)
                return fail_at(c, "listenerPath", "must be an absolute path, got \"%.200s\"",
                               given);
        if (r > 0 && given[0] != '/') {
                if (asprintf(&s->listener_path, "%s/%s", c->bundle, given) < 0) {
                        s->listener_path = NULL;
                        return bento_err_set(c->r.err, ENOMEM, "linux.seccomp.listenerPath");
                }
        } else {
                s->listener_path = TAKE_PTR(given);
        }
        if (s->listener_path && strlen(s->listener_path) > RT_SECCOMP_LISTENER_MAX)
                return fail_at(c, "listenerPath",
                               "longer than a unix socket address can be (%zu bytes): \"%.200s\"",
                               RT_SECCOMP_LISTENER_MAX, s->listener_path);
        r = bento_jsonr_string(&c->r, obj, "listenerMetadata", false, &s->listener_metadata);
        return r < 0 ? r : 0;
}

/* One element of args[] (the reader's path points at it). */
static int read_condition(struct compiler *c, const struct bento_json *a, struct scmp_arg_cmp *cmp)
{
        cleanup_free char *op = NULL;
        uint64_t index = 0, value = 0, two = 0;
        int64_t o;

        if (a->type != BENTO_JSON_OBJECT)
                return bento_jsonr_fail_type(&c->r, "an object", a);
        JSONR_TRY(bento_jsonr_uint(&c->r, a, "index", true, 5, &index));
        JSONR_TRY(bento_jsonr_uint(&c->r, a, "value", true, UINT64_MAX, &value));
        JSONR_TRY(bento_jsonr_uint(&c->r, a, "valueTwo", false, UINT64_MAX, &two));
        JSONR_TRY(bento_jsonr_string(&c->r, a, "op", true, &op));
        o = rt_seccomp_lookup(rt_seccomp_operators, op);
        if (o < 0)
                return fail_at(c, "op", "unknown operator \"%s\"", op);
        /* for SCMP_CMP_MASKED_EQ value is the mask and valueTwo the
         * expected result, which is libseccomp's order too */
        *cmp = (struct scmp_arg_cmp){.arg = (unsigned int) index,
                                     .op = (enum scmp_compare) o,
                                     .datum_a = value,
                                     .datum_b = two};
        return 0;
}

/* args[] into cmps; *ret_split when an argument index repeats. */
static int read_conditions(struct compiler *c, const struct bento_json *item,
                           struct scmp_arg_cmp *cmps, size_t *ret_n, bool *ret_split)
{
        const struct bento_json *args = NULL;
        unsigned int seen = 0;
        size_t mark;
        int r = 0;

        *ret_n = 0;
        *ret_split = false;
        JSONR_TRY(bento_jsonr_member(&c->r, item, "args", BENTO_JSON_ARRAY, false, &args));
        if (!args)
                return 0;
        mark = bento_jsonr_push_key(&c->r, "args");
        if (args->u.array.n > MAX_CONDITIONS)
                r = bento_jsonr_fail(&c->r, "more than %d conditions", MAX_CONDITIONS);
        for (size_t i = 0; r >= 0 && i < args->u.array.n; i++) {
                size_t m = bento_jsonr_push_index(&c->r, i);

                r = read_condition(c, args->u.array.items[i], &cmps[i]);
                bento_jsonr_pop(&c->r, m);
                if (r >= 0 && (seen & (1U << cmps[i].arg)))
                        *ret_split = true;
                if (r >= 0)
                        seen |= 1U << cmps[i].arg;
        }
        bento_jsonr_pop(&c->r, mark);
        *ret_n = args->u.array.n;
        return r;
}

/* Remember a name libseccomp does not know, once. */
static int skip_name(struct compiler *c, const char *name)
{
        struct rt_seccomp *s = c->s;
        char **v;

        for (size_t i = 0; i < s->n_skipped; i++)
                if (strcmp(s->skipped[i], name) == 0)
                        return 0;
        v = realloc(s->skipped, (s->n_skipped + 1) * sizeof(*v));
        if (!v)
                return bento_err_set(c->r.err, ENOMEM, "linux.seccomp");
        s->skipped = v;
        s->skipped[s->n_skipped] = strdup(name);
        if (!s->skipped[s->n_skipped])
                return bento_err_set(c->r.err, ENOMEM, "linux.seccomp");
        s->n_skipped++;
        warn_line(c, "%s: unknown system call \"%s\" skipped", c->r.path, name);
        return 0;
}

struct rule {
        uint32_t action;
        struct scmp_arg_cmp cmps[MAX_CONDITIONS];
        size_t n_cmps;
        bool split; /* one rule per condition */
};

/* One name of a group: resolve it and remember its number. */
static int add_name(struct compiler *c, struct rt_seccomp_group *g, const char *name)
{
        int nr = seccomp_syscall_resolve_name(name);

        if (nr == __NR_SCMP_ERROR)
                return skip_name(c, name);
        if (g->action == SCMP_ACT_NOTIFY && strcmp(name, "sendmsg") == 0)
                return bento_jsonr_fail(&c->r, "SCMP_ACT_NOTIFY on sendmsg is refused: "
                                               "bento-runtime hands the listener to the agent "
                                               "with sendmsg once the filter is in place");
        g->nrs[g->n_nrs++] = nr;
        c->s->n_rules += g->split ? g->n_cmps : 1;
        return 0;
}

/* A new group in the model for a rule with n names. */
static struct rt_seccomp_group *new_group(struct compiler *c, const struct rule *rule, size_t index,
                                          size_t n)
{
        struct rt_seccomp_model *m = &c->m;
        struct rt_seccomp_group *g;

        g = realloc(m->groups, (m->n_groups + 1) * sizeof(*g));
        if (!g)
                return NULL;
        m->groups = g;
        g = &m->groups[m->n_groups++];
        *g = (struct rt_seccomp_group){
            .index = index, .action = rule->action, .split = rule->split, .n_cmps = rule->n_cmps};
        g->nrs = calloc(n, sizeof(int));
        g->cmps = calloc(rule->n_cmps + 1, sizeof(struct scmp_arg_cmp));
        if (!g->nrs || !g->cmps)
                return NULL;
        memcpy(g->cmps, rule->cmps, rule->n_cmps * sizeof(struct scmp_arg_cmp));
        return g;
}

static int read_names(struct compiler *c, const struct bento_json *item, const struct rule *rule,
                      size_t index)
{
        const struct bento_json *names = NULL;
        struct rt_seccomp_group *g = NULL;
        size_t mark;
        int r = 0;

        JSONR_TRY(bento_jsonr_member(&c->r, item, "names", BENTO_JSON_ARRAY, true, &names));
        /* the default action applies anyway: libseccomp refuses such a
         * rule, so it is dropped after the checks */
        if (rule->action != c->m.default_action) {
                g = new_group(c, rule, index, names->u.array.n);
                if (!g)
                        return bento_err_set(c->r.err, ENOMEM, "linux.seccomp");
        }
        mark = bento_jsonr_push_key(&c->r, "names");
        if (names->u.array.n == 0)
                r = bento_jsonr_fail(&c->r, "must name at least one system call");
        for (size_t i = 0; r >= 0 && i < names->u.array.n; i++) {
                const struct bento_json *n = names->u.array.items[i];
                size_t m = bento_jsonr_push_index(&c->r, i);

                if (n->type != BENTO_JSON_STRING)
                        r = bento_jsonr_fail_type(&c->r, "a string", n);
                else if (g)
                        r = add_name(c, g, n->u.string.s);
                bento_jsonr_pop(&c->r, m);
        }
        bento_jsonr_pop(&c->r, mark);
        return r;
}

static int read_syscall(struct compiler *c, const struct bento_json *item, size_t index)
{
        struct rule rule = {0};

        if (item->type != BENTO_JSON_OBJECT)
                return bento_jsonr_fail_type(&c->r, "an object", item);
        JSONR_TRY(read_action(c, item, "action", "errnoRet", &rule.action, NULL));
        if (rule.action == SCMP_ACT_NOTIFY) {
                c->s->notify = true;
                if (!c->s->listener_path)
                        return fail_at(c, "action",
                                       "SCMP_ACT_NOTIFY needs linux.seccomp.listenerPath");
        }
        JSONR_TRY(read_conditions(c, item, rule.cmps, &rule.n_cmps, &rule.split));
        return read_names(c, item, &rule, index);
}

static int read_syscalls(struct compiler *c, const struct bento_json *obj)
{
        const struct bento_json *arr = NULL;
        size_t mark;
        int r = 0;

        JSONR_TRY(bento_jsonr_member(&c->r, obj, "syscalls", BENTO_JSON_ARRAY, false, &arr));
        if (!arr)
                return 0;
        mark = bento_jsonr_push_key(&c->r, "syscalls");
        for (size_t i = 0; r >= 0 && i < arr->u.array.n; i++) {
                size_t m = bento_jsonr_push_index(&c->r, i);

                r = read_syscall(c, arr->u.array.items[i], i);
                bento_jsonr_pop(&c->r, m);
        }
        bento_jsonr_pop(&c->r, mark);
        return r;
}

static int read_default(struct compiler *c, const struct bento_json *obj)
{
        JSONR_TRY(read_action(c, obj, "defaultAction", "defaultErrnoRet", &c->m.default_action,
                              &c->s->default_action));
        /* every syscall of the init, sendmsg included, would wait for an
         * agent that has not got the listener yet */
        if (c->m.default_action == SCMP_ACT_NOTIFY)
                return fail_at(c, "defaultAction", "SCMP_ACT_NOTIFY cannot be the default action");
        return 0;
}

static int compile(struct compiler *c, const struct bento_json *obj)
{
        if (obj->type != BENTO_JSON_OBJECT)
                return bento_jsonr_fail_type(&c->r, "an object", obj);
        JSONR_TRY(read_default(c, obj));
        JSONR_TRY(read_archs(c, obj));
        JSONR_TRY(read_flags(c, obj));
        JSONR_TRY(read_listener(c, obj));
        JSONR_TRY(read_syscalls(c, obj));
        /* WAIT_KILLABLE_RECV only means something with a listener, and the
         * kernel refuses it without one: harmless to drop then */
        if (!c->s->notify)
                c->s->flags &= ~(unsigned int) SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
        return 0;
}

int rt_seccomp_compile_cached(const struct oci_config *cfg, const char *bundle, int cache_fd,
                              struct rt_seccomp **ret, char *warn, size_t warn_size,
                              struct bento_err *err)
{
        struct compiler c = {.bundle = bundle, .warn = warn, .warn_size = warn_size};
        int r;

        *ret = NULL;
        if (warn_size)
                warn[0] = '\0';
        if (!cfg->linux_.seccomp)
                return 0;
        c.s = calloc(1, sizeof(*c.s));
        if (!c.s)
                return bento_err_set(err, ENOMEM, "linux.seccomp");
        bento_jsonr_init(&c.r, err);
        bento_jsonr_push_key(&c.r, "linux");
        bento_jsonr_push_key(&c.r, "seccomp");
        r = compile(&c, cfg->linux_.seccomp);
        if (r >= 0)
                r = rt_seccomp_generate(&c.m, cache_fd, c.s, err);
        rt_seccomp_model_done(&c.m);
        if (r < 0) {
                rt_seccomp_free(c.s);
                return r;
        }
        *ret = c.s;
        return 0;
}

int rt_seccomp_compile(const struct oci_config *cfg, const char *bundle, struct rt_seccomp **ret,
                       char *warn, size_t warn_size, struct bento_err *err)
{
        return rt_seccomp_compile_cached(cfg, bundle, -1, ret, warn, warn_size, err);
}
