/* SPDX-License-Identifier: Apache-2.0 */
/* Answering exec notifications: one let through, the rest EPERM (see notify.h). */
#include "exec-gate-notify.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"

#define STATUS_MAX 65536

enum gate_call { GATE_CALL_OTHER, GATE_CALL_EXEC, GATE_CALL_FORK };

int gate_notify_init(struct gate_notify *n, int fd, pid_t init_pid, bool init_child,
                     struct bento_err *err)
{
        struct seccomp_notif_sizes sizes = {0};

        *n = (struct gate_notify){.fd = fd, .init_pid = init_pid, .init_child = init_child};
        if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
                return bento_err_set(err, errno, "seccomp(SECCOMP_GET_NOTIF_SIZES)");
        /* the kernel's structures may be larger than the ones compiled in */
        n->req_size = sizes.seccomp_notif > sizeof(*n->req) ? sizes.seccomp_notif : sizeof(*n->req);
        n->resp_size = sizes.seccomp_notif_resp > sizeof(*n->resp) ? sizes.seccomp_notif_resp
                                                                   : sizeof(*n->resp);
        n->req = calloc(1, n->req_size);
        n->resp = calloc(1, n->resp_size);
        if (!n->req || !n->resp)
                return bento_err_set(err, ENOMEM, "seccomp notification buffers");
        return 0;
}

void gate_notify_close(struct gate_notify *n)
{
        if (n->fd >= 0)
                close(n->fd);
        n->fd = -1;
        free(n->req);
        free(n->resp);
        n->req = NULL;
        n->resp = NULL;
}

/* The last number of a /proc/<tid>/status line ("Tgid:", "NStgid:"): for
 * NStgid, the process's pid in the innermost pid namespace (the
 * container's); -1 if gone. */
static pid_t status_pid(pid_t tid, const char *field)
{
        cleanup_free char *text = NULL;
        struct bento_err ignored = {0};
        char path[64];
        const char *p, *end;
        pid_t last = -1;
        size_t len = 0;

        snprintf(path, sizeof(path), "/proc/%d/status", (int) tid);
        if (bento_read_file(path, STATUS_MAX, &text, &len, &ignored) < 0)
                return -1;
        p = strstr(text, field);
        if (!p)
                return -1;
        p += strlen(field); /* field starts with the newline before it */
        end = strchr(p, '\n');
        while (!end || p < end) {
                char *next;
                long v = strtol(p, &next, 10);

                if (next == p)
                        break;
                last = (pid_t) v;
                p = next;
        }
        return last;
}

static pid_t tgid_of(pid_t tid)
{
        return status_pid(tid, "\nTgid:");
}

/* Made by the container's init?  The pid is the calling thread's; a
 * thread of the init counts.  0 means the caller is not visible from the
 * gate's pid namespace. */
static bool from_init(const struct gate_notify *n, pid_t pid)
{
        if (pid <= 0)
                return false;
        return pid == n->init_pid || tgid_of(pid) == n->init_pid;
}

/* Made by bento-init's child, the target-to-be: a process of its own
 * (not a thread of the init) whose parent is the init. */
static bool from_init_child(const struct gate_notify *n, pid_t pid)
{
        if (pid <= 0 || pid == n->init_pid || tgid_of(pid) != pid)
                return false;
        return status_pid(pid, "\nPPid:") == n->init_pid;
}

/* Whether the caller may have the exec allowance that is next: the init's
 * own exec, then (with bento-init) its child's exec of the target. */
static bool next_allowance(const struct gate_notify *n, pid_t pid)
{
        if (n->allowed)
                return false;
        if (n->init_child && n->init_exec)
                return from_init_child(n, pid);
        return from_init(n, pid);
}

/* bento-init's one fork: its first process-creating call after its own
 * exec, before anything else exists in the box. */
static bool fork_allowance(const struct gate_notify *n, pid_t pid)
{
        return n->init_child && n->init_exec && !n->init_fork && !n->allowed && from_init(n, pid);
}

