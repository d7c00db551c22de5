/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inspect's checks of process, linux and hooks against what the compiler
 * (compile-*.c) always writes: every capability set empty,
 * noNewPrivileges, a read-only root, seven fresh namespaces, the caller's
 * own id mapped to itself, no devices or sysctls, the masked /proc paths,
 * a seccomp filter at least as strong as the exec mode the annotations
 * claim, and no hook but bento-egress.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compile/compile.h"
#include "cleanup.h"
#include "inspect.h"
#include "policy/mount-points.h"
#include "manifest/path.h"

#define CLONE_THREAD_BIT 0x10000

static const char *const namespaces[] = {"pid", "network", "ipc", "uts", "mount", "cgroup", "user"};
static const char *const masked[] = {"/proc/acpi", "/proc/asound",        "/proc/kcore",
                                     "/proc/keys", "/proc/latency_stats", "/proc/sched_debug",
                                     "/proc/scsi", "/proc/timer_list",    "/proc/timer_stats"};
static const char *const readonly[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                                       "/proc/sysrq-trigger"};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static bool is_array(const struct bento_json *v)
{
        return v && v->type == BENTO_JSON_ARRAY;
}

static bool str_in(const struct bento_json *arr, const char *want)
{
        for (size_t i = 0; is_array(arr) && i < arr->u.array.n; i++) {
                const struct bento_json *s = arr->u.array.items[i];

                if (s->type == BENTO_JSON_STRING && strcmp(s->u.string.s, want) == 0)
                        return true;
        }
        return false;
}

static int check_caps(struct inspect_report *r)
{
        static const char *const sets[] = {"bounding", "effective", "inheritable", "permitted",
                                           "ambient"};
        const struct bento_json *caps = bento_json_get(r->process, "capabilities");
        int rc = 0;

        if (!caps || caps->type != BENTO_JSON_OBJECT)
                return inspect_flag(r, "process.capabilities is missing, so the runtime picks "
                                       "the capabilities; bento writes every set empty");
        for (size_t i = 0; rc >= 0 && i < N_OF(sets); i++) {
                const struct bento_json *set = bento_json_get(caps, sets[i]);

                if (set && !is_array(set)) {
                        rc = inspect_flag(r, "process.capabilities.%s is not an array", sets[i]);
                        continue;
                }
                for (size_t j = 0; rc >= 0 && set && j < set->u.array.n; j++) {
                        const struct bento_json *c = set->u.array.items[j];

                        rc = inspect_flag(r, "capability %s in the %s set: bento grants none",
                                          c->type == BENTO_JSON_STRING ? c->u.string.s : "?",
                                          sets[i]);
                }
        }
        return rc;
}

int inspect_check_process(struct inspect_report *r)
{
        const struct bento_json *root = bento_json_get(r->doc, "root");
        const struct bento_json *ro = bento_json_get(root, "readonly");
        const struct bento_json *nnp = bento_json_get(r->process, "noNewPrivileges");
        int rc = 0;

        if (!ro || ro->type != BENTO_JSON_BOOL || !ro->u.boolean)
                rc = inspect_flag(r, "root.readonly is not true: the root file system is "
                                     "writable, bento's is always read-only");
        if (!r->process)
                return rc < 0 ? rc : inspect_flag(r, "config.json has no process section");
        if (rc >= 0 && (!nnp || nnp->type != BENTO_JSON_BOOL || !nnp->u.boolean))
                rc = inspect_flag(r, "process.noNewPrivileges is not true: setuid programs "
                                     "could gain privileges");
        if (rc >= 0)
                rc = check_caps(r);
        return rc;
}

static int check_namespaces(struct inspect_report *r)
{
        const struct bento_json *ns = bento_json_get(r->linux_, "namespaces");
        int rc = 0;

        for (size_t i = 0; rc >= 0 && i < N_OF(namespaces); i++) {
                bool found = false;

                for (size_t j = 0; is_array(ns) && j < ns->u.array.n; j++) {
                        const struct bento_json *e = ns->u.array.items[j];
                        const char *type = inspect_str(e, "type");
                        const char *path = inspect_str(e, "path");

                        if (!type || strcmp(type, namespaces[i]) != 0)
                                continue;
                        found = true;
                        if (path && *path)
                                rc = inspect_flag(r,
                                                  "the %s namespace joins \"%s\" instead of "
                                                  "being fresh",
                                                  namespaces[i], path);
                        else if (strcmp(namespaces[i], "network") == 0)
                                r->netns = true;
                }
                if (!found && rc >= 0)
                        rc = inspect_flag(r, "no %s namespace: the sandbox would share the host's",
                                          namespaces[i]);
        }
        return rc;
}

