/* SPDX-License-Identifier: Apache-2.0 */
/*
 * process.landlock (see landlock.h).  One walker reads the object for both
 * jobs: `create` validates the shape against the JSON paths, and the init
 * walks it again right before execve() to build and enforce the ruleset.
 * Access rights are matched by name against the table below, which also
 * records the Landlock ABI that introduced each right: with best effort on
 * (the default) rights the running kernel lacks are dropped from the
 * handled and allowed sets; with "disableBestEffort": true they are an
 * error.  The kernel's structures are declared here rather than taken from
 * <linux/landlock.h>, whose copy on older build hosts lacks later ABIs.
 */
#include "landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "jsonr.h"
#include "landlock-abi.h"

struct ll_right {
        const char *name;
        uint64_t bit;
        int abi; /* first ABI that knows the right */
};

enum ll_kind { LL_FS, LL_NET, _LL_KIND_MAX };

static const struct ll_right fs_rights[] = {{"execute", 1ULL << 0, 1},
                                            {"write_file", 1ULL << 1, 1},
                                            {"read_file", 1ULL << 2, 1},
                                            {"read_dir", 1ULL << 3, 1},
                                            {"remove_dir", 1ULL << 4, 1},
                                            {"remove_file", 1ULL << 5, 1},
                                            {"make_char", 1ULL << 6, 1},
                                            {"make_dir", 1ULL << 7, 1},
                                            {"make_reg", 1ULL << 8, 1},
                                            {"make_sock", 1ULL << 9, 1},
                                            {"make_fifo", 1ULL << 10, 1},
                                            {"make_block", 1ULL << 11, 1},
                                            {"make_sym", 1ULL << 12, 1},
                                            {"refer", 1ULL << 13, 2},
                                            {"truncate", 1ULL << 14, 3},
                                            {"ioctl_dev", 1ULL << 15, 5},
                                            {NULL, 0, 0}};

static const struct ll_right net_rights[] = {
    {"bind_tcp", 1ULL << 0, 4}, {"connect_tcp", 1ULL << 1, 4}, {NULL, 0, 0}};

static const struct ll_right *const rights[_LL_KIND_MAX] = {fs_rights, net_rights};
static const char *const handled_keys[_LL_KIND_MAX] = {"handledAccessFS", "handledAccessNetwork"};

/* The rights the kernel accepts on a path that is not a directory:
 * execute, write_file, read_file, truncate, ioctl_dev. */
#define LL_FS_FILE_RIGHTS ((1ULL << 0) | (1ULL << 1) | (1ULL << 2) | (1ULL << 14) | (1ULL << 15))

struct ll_walk {
        struct bento_jsonr r;
        bool best_effort;
        int abi;
        uint64_t handled[_LL_KIND_MAX];   /* as requested */
        uint64_t supported[_LL_KIND_MAX]; /* known to the running kernel */
        int ruleset_fd;                   /* -1 while only validating */
};

int rt_landlock_abi(void)
{
        long abi = bento_landlock_query(BENTO_LL_CREATE_RULESET_VERSION);

        return abi > 0 ? (int) abi : 0;
}

static uint64_t supported_mask(enum ll_kind kind, int abi)
{
        uint64_t mask = 0;

        for (const struct ll_right *x = rights[kind]; x->name; x++)
                if (x->abi <= abi)
                        mask |= x->bit;
        return mask;
}

static const struct ll_right *right_by_name(enum ll_kind kind, const char *name)
{
        for (const struct ll_right *x = rights[kind]; x->name; x++)
                if (strcmp(x->name, name) == 0)
                        return x;
        return NULL;
}

/* obj[key]: a non-empty array of right names, as a mask.  With `within`
 * (the handled set, for a rule's allowedAccess), each name must be in it. */
static int read_rights(struct ll_walk *w, const struct bento_json *obj, const char *key,
                       enum ll_kind kind, const uint64_t *within, uint64_t *ret)
{
        const struct bento_json *arr = NULL;
        size_t mark;
        uint64_t mask = 0;
        int r;

