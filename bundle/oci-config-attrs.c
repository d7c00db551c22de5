/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The scheduling and execution attributes of runtime-spec 1.2 in the config
 * model: process.scheduler, process.ioPriority, process.execCPUAffinity,
 * linux.personality and linux.memoryPolicy — their name tables, reading,
 * writing and freeing.  Split from oci-config.c to keep files short; the
 * rules are the same (oci-config.h).  The model checks what runtime-spec
 * says a value may be; whether this kernel can do it is left to the
 * runtime, which has the kernel at hand.
 */
#include "oci-config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idlist.h"
#include "oci-config-internal.h"

/* The kernel's numbers (uapi linux/sched.h, linux/ioprio.h,
 * linux/personality.h, linux/mempolicy.h), spelled out so the model does
 * not depend on the headers of the build machine. */
const struct oci_name_value oci_sched_policies[] = {
    {"SCHED_OTHER", 0}, {"SCHED_FIFO", 1}, {"SCHED_RR", 2},       {"SCHED_BATCH", 3},
    {"SCHED_ISO", 4},   {"SCHED_IDLE", 5}, {"SCHED_DEADLINE", 6}, {NULL, 0},
};

const struct oci_name_value oci_sched_flags[] = {
    {"SCHED_FLAG_RESET_ON_FORK", 0x01},  {"SCHED_FLAG_RECLAIM", 0x02},
    {"SCHED_FLAG_DL_OVERRUN", 0x04},     {"SCHED_FLAG_KEEP_POLICY", 0x08},
    {"SCHED_FLAG_KEEP_PARAMS", 0x10},    {"SCHED_FLAG_UTIL_CLAMP_MIN", 0x20},
    {"SCHED_FLAG_UTIL_CLAMP_MAX", 0x40}, {NULL, 0},
};

const struct oci_name_value oci_ioprio_classes[] = {
    {"IOPRIO_CLASS_RT", 1},
    {"IOPRIO_CLASS_BE", 2},
    {"IOPRIO_CLASS_IDLE", 3},
    {NULL, 0},
};

const struct oci_name_value oci_personality_domains[] = {
    {"LINUX", 0x0000},
    {"LINUX32", 0x0008},
    {NULL, 0},
};

const struct oci_name_value oci_mempolicy_modes[] = {
    {"MPOL_DEFAULT", 0},
    {"MPOL_PREFERRED", 1},
    {"MPOL_BIND", 2},
    {"MPOL_INTERLEAVE", 3},
    {"MPOL_LOCAL", 4},
    {"MPOL_PREFERRED_MANY", 5},
    {"MPOL_WEIGHTED_INTERLEAVE", 6},
    {NULL, 0},
};

const struct oci_name_value oci_mempolicy_flags[] = {
    {"MPOL_F_NUMA_BALANCING", 1ul << 13},
    {"MPOL_F_RELATIVE_NODES", 1ul << 14},
    {"MPOL_F_STATIC_NODES", 1ul << 15},
    {NULL, 0},
};

const char *oci_name_of(const struct oci_name_value *table, unsigned long value)
{
        for (; table->name; table++)
                if (table->value == value)
                        return table->name;
        return NULL;
}

/* ---- reading ------------------------------------------------------------- */

/* "A, B or C" for error messages. */
static void list_names(const struct oci_name_value *table, char *out, size_t size)
{
        size_t o = 0;

        out[0] = '\0';
        for (size_t i = 0; table[i].name && o < size; i++)
                o += (size_t) snprintf(out + o, size - o, "%s%s",
                                       i == 0               ? ""
                                       : !table[i + 1].name ? " or "
                                                            : ", ",
                                       table[i].name);
}

static int lookup(struct bento_jsonr *r, const struct oci_name_value *table, const char *what,
                  const char *name, unsigned long *ret)
{
        char names[256];

        for (const struct oci_name_value *t = table; t->name; t++)
                if (strcmp(t->name, name) == 0) {
                        *ret = t->value;
                        return 0;
                }
        list_names(table, names, sizeof(names));
        return bento_jsonr_fail(r, "unknown %s \"%.64s\" (expected %s)", what, name, names);
}

/* obj[key] as one of the names of table. */
static int conv_name(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                     const struct oci_name_value *table, const char *what, unsigned long *ret)
{
        char *name = NULL;
        size_t mark;
        int k;

        JSONR_TRY(bento_jsonr_string(r, obj, key, true, &name));
        mark = bento_jsonr_push_key(r, key);
        k = lookup(r, table, what, name, ret);
        bento_jsonr_pop(r, mark);
        free(name);
        return k;
}

