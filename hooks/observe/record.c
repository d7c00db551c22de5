/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: one system call into report lines (tracee.h).  At the
 * seccomp stop the paths are read out of the tracee and anchored; the
 * lines wait in the tracee's record until the exit stop gives the result.
 * A path or sockaddr that cannot be read, or a dirfd that is not a
 * directory's path, is reported at once as a dropped access.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "tracee.h"

static void add_line(struct obs_tracee *t, const char *verb, const char *fixed, bool probe,
                     int path)
{
        t->lines[t->n_lines++] = (struct obs_line){verb, fixed, probe, path};
}

/* Whether an empty path names the dirfd itself (AT_EMPTY_PATH) rather than
 * failing with ENOENT. */
static bool empty_names_fd(const struct obs_syscall *sc, const uint64_t *args)
{
        if (sc->kind == OBS_OPEN || sc->kind == OBS_OPEN_HOW || sc->flags == OBS_NO_ARG)
                return false;
        return (args[sc->flags] & AT_EMPTY_PATH) != 0;
}

/* Path number which (0 or 1) of the call into t->path[which].  Returns 1
 * when decoded, 0 when it names nothing (an empty path the kernel refuses),
 * or -1 after a dropped line. */
static int decode_path(struct obs_tracee *t, const struct obs_syscall *sc, const uint64_t *args,
                       int which, struct obs_report *r)
{
        int p = which ? sc->path2 : sc->path, d = which ? sc->dirfd2 : sc->dirfd;
        char rel[PATH_MAX];

        if (p == OBS_NO_ARG || (args[p] == 0 && sc->fd_if_null))
                rel[0] = '\0';
        else if (obs_read_path(t->pid, args[p], rel) < 0) {
                obs_report_line(r, "dropped", sc->name, "unreadable-path");
                return -1;
        } else if (rel[0] == '\0' && !empty_names_fd(sc, args))
                return 0;
        if (obs_anchor(t->pid, d == OBS_NO_ARG ? AT_FDCWD : (long long) args[d], d != OBS_NO_ARG,
                       rel, t->path[which]) < 0) {
                obs_report_line(r, "dropped", sc->name, "unreadable-dirfd");
                return -1;
        }
        return 1;
}

/* connect/bind: only an AF_UNIX path names a file; an abstract or unnamed
 * address does not. */
static bool decode_sockaddr(struct obs_tracee *t, const struct obs_syscall *sc,
                            const uint64_t *args, struct obs_report *r)
{
        struct sockaddr_un sun;
        size_t len = args[2] > sizeof(sun) ? sizeof(sun) : (size_t) args[2];
        size_t off = offsetof(struct sockaddr_un, sun_path);
        char rel[sizeof(sun.sun_path) + 1];
        bool conn = sc->kind == OBS_CONNECT;

        if (len <= off)
                return false;
        memset(&sun, 0, sizeof(sun));
        if (obs_read_mem(t->pid, args[1], &sun, len) < 0) {
                obs_report_line(r, "dropped", sc->name, "unreadable-sockaddr");
                return false;
        }
        if (sun.sun_family != AF_UNIX || sun.sun_path[0] == '\0')
                return false;
        memcpy(rel, sun.sun_path, len - off);
        rel[len - off] = '\0';
        if (obs_anchor(t->pid, AT_FDCWD, false, rel, t->path[0]) < 0) {
                obs_report_line(r, "dropped", sc->name, "unreadable-dirfd");
                return false;
        }
        add_line(t, conn ? "read" : "write", NULL, false, 0);
        add_line(t, "unix", conn ? "connect" : "bind", false, 0);
        return true;
}

/* openat2: the flags are the first field of struct open_how. */
static int how_flags(struct obs_tracee *t, const struct obs_syscall *sc, const uint64_t *args,
                     unsigned long long *flags, struct obs_report *r)
{
        uint64_t f;

        if (obs_read_mem(t->pid, args[sc->flags], &f, sizeof(f)) < 0) {
                obs_report_line(r, "dropped", sc->name, "unreadable-args");
                return -1;
        }
        *flags = f;
        return 0;
}

/* The verb of the first path, for the kinds with one. */
static const char *first_verb(struct obs_tracee *t, const struct obs_syscall *sc,
                              const uint64_t *args, struct obs_report *r)
{
        unsigned long long flags = 0;

        switch (sc->kind) {
        case OBS_OPEN:
                return obs_open_flags_write(args[sc->flags]) ? "write" : "read";
        case OBS_OPEN_HOW:
                if (how_flags(t, sc, args, &flags, r) < 0)
                        return NULL;
                return obs_open_flags_write(flags) ? "write" : "read";
        case OBS_READ:
        case OBS_EXEC:
        case OBS_LINK:
                return "read";
        case OBS_PROBE:
                return "probe";
        case OBS_CHDIR:
        case OBS_FCHDIR:
                return "chdir";
        default:
                return "write";
        }
}

/* Whether the result cannot matter: every line a read or a probe of a
 * path in a --no-result-under tree (the system trees bento's proposal skips
 * whatever the result).  Such a call is reported at once, saving the exit
 * stop that costs as much as the seccomp stop itself. */
static bool result_unneeded(const struct obs_tracee *t, const struct observe_opts *o)
{
        for (int i = 0; i < t->n_lines; i++) {
                const struct obs_line *l = &t->lines[i];

                if (l->fixed || (strcmp(l->verb, "read") != 0 && strcmp(l->verb, "probe") != 0) ||
                    !obs_path_under(t->path[l->path], o->no_result, o->n_no_result))
                        return false;
        }
        return t->n_lines > 0;
}

bool obs_decode(struct obs_tracee *t, const struct obs_syscall *sc, const uint64_t *args,
                const struct observe_opts *o, struct obs_report *r)
{
        const char *verb;

        t->n_lines = 0;
        if (sc->kind == OBS_CONNECT || sc->kind == OBS_BIND)
                return (t->pending = decode_sockaddr(t, sc, args, r));
        verb = first_verb(t, sc, args, r);
        if (!verb || decode_path(t, sc, args, 0, r) <= 0)
                return (t->pending = false);
        add_line(t, verb, NULL, sc->kind == OBS_PROBE, 0);
        if (sc->kind == OBS_EXEC)
                add_line(t, "exec", NULL, false, 0);
        else if (sc->path2 != OBS_NO_ARG && decode_path(t, sc, args, 1, r) > 0)
                add_line(t, "write", NULL, false, 1);
        if (result_unneeded(t, o)) {
                obs_emit(t, OBS_RESULT_UNWATCHED, false, 0, r);
                return false;
        }
        return (t->pending = true);
}

const char *obs_result_word(bool is_error, long long rval, bool probe)
{
        if (!is_error)
                return "ok";
        if (rval == -ENOENT || (probe && rval == -ENOTDIR))
                return "absent";
        return "error";
}

void obs_emit(struct obs_tracee *t, const char *result_or_null, bool is_error, long long rval,
              struct obs_report *r)
{
        for (int i = 0; i < t->n_lines; i++) {
                const struct obs_line *l = &t->lines[i];
                const char *w = l->fixed         ? l->fixed
                                : result_or_null ? result_or_null
                                                 : obs_result_word(is_error, rval, l->probe);

                /* without a result, the same line says the same each time */
                if (result_or_null && strcmp(result_or_null, OBS_RESULT_UNWATCHED) == 0)
                        obs_report_line_once(r, l->verb, w, t->path[l->path]);
                else
                        obs_report_line(r, l->verb, w, t->path[l->path]);
        }
        t->n_lines = 0;
        t->pending = false;
}