static int check_maps(struct inspect_report *r, const char *key)
{
        const struct bento_json *maps = bento_json_get(r->linux_, key);
        int rc = 0;

        if (!is_array(maps) || maps->u.array.n == 0)
                return inspect_flag(r,
                                    "linux.%s is missing: bento maps the caller's own id "
                                    "and nothing else",
                                    key);
        for (size_t i = 0; rc >= 0 && i < maps->u.array.n; i++) {
                const struct bento_json *e = maps->u.array.items[i];
                const struct bento_json *c = bento_json_get(e, "containerID");
                const struct bento_json *h = bento_json_get(e, "hostID");
                const struct bento_json *s = bento_json_get(e, "size");

                if (!c || !h || !s || c->type != BENTO_JSON_NUMBER ||
                    h->type != BENTO_JSON_NUMBER || s->type != BENTO_JSON_NUMBER ||
                    strcmp(c->u.number.text, h->u.number.text) != 0 ||
                    strcmp(s->u.number.text, "1") != 0)
                        rc = inspect_flag(r,
                                          "linux.%s[%zu] maps more than the caller's own id to "
                                          "itself",
                                          key, i);
        }
        return rc;
}

static int check_paths(struct inspect_report *r, const char *key, const char *const *want, size_t n)
{
        const struct bento_json *v = bento_json_get(r->linux_, key);
        int rc = 0;

        for (size_t i = 0; rc >= 0 && i < n; i++)
                if (!str_in(v, want[i]))
                        rc = inspect_flag(
                            r, "linux.%s lacks \"%s\", which bento always %s", key, want[i],
                            strcmp(key, "maskedPaths") == 0 ? "masks" : "makes read-only");
        return rc;
}

static int check_extras(struct inspect_report *r)
{
        const struct bento_json *dev = bento_json_get(r->linux_, "devices");
        const struct bento_json *sysctl = bento_json_get(r->linux_, "sysctl");
        const struct bento_json *res = bento_json_get(r->linux_, "resources");
        const struct bento_json *rdev = bento_json_get(res, "devices");
        int rc = 0;

        for (size_t i = 0; is_array(dev) && rc >= 0 && i < dev->u.array.n; i++) {
                const char *p = inspect_str(dev->u.array.items[i], "path");

                rc = inspect_flag(r, "device %s is created in the container: bento adds none",
                                  p ? p : "(no path)");
        }
        for (size_t i = 0; is_array(rdev) && rc >= 0 && i < rdev->u.array.n; i++) {
                const struct bento_json *allow = bento_json_get(rdev->u.array.items[i], "allow");

                if (allow && allow->type == BENTO_JSON_BOOL && allow->u.boolean)
                        rc = inspect_flag(r,
                                          "linux.resources.devices[%zu] allows device "
                                          "access: bento writes no device rule",
                                          i);
        }
        if (rc >= 0 && sysctl && sysctl->type == BENTO_JSON_OBJECT && sysctl->u.object.n > 0)
                rc = inspect_flag(r, "linux.sysctl sets %zu kernel parameter(s): bento sets none",
                                  sysctl->u.object.n);
        return rc;
}

/* Is name refused unconditionally by the filter? */
static bool blocked(const struct bento_json *sc, const char *name, const char **how)
{
        const char *def = inspect_str(sc, "defaultAction");
        const struct bento_json *rules = bento_json_get(sc, "syscalls");
        bool allowed_by_rule = false;

        for (size_t i = 0; is_array(rules) && i < rules->u.array.n; i++) {
                const struct bento_json *rule = rules->u.array.items[i];
                const struct bento_json *args = bento_json_get(rule, "args");
                const char *action = inspect_str(rule, "action");

                if (!action || !str_in(bento_json_get(rule, "names"), name))
                        continue;
                if (strcmp(action, "SCMP_ACT_ALLOW") == 0 || strcmp(action, "SCMP_ACT_LOG") == 0) {
                        allowed_by_rule = true;
                        continue;
                }
                if (is_array(args) && args->u.array.n > 0)
                        continue;
                if (how)
                        *how = action;
                return true;
        }
        if (def && strcmp(def, "SCMP_ACT_ALLOW") != 0 && strcmp(def, "SCMP_ACT_LOG") != 0 &&
            !allowed_by_rule) {
                if (how)
                        *how = def;
                return true;
        }
        return false;
}

/* clone without CLONE_THREAD refused: the rule the compiler writes, or an
 * unconditional block (stricter still). */