        r = bento_jsonr_member(&w->r, obj, key, BENTO_JSON_ARRAY, within != NULL, &arr);
        if (r <= 0)
                return r;
        mark = bento_jsonr_push_key(&w->r, key);
        if (arr->u.array.n == 0) {
                r = bento_jsonr_fail(&w->r, "must list at least one access right");
                bento_jsonr_pop(&w->r, mark);
                return r;
        }
        for (size_t i = 0; i < arr->u.array.n && r >= 0; i++) {
                const struct bento_json *v = arr->u.array.items[i];
                size_t m = bento_jsonr_push_index(&w->r, i);
                const struct ll_right *x = NULL;

                if (v->type != BENTO_JSON_STRING)
                        r = bento_jsonr_fail_type(&w->r, "an access right name", v);
                else if (!(x = right_by_name(kind, v->u.string.s)))
                        r = bento_jsonr_fail(&w->r, "unknown %s access right \"%s\"",
                                             kind == LL_FS ? "filesystem" : "network",
                                             v->u.string.s);
                else if (within && !(*within & x->bit))
                        r = bento_jsonr_fail(&w->r, "\"%s\" is not listed in handledAccess.%s",
                                             x->name, handled_keys[kind]);
                else
                        mask |= x->bit;
                bento_jsonr_pop(&w->r, m);
        }
        bento_jsonr_pop(&w->r, mark);
        if (r < 0)
                return r;
        *ret = mask;
        return 1;
}

/* Without best effort, every requested right must exist in this kernel. */
static int check_supported(struct ll_walk *w, enum ll_kind kind, uint64_t mask)
{
        uint64_t missing = mask & ~w->supported[kind];

        if (w->best_effort || !missing)
                return 0;
        if (w->abi == 0)
                return bento_jsonr_fail(&w->r, "Landlock is not available in this kernel and "
                                               "disableBestEffort is true");
        for (const struct ll_right *x = rights[kind]; x->name; x++)
                if (missing & x->bit)
                        return bento_jsonr_fail(&w->r,
                                                "access right \"%s\" needs Landlock ABI %d, the "
                                                "kernel has ABI %d (disableBestEffort is true)",
                                                x->name, x->abi, w->abi);
        return 0;
}

static int read_handled(struct ll_walk *w, const struct bento_json *ll)
{
        const struct bento_json *h = NULL;
        size_t mark;
        int r;

        r = bento_jsonr_member(&w->r, ll, "handledAccess", BENTO_JSON_OBJECT, true, &h);
        if (r < 0)
                return r;
        mark = bento_jsonr_push_key(&w->r, "handledAccess");
        for (int k = 0; k < _LL_KIND_MAX && r >= 0; k++) {
                r = read_rights(w, h, handled_keys[k], (enum ll_kind) k, NULL, &w->handled[k]);
                if (r > 0)
                        r = check_supported(w, (enum ll_kind) k, w->handled[k]);
        }
        if (r >= 0 && !w->handled[LL_FS] && !w->handled[LL_NET])
                r = bento_jsonr_fail(&w->r, "handles no access right: list some in "
                                            "handledAccessFS or handledAccessNetwork");
        bento_jsonr_pop(&w->r, mark);
        return r < 0 ? r : 0;
}

/* The rights of one rule: known, handled, and (once dropped to what the
 * kernel has) returned as the mask to grant. */
static int rule_rights(struct ll_walk *w, const struct bento_json *rule, enum ll_kind kind,
                       uint64_t *ret)
{
        uint64_t allowed = 0;
        int r;

        r = read_rights(w, rule, "allowedAccess", kind, &w->handled[kind], &allowed);
        if (r < 0)
                return r;
        *ret = allowed & w->handled[kind] & w->supported[kind];
        return 0;
}

/* Grant `allowed` beneath one path (in the container's view). */
static int add_path(struct ll_walk *w, const char *path, uint64_t allowed)
{
        uint64_t granted = allowed;
        /* a directory, told by O_DIRECTORY rather than a stat: the rules
         * are mostly on directories */
        cleanup_close int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        bool dir = fd >= 0;

        if (fd < 0 && errno == ENOTDIR)
                fd = open(path, O_PATH | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT && w->best_effort)
                return 0; /* a rule on nothing grants nothing: skipping is stricter */
        if (fd < 0)
                return bento_err_set(w->r.err, errno, "%s: cannot open \"%s\"", w->r.path, path);
        /* directory-only rights mean nothing on a file, and the kernel
         * rejects them there */
        if (!dir)
                granted &= LL_FS_FILE_RIGHTS;
        if (!granted)
                return 0;
        if (bento_landlock_add_path(w->ruleset_fd, granted, fd) < 0)
                return bento_err_set(w->r.err, errno, "%s: cannot add a rule for \"%s\"", w->r.path,
                                     path);
        return 0;
}