/* The allowance that was next is spent. */
static void spend(struct gate_notify *n, enum gate_call kind)
{
        if (kind == GATE_CALL_FORK)
                n->init_fork = true;
        else if (n->init_child && !n->init_exec)
                n->init_exec = true;
        else
                n->allowed = true;
}

/* The notification still stands: the caller still waits, so the pid read
 * above (and /proc) still meant that caller. */
static bool id_valid(const struct gate_notify *n, uint64_t id)
{
        return ioctl(n->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* Name the call for the log, and say what kind it is. */
static enum gate_call name_call(uint32_t arch, int nr, char *out, size_t size)
{
        static const char *const forks[] = {"clone", "clone3", "fork", "vfork"};
        cleanup_free char *name = seccomp_syscall_resolve_num_arch(arch, nr);
        enum gate_call kind = GATE_CALL_OTHER;

        if (name)
                snprintf(out, size, "%s", name);
        else
                snprintf(out, size, "syscall %d", nr);
        if (name && (strcmp(name, "execve") == 0 || strcmp(name, "execveat") == 0))
                kind = GATE_CALL_EXEC;
        for (size_t i = 0; name && i < sizeof(forks) / sizeof(forks[0]); i++)
                if (strcmp(name, forks[i]) == 0)
                        kind = GATE_CALL_FORK;
        return kind;
}

/* Record mode: the exec is written down (its arguments read while the
 * caller still waits) and every call goes on.  The record is kept only if
 * the notification still stands after the reads, so the pid (and its
 * memory) still meant the caller. */
static void record_call(struct gate_notify *n, const struct seccomp_notif *req, enum gate_call kind,
                        const char *call)
{
        struct gate_exec e = {0};

        if (kind != GATE_CALL_EXEC)
                return;
        /* bento-init's own exec is not one of the target's */
        if (n->init_child && !n->init_exec && from_init(n, (pid_t) req->pid))
                return;
        e.pid = status_pid((pid_t) req->pid, "\nNStgid:");
        if (e.pid < 0)
                e.pid = 0;
        gate_exec_read((pid_t) req->pid, &req->data, strcmp(call, "execveat") == 0, &e);
        if (id_valid(n, req->id))
                gate_record_write(n->record, call, &e);
        gate_exec_done(&e);
}

static bool decide(struct gate_notify *n, const struct seccomp_notif *req, enum gate_call kind,
                   const char *call)
{
        pid_t pid = (pid_t) req->pid;

        if (n->record) {
                record_call(n, req, kind, call);
                return true;
        }
        if (kind == GATE_CALL_FORK)
                return fork_allowance(n, pid) && id_valid(n, req->id);
        return kind == GATE_CALL_EXEC && next_allowance(n, pid) && id_valid(n, req->id);
}

int gate_notify_handle(struct gate_notify *n, struct gate_decision *ret, struct bento_err *err)
{
        struct seccomp_notif *req = n->req;
        struct seccomp_notif_resp *resp = n->resp;
        struct gate_decision d = {0};
        enum gate_call kind;
        bool allow;

        memset(req, 0, n->req_size); /* the kernel refuses a dirty buffer */
        if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
                if (errno == ENOENT || errno == EINTR)
                        return 0;
                return bento_err_set(err, errno, "receiving a seccomp notification");
        }
        d.pid = (pid_t) req->pid;
        kind = name_call(req->data.arch, req->data.nr, d.call, sizeof(d.call));
        allow = decide(n, req, kind, d.call);
        memset(resp, 0, n->resp_size);
        resp->id = req->id;
        if (allow)
                resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        else
                resp->error = -EPERM;
        if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0) {
                /* ENOENT: the caller was killed or interrupted; nothing ran,
                 * so an unused allowance stays unused */
                if (errno != ENOENT)
                        return bento_err_set(err, errno, "answering a seccomp notification");
                d.gone = true;
        } else if (allow) {
                spend(n, kind);
        } else {
                n->denied++;
        }
        d.let_through = allow && !d.gone;
        *ret = d;
        return 1;
}