/* obj[key] as an optional array of names of table, OR-ed together. */
static int conv_flags(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                      const struct oci_name_value *table, const char *what, unsigned long *ret)
{
        char **names = NULL;
        size_t n = 0;
        int k = bento_jsonr_strv(r, obj, key, &names, &n);

        for (size_t i = 0; k > 0 && i < n; i++) {
                unsigned long v = 0;
                size_t mark = bento_jsonr_push_key(r, key);

                bento_jsonr_push_index(r, i);
                if (lookup(r, table, what, names[i], &v) < 0)
                        k = -EINVAL;
                bento_jsonr_pop(r, mark);
                *ret |= v;
        }
        bento_strv_free_n(names, n);
        return k;
}

/* obj[key] as an optional CPU or node list below max. */
static int conv_list(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                     size_t max, const char *what, char **ret)
{
        unsigned long bits[BENTO_IDLIST_WORDS(OCI_MAX_CPUS)];
        unsigned long bad = 0;
        size_t mark;
        int k = bento_jsonr_string(r, obj, key, false, ret);

        if (k <= 0)
                return k;
        k = bento_idlist_parse(*ret, bits, max, &bad);
        if (k == 0)
                return 1;
        mark = bento_jsonr_push_key(r, key);
        if (k == -ERANGE)
                bento_jsonr_fail(r, "%s %lu is past the largest Linux allows (%zu)", what, bad,
                                 max - 1);
        else
                bento_jsonr_fail(r,
                                 "\"%.64s\" is not a %s list (numbers and ranges such as "
                                 "\"0-3,7\"; bad at offset %lu)",
                                 *ret, what, bad);
        bento_jsonr_pop(r, mark);
        return -EINVAL;
}

/* A zeroed allocation of size bytes for the object member at key. */
static void *new_member(struct bento_jsonr *r, const char *key, size_t size)
{
        void *p = calloc(1, size);

        if (!p)
                bento_err_set(r->err, ENOMEM, "%s", key);
        return p;
}

static int conv_scheduler(struct bento_jsonr *r, const struct bento_json *proc,
                          struct oci_scheduler **ret)
{
        const struct bento_json *o = NULL;
        struct oci_scheduler *s;
        int64_t nice = 0, prio = 0;
        size_t mark;
        int k = bento_jsonr_member(r, proc, "scheduler", BENTO_JSON_OBJECT, false, &o);

        if (k <= 0)
                return k;
        *ret = new_member(r, "scheduler", sizeof(**ret));
        if (!*ret)
                return -ENOMEM;
        mark = bento_jsonr_push_key(r, "scheduler");
        s = *ret;
        JSONR_TRY(conv_name(r, o, "policy", oci_sched_policies, "scheduling policy", &s->policy));
        JSONR_TRY(k = bento_jsonr_int(r, o, "nice", false, INT32_MIN, INT32_MAX, &nice));
        if (k > 0 && (nice < -20 || nice > 19)) {
                bento_jsonr_push_key(r, "nice");
                return bento_jsonr_fail(r, "must be between -20 and 19, got %" PRId64, nice);
        }
        s->nice = (int32_t) nice;
        JSONR_TRY(bento_jsonr_int(r, o, "priority", false, INT32_MIN, INT32_MAX, &prio));
        s->priority = (int32_t) prio;
        JSONR_TRY(conv_flags(r, o, "flags", oci_sched_flags, "scheduler flag", &s->flags));
        JSONR_TRY(k = bento_jsonr_uint(r, o, "runtime", false, UINT64_MAX, &s->runtime));
        s->has_runtime = k > 0;
        JSONR_TRY(k = bento_jsonr_uint(r, o, "deadline", false, UINT64_MAX, &s->deadline));
        s->has_deadline = k > 0;
        JSONR_TRY(bento_jsonr_uint(r, o, "period", false, UINT64_MAX, &s->period));
        bento_jsonr_pop(r, mark);
        return 1;
}

static int conv_io_priority(struct bento_jsonr *r, const struct bento_json *proc,
                            struct oci_io_priority **ret)
{
        const struct bento_json *o = NULL;
        struct oci_io_priority *io;
        int64_t prio = 0;
        size_t mark;
        int k = bento_jsonr_member(r, proc, "ioPriority", BENTO_JSON_OBJECT, false, &o);