static int path_rule(struct ll_walk *w, const struct bento_json *rule)
{
        const struct bento_json *paths = NULL;
        uint64_t allowed = 0;
        size_t mark;
        int r;

        r = rule_rights(w, rule, LL_FS, &allowed);
        if (r >= 0)
                r = bento_jsonr_member(&w->r, rule, "paths", BENTO_JSON_ARRAY, true, &paths);
        if (r < 0)
                return r;
        mark = bento_jsonr_push_key(&w->r, "paths");
        for (size_t i = 0; i < paths->u.array.n && r >= 0; i++) {
                const struct bento_json *v = paths->u.array.items[i];
                size_t m = bento_jsonr_push_index(&w->r, i);

                if (v->type != BENTO_JSON_STRING || v->u.string.s[0] != '/')
                        r = bento_jsonr_fail_type(&w->r, "an absolute path", v);
                else if (w->ruleset_fd >= 0 && allowed)
                        r = add_path(w, v->u.string.s, allowed);
                bento_jsonr_pop(&w->r, m);
        }
        bento_jsonr_pop(&w->r, mark);
        return r;
}

static int port_rule(struct ll_walk *w, const struct bento_json *rule)
{
        const struct bento_json *ports = NULL;
        uint64_t allowed = 0, port = 0;
        size_t mark;
        int r;

        r = rule_rights(w, rule, LL_NET, &allowed);
        if (r >= 0)
                r = bento_jsonr_member(&w->r, rule, "ports", BENTO_JSON_ARRAY, true, &ports);
        if (r < 0)
                return r;
        mark = bento_jsonr_push_key(&w->r, "ports");
        for (size_t i = 0; i < ports->u.array.n && r >= 0; i++) {
                size_t m = bento_jsonr_push_index(&w->r, i);

                r = bento_jsonr_uint_value(&w->r, ports->u.array.items[i], 65535, &port);
                if (r >= 0 && w->ruleset_fd >= 0 && allowed &&
                    bento_landlock_add_port(w->ruleset_fd, allowed, port) < 0)
                        r = bento_err_set(w->r.err, errno, "%s: cannot add a rule for port %llu",
                                          w->r.path, (unsigned long long) port);
                bento_jsonr_pop(&w->r, m);
        }
        bento_jsonr_pop(&w->r, mark);
        return r;
}

typedef int (*rule_fn)(struct ll_walk *w, const struct bento_json *rule);

/* rules.<key>: an optional array of rule objects. */
static int walk_rules(struct ll_walk *w, const struct bento_json *rules, const char *key,
                      rule_fn fn)
{
        const struct bento_json *arr = NULL;
        size_t mark;
        int r;

        r = bento_jsonr_member(&w->r, rules, key, BENTO_JSON_ARRAY, false, &arr);
        if (r <= 0)
                return r;
        mark = bento_jsonr_push_key(&w->r, key);
        for (size_t i = 0; i < arr->u.array.n && r >= 0; i++) {
                const struct bento_json *rule = arr->u.array.items[i];
                size_t m = bento_jsonr_push_index(&w->r, i);

                if (rule->type != BENTO_JSON_OBJECT)
                        r = bento_jsonr_fail_type(&w->r, "an object", rule);
                else
                        r = fn(w, rule);
                bento_jsonr_pop(&w->r, m);
        }
        bento_jsonr_pop(&w->r, mark);
        return r;
}