static bool clone_blocked(const struct bento_json *sc)
{
        const struct bento_json *rules = bento_json_get(sc, "syscalls");

        if (blocked(sc, "clone", NULL))
                return true;
        for (size_t i = 0; is_array(rules) && i < rules->u.array.n; i++) {
                const struct bento_json *rule = rules->u.array.items[i];
                const struct bento_json *args = bento_json_get(rule, "args");
                const struct bento_json *a =
                    is_array(args) && args->u.array.n == 1 ? args->u.array.items[0] : NULL;
                const struct bento_json *idx = bento_json_get(a, "index");
                const struct bento_json *val = bento_json_get(a, "value");
                const struct bento_json *two = bento_json_get(a, "valueTwo");
                const char *op = inspect_str(a, "op");
                const char *action = inspect_str(rule, "action");

                if (!str_in(bento_json_get(rule, "names"), "clone") || !action ||
                    strcmp(action, "SCMP_ACT_ALLOW") == 0 || !op ||
                    strcmp(op, "SCMP_CMP_MASKED_EQ") != 0 || !idx || !val ||
                    idx->type != BENTO_JSON_NUMBER || val->type != BENTO_JSON_NUMBER ||
                    !idx->u.number.fits_u64 || !val->u.number.fits_u64)
                        continue;
                if (idx->u.number.u == 0 && val->u.number.u == CLONE_THREAD_BIT &&
                    (!two || (two->type == BENTO_JSON_NUMBER && two->u.number.fits_u64 &&
                              two->u.number.u == 0)))
                        return true;
        }
        return false;
}

static int check_seccomp(struct inspect_report *r)
{
        const struct bento_json *sc = bento_json_get(r->linux_, "seccomp");
        const char *claim = inspect_annotation(r, "org.bento.exec");
        const char *how = NULL;
        int rc = 0;

        r->exec = "all";
        r->exec_how = "no seccomp rule refuses execve";
        if (!sc || sc->type != BENTO_JSON_OBJECT) {
                r->exec_how = "no seccomp filter at all";
                rc = inspect_flag(r, "linux.seccomp is missing: bento always installs a filter "
                                     "(foreign architectures are killed)");
        } else {
                bool exec_blocked = blocked(sc, "execve", &how) && blocked(sc, "execveat", NULL);
                bool strict = exec_blocked && blocked(sc, "fork", NULL) &&
                              blocked(sc, "vfork", NULL) && blocked(sc, "clone3", NULL) &&
                              clone_blocked(sc);

                r->seccomp = true;
                r->listener = inspect_str(sc, "listenerPath");
                if (blocked(sc, "execve", NULL) && !blocked(sc, "execveat", NULL))
                        rc = inspect_flag(r, "seccomp blocks execve but not execveat: a "
                                             "program can still exec through execveat");
                if (exec_blocked) {
                        r->exec = strict ? "none-strict" : "none";
                        r->exec_how = how && strcmp(how, "SCMP_ACT_NOTIFY") == 0
                                          ? "execve and execveat go to the exec gate (seccomp "
                                            "notify), which refuses every exec after the first"
                                          : "execve and execveat are refused by the filter";
                }
        }
        if (rc >= 0 && claim && strcmp(claim, "none-strict") == 0 &&
            strcmp(r->exec, "none-strict") != 0)
                rc = inspect_flag(r,
                                  "the annotations claim exec: none-strict, but the seccomp "
                                  "filter allows %s",
                                  strcmp(r->exec, "none") == 0 ? "fork, vfork or clone"
                                                               : "execve or execveat");
        else if (rc >= 0 && claim && strcmp(claim, "none") == 0 && strcmp(r->exec, "all") == 0)
                rc = inspect_flag(r, "the annotations claim exec: none, but the seccomp filter "
                                     "allows execve or execveat");
        return rc;
}

int inspect_check_linux(struct inspect_report *r)
{
        int rc;

        if (!r->linux_) {
                r->exec = "all";
                r->exec_how = "no seccomp filter at all";
                return inspect_flag(r, "config.json has no linux section: no namespaces, no "
                                       "seccomp filter");
        }
        rc = check_namespaces(r);
        if (rc >= 0)
                rc = check_maps(r, "uidMappings");
        if (rc >= 0)
                rc = check_maps(r, "gidMappings");
        if (rc >= 0)
                rc = check_extras(r);
        if (rc >= 0)
                rc = check_paths(r, "maskedPaths", masked, N_OF(masked));
        if (rc >= 0)
                rc = check_paths(r, "readonlyPaths", readonly, N_OF(readonly));
        if (rc >= 0)
                rc = check_seccomp(r);
        return rc;
}