        if (k <= 0)
                return k;
        *ret = new_member(r, "ioPriority", sizeof(**ret));
        if (!*ret)
                return -ENOMEM;
        mark = bento_jsonr_push_key(r, "ioPriority");
        io = *ret;
        JSONR_TRY(conv_name(r, o, "class", oci_ioprio_classes, "I/O priority class", &io->ioclass));
        /* REQUIRED in runtime-spec, but crun and runc read a missing one as
         * 0, and IOPRIO_CLASS_IDLE has no levels at all */
        JSONR_TRY(k = bento_jsonr_int(r, o, "priority", false, INT32_MIN, INT32_MAX, &prio));
        if (k > 0 && (prio < 0 || prio > 7)) {
                bento_jsonr_push_key(r, "priority");
                return bento_jsonr_fail(r, "must be between 0 and 7, got %" PRId64, prio);
        }
        io->priority = (int32_t) prio;
        bento_jsonr_pop(r, mark);
        return 1;
}

static int conv_cpu_affinity(struct bento_jsonr *r, const struct bento_json *proc,
                             struct oci_cpu_affinity **ret)
{
        const struct bento_json *o = NULL;
        size_t mark;
        int k = bento_jsonr_member(r, proc, "execCPUAffinity", BENTO_JSON_OBJECT, false, &o);

        if (k <= 0)
                return k;
        *ret = new_member(r, "execCPUAffinity", sizeof(**ret));
        if (!*ret)
                return -ENOMEM;
        mark = bento_jsonr_push_key(r, "execCPUAffinity");
        JSONR_TRY(conv_list(r, o, "initial", OCI_MAX_CPUS, "CPU", &(*ret)->initial));
        JSONR_TRY(conv_list(r, o, "final", OCI_MAX_CPUS, "CPU", &(*ret)->final));
        bento_jsonr_pop(r, mark);
        return 1;
}

int oci_conv_process_attrs(struct bento_jsonr *r, const struct bento_json *proc,
                           struct oci_process *p)
{
        JSONR_TRY(conv_scheduler(r, proc, &p->scheduler));
        JSONR_TRY(conv_io_priority(r, proc, &p->io_priority));
        JSONR_TRY(conv_cpu_affinity(r, proc, &p->exec_cpu_affinity));
        return 0;
}

static int conv_personality(struct bento_jsonr *r, const struct bento_json *lnx,
                            struct oci_personality **ret)
{
        const struct bento_json *o = NULL, *flags = NULL;
        size_t mark;
        int k = bento_jsonr_member(r, lnx, "personality", BENTO_JSON_OBJECT, false, &o);

        if (k <= 0)
                return k;
        *ret = new_member(r, "personality", sizeof(**ret));
        if (!*ret)
                return -ENOMEM;
        mark = bento_jsonr_push_key(r, "personality");
        JSONR_TRY(conv_name(r, o, "domain", oci_personality_domains, "personality domain",
                            &(*ret)->domain));
        JSONR_TRY(bento_jsonr_member(r, o, "flags", BENTO_JSON_ARRAY, false, &flags));
        /* runtime-spec 1.2 names no flag; some (ADDR_NO_RANDOMIZE) would
         * weaken the container, so none is taken on trust */
        if (flags && flags->u.array.n > 0) {
                bento_jsonr_push_key(r, "flags");
                bento_jsonr_push_index(r, 0);
                return bento_jsonr_fail(r, "runtime-spec defines no personality flags; "
                                           "refusing to run without it");
        }
        bento_jsonr_pop(r, mark);
        return 1;
}

static int conv_memory_policy(struct bento_jsonr *r, const struct bento_json *lnx,
                              struct oci_memory_policy **ret)
{
        const struct bento_json *o = NULL;
        size_t mark;
        int k = bento_jsonr_member(r, lnx, "memoryPolicy", BENTO_JSON_OBJECT, false, &o);

        if (k <= 0)
                return k;
        *ret = new_member(r, "memoryPolicy", sizeof(**ret));
        if (!*ret)
                return -ENOMEM;
        mark = bento_jsonr_push_key(r, "memoryPolicy");
        JSONR_TRY(
            conv_name(r, o, "mode", oci_mempolicy_modes, "memory policy mode", &(*ret)->mode));
        JSONR_TRY(conv_list(r, o, "nodes", OCI_MAX_NODES, "node", &(*ret)->nodes));
        JSONR_TRY(
            conv_flags(r, o, "flags", oci_mempolicy_flags, "memory policy flag", &(*ret)->flags));
        bento_jsonr_pop(r, mark);
        return 1;
}