/* Read (and, with a ruleset fd, apply) everything under process.landlock. */
static int walk(struct ll_walk *w, const struct bento_json *ll, bool apply)
{
        const struct bento_json *rules = NULL;
        struct bento_ll_ruleset_attr attr = {0};
        bool disable = false;
        size_t mark;
        int r;

        r = bento_jsonr_bool(&w->r, ll, "disableBestEffort", &disable);
        if (r < 0)
                return r;
        w->best_effort = !disable;
        w->abi = rt_landlock_abi();
        for (int k = 0; k < _LL_KIND_MAX; k++)
                w->supported[k] = supported_mask((enum ll_kind) k, w->abi);
        r = read_handled(w, ll);
        if (r < 0)
                return r;
        attr.handled_access_fs = w->handled[LL_FS] & w->supported[LL_FS];
        attr.handled_access_net = w->handled[LL_NET] & w->supported[LL_NET];
        /* best effort on a kernel that handles none of it: nothing to do */
        if (apply && (attr.handled_access_fs || attr.handled_access_net)) {
                /* no scope: the two members up to handled_access_net */
                w->ruleset_fd = bento_landlock_create(&attr, BENTO_LL_RULESET_SIZE_NET);
                if (w->ruleset_fd < 0)
                        return bento_err_set(w->r.err, errno, "%s: cannot create the ruleset",
                                             w->r.path);
        }
        r = bento_jsonr_member(&w->r, ll, "rules", BENTO_JSON_OBJECT, false, &rules);
        if (r <= 0)
                return r;
        mark = bento_jsonr_push_key(&w->r, "rules");
        r = walk_rules(w, rules, "pathBeneath", path_rule);
        if (r >= 0)
                r = walk_rules(w, rules, "networkPort", port_rule);
        bento_jsonr_pop(&w->r, mark);
        return r;
}

static void walk_init(struct ll_walk *w, struct bento_err *err)
{
        memset(w, 0, sizeof(*w));
        w->ruleset_fd = -1;
        bento_jsonr_init(&w->r, err);
        (void) bento_jsonr_push_key(&w->r, "process");
        (void) bento_jsonr_push_key(&w->r, "landlock");
}

int rt_landlock_validate(const struct oci_process *proc, struct bento_err *err)
{
        struct ll_walk w;

        if (!proc || !proc->landlock)
                return 0;
        /* landlock_restrict_self needs no_new_privs (or CAP_SYS_ADMIN, which
         * the target should not keep for this) */
        if (!proc->no_new_privileges)
                return bento_err_setx(err, EINVAL,
                                      "process.landlock: needs process.noNewPrivileges "
                                      "to be true");
        walk_init(&w, err);
        return walk(&w, proc->landlock, false);
}

int rt_landlock_apply(const struct bento_json *landlock, struct bento_err *err)
{
        struct ll_walk w;
        int r;

        if (!landlock)
                return 0;
        walk_init(&w, err);
        r = walk(&w, landlock, true);
        if (r >= 0 && w.ruleset_fd >= 0 && bento_landlock_restrict(w.ruleset_fd) < 0)
                r = bento_err_set(err, errno, "process.landlock: cannot enforce the ruleset");
        if (w.ruleset_fd >= 0)
                close(w.ruleset_fd);
        return r < 0 ? r : 0;
}

/* Append the names of the rights in mask to arr (NULL stays NULL). */
static struct bento_json *add_names(struct bento_json *arr, enum ll_kind kind, uint64_t mask)
{
        for (const struct ll_right *x = rights[kind]; arr && x->name; x++)
                if ((mask & x->bit) &&
                    bento_json_array_append(arr, bento_json_new_string(x->name)) < 0)
                        return bento_json_free(arr);
        return arr;
}

struct bento_json *rt_landlock_describe(const struct bento_json *landlock)
{
        struct bento_json *obj = bento_json_new_object();
        struct bento_err ignored;
        struct ll_walk w;
        int r = obj ? 0 : -ENOMEM;

        if (r >= 0)
                r = bento_json_object_set(obj, "requested", bento_json_new_bool(landlock != NULL));
        if (r >= 0)
                r = bento_json_object_set(obj, "abi", bento_json_new_int(rt_landlock_abi()));
        if (r >= 0 && landlock) {
                walk_init(&w, &ignored);
                if (walk(&w, landlock, false) < 0)
                        return obj;
                r = bento_json_object_set(obj, "bestEffort", bento_json_new_bool(w.best_effort));
                for (int k = 0; k < _LL_KIND_MAX && r >= 0; k++)
                        r = bento_json_object_set(obj, handled_keys[k],
                                                  add_names(bento_json_new_array(),
                                                            (enum ll_kind) k,
                                                            w.handled[k] & w.supported[k]));
                /* what this kernel cannot enforce (dropped: best effort) */
                if (r >= 0)
                        r = bento_json_object_set(
                            obj, "unsupported",
                            add_names(add_names(bento_json_new_array(), LL_FS,
                                                w.handled[LL_FS] & ~w.supported[LL_FS]),
                                      LL_NET, w.handled[LL_NET] & ~w.supported[LL_NET]));
        }
        return r < 0 ? bento_json_free(obj) : obj;
}