/* The --allow host:port pairs of a bento-egress hook. */
static int egress_args(struct inspect_report *r, const struct bento_json *args)
{
        for (size_t i = 0; is_array(args) && i + 1 < args->u.array.n; i++) {
                const struct bento_json *a = args->u.array.items[i];
                const struct bento_json *v = args->u.array.items[i + 1];
                const char **e;

                if (a->type != BENTO_JSON_STRING || strcmp(a->u.string.s, "--allow") != 0 ||
                    v->type != BENTO_JSON_STRING)
                        continue;
                e = reallocarray(r->egress, r->n_egress + 1, sizeof(char *));
                if (!e)
                        return -ENOMEM;
                r->egress = e;
                e[r->n_egress++] = v->u.string.s;
        }
        return 0;
}

static bool in_write_grant(const struct inspect_report *r, const char *path)
{
        for (size_t j = 0; j < r->n_mounts; j++)
                if (r->mounts[j].role == INSPECT_WRITE &&
                    path_within(r->mounts[j].destination, path))
                        return true;
        return false;
}

/* The hook's arguments after the verb, checked as the hook parses them:
 * groups of --beneath GRANT DEV:INO PATH... (policy/mount-points.h), each grant
 * inside a write grant of the bundle. */
static int cleanup_args(struct inspect_report *r, const struct bento_json *args)
{
        size_t n = args->u.array.n - 2;
        cleanup_free const char **argv = calloc(n + 1, sizeof(char *));
        struct mount_points mp = {0};
        struct bento_err err = {0};
        int rc = 0;

        if (!argv)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const struct bento_json *a = args->u.array.items[i + 2];

                argv[i] = a->type == BENTO_JSON_STRING ? a->u.string.s : "";
        }
        if (mount_points_parse(argv, n, &mp, &err) < 0)
                return err.code == ENOMEM ? -ENOMEM
                                          : inspect_flag(r,
                                                         "the poststop cleanup hook's arguments "
                                                         "are not what bento writes: %s",
                                                         err.msg);
        r->n_cleanup = mp.n;
        for (size_t i = 0; rc >= 0 && i < mp.n; i++)
                if (!in_write_grant(r, mp.v[i].grant))
                        rc = inspect_flag(r,
                                          "the poststop cleanup hook removes \"%s\", which is not "
                                          "inside any write grant",
                                          mp.v[i].path);
        mount_points_done(&mp);
        return rc;
}

/* translate's poststop hook (`bento __remove-mount-points --beneath GRANT
 * DEV:INO PATH...`) removes the shield mount points the runtime created,
 * which all lie inside write grants (docs/manifest.md, "CREDENTIAL SHIELDS").  1 when h is that
 * hook, 0 when not, -ENOMEM. */
static int cleanup_hook(struct inspect_report *r, const char *stage, const struct bento_json *h)
{
        const char *path = inspect_str(h, "path");
        const char *base = path ? strrchr(path, '/') : NULL;
        const struct bento_json *args = bento_json_get(h, "args");
        const struct bento_json *verb =
            is_array(args) && args->u.array.n > 1 ? args->u.array.items[1] : NULL;
        int rc;

        if (strcmp(stage, "poststop") != 0 || !base || strcmp(base, "/bento") != 0 || !verb ||
            verb->type != BENTO_JSON_STRING || strcmp(verb->u.string.s, COMPILE_CLEANUP_VERB) != 0)
                return 0;
        rc = cleanup_args(r, args);
        return rc < 0 ? rc : 1;
}

int inspect_check_hooks(struct inspect_report *r)
{
        const struct bento_json *hooks = bento_json_get(r->doc, "hooks");
        int rc = 0;

        if (!hooks)
                return 0;
        if (hooks->type != BENTO_JSON_OBJECT)
                return inspect_flag(r, "hooks is not an object");
        for (size_t i = 0; rc >= 0 && i < hooks->u.object.n; i++) {
                const char *stage = hooks->u.object.keys[i];
                const struct bento_json *list = hooks->u.object.values[i];

                for (size_t j = 0; rc >= 0 && is_array(list) && j < list->u.array.n; j++) {
                        const struct bento_json *h = list->u.array.items[j];
                        const char *path = inspect_str(h, "path");
                        const char *base = path ? strrchr(path, '/') : NULL;

                        if (strcmp(stage, "createRuntime") == 0 && base &&
                            strcmp(base, "/bento-egress") == 0) {
                                rc = egress_args(r, bento_json_get(h, "args"));
                                continue;
                        }
                        rc = cleanup_hook(r, stage, h);
                        if (rc == 0)
                                rc =
                                    inspect_flag(r,
                                                 "%s hook \"%s\" runs on the host: bento writes "
                                                 "no hook but bento-egress and its own mount-point "
                                                 "cleanup",
                                                 stage, path ? path : "(no path)");
                }
        }
        return rc;
}