int oci_conv_linux_attrs(struct bento_jsonr *r, const struct bento_json *lnx, struct oci_linux *l)
{
        JSONR_TRY(conv_personality(r, lnx, &l->personality));
        JSONR_TRY(conv_memory_policy(r, lnx, &l->memory_policy));
        return 0;
}

/* ---- writing --------------------------------------------------------------- */

static void put_name(struct bento_jsonw *w, const char *key, const struct oci_name_value *table,
                     unsigned long v)
{
        const char *name = oci_name_of(table, v);

        if (!name) {
                bento_jsonw_fail(w, EINVAL, "cannot write %s: value %lu has no name", key, v);
                return;
        }
        bento_jsonw_kstring(w, key, name);
}

static void put_flags(struct bento_jsonw *w, const char *key, const struct oci_name_value *table,
                      unsigned long v)
{
        unsigned long known = 0;

        if (v == 0)
                return;
        for (const struct oci_name_value *t = table; t->name; t++)
                known |= t->value;
        if (v & ~known) {
                bento_jsonw_fail(w, EINVAL, "cannot write %s: unknown bits %#lx", key, v & ~known);
                return;
        }
        bento_jsonw_key(w, key);
        bento_jsonw_open_array(w);
        for (const struct oci_name_value *t = table; t->name; t++)
                if (v & t->value)
                        bento_jsonw_string(w, t->name);
        bento_jsonw_close_array(w);
}

static void put_scheduler(struct bento_jsonw *w, const struct oci_scheduler *s)
{
        bento_jsonw_key(w, "scheduler");
        bento_jsonw_open_object(w);
        put_name(w, "policy", oci_sched_policies, s->policy);
        if (s->nice)
                bento_jsonw_kint(w, "nice", s->nice);
        if (s->priority)
                bento_jsonw_kint(w, "priority", s->priority);
        put_flags(w, "flags", oci_sched_flags, s->flags);
        if (s->has_runtime || s->runtime)
                bento_jsonw_kuint(w, "runtime", s->runtime);
        if (s->has_deadline || s->deadline)
                bento_jsonw_kuint(w, "deadline", s->deadline);
        if (s->period)
                bento_jsonw_kuint(w, "period", s->period);
        bento_jsonw_close_object(w);
}

void oci_write_process_attrs(struct bento_jsonw *w, const struct oci_process *p)
{
        if (p->scheduler)
                put_scheduler(w, p->scheduler);
        if (p->io_priority) {
                bento_jsonw_key(w, "ioPriority");
                bento_jsonw_open_object(w);
                put_name(w, "class", oci_ioprio_classes, p->io_priority->ioclass);
                bento_jsonw_kint(w, "priority", p->io_priority->priority);
                bento_jsonw_close_object(w);
        }
        if (p->exec_cpu_affinity) {
                bento_jsonw_key(w, "execCPUAffinity");
                bento_jsonw_open_object(w);
                bento_jsonw_kstring_opt(w, "initial", p->exec_cpu_affinity->initial);
                bento_jsonw_kstring_opt(w, "final", p->exec_cpu_affinity->final);
                bento_jsonw_close_object(w);
        }
}

void oci_write_linux_attrs(struct bento_jsonw *w, const struct oci_linux *l)
{
        if (l->personality) {
                bento_jsonw_key(w, "personality");
                bento_jsonw_open_object(w);
                put_name(w, "domain", oci_personality_domains, l->personality->domain);
                bento_jsonw_close_object(w);
        }
        if (l->memory_policy) {
                bento_jsonw_key(w, "memoryPolicy");
                bento_jsonw_open_object(w);
                put_name(w, "mode", oci_mempolicy_modes, l->memory_policy->mode);
                bento_jsonw_kstring_opt(w, "nodes", l->memory_policy->nodes);
                put_flags(w, "flags", oci_mempolicy_flags, l->memory_policy->flags);
                bento_jsonw_close_object(w);
        }
}

/* ---- freeing --------------------------------------------------------------- */

void oci_process_attrs_free(struct oci_process *p)
{
        free(p->scheduler);
        free(p->io_priority);
        if (p->exec_cpu_affinity) {
                free(p->exec_cpu_affinity->initial);
                free(p->exec_cpu_affinity->final);
        }
        free(p->exec_cpu_affinity);
}

void oci_linux_attrs_free(struct oci_linux *l)
{
        free(l->personality);
        if (l->memory_policy)
                free(l->memory_policy->nodes);
        free(l->memory_policy);
}
