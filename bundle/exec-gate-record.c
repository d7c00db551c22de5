/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Record mode: reading an exec's arguments from the caller's memory and
 * writing them to the record file (see record.h for the bounds and why).
 */
#include "exec-gate-record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cleanup.h"
#include "hex.h"
#include "jsonw.h"

#define PAGE 4096u

/* Copy len bytes at addr in pid's memory; the count copied (short at an
 * unmapped page), or -1. */
static ssize_t peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
        struct iovec local = {buf, len}, remote = {(void *) (uintptr_t) addr, len};

        return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}

/* The NUL-terminated string at addr, at most max bytes of it, read a page
 * at a time so that a string ending just before an unmapped page is read
 * whole.  0, or -EFAULT when nothing (or not its end) could be read before
 * a fault. */
static int read_string(pid_t pid, uint64_t addr, size_t max, char **ret, size_t *ret_len,
                       bool *truncated)
{
        cleanup_free char *buf = malloc(max + 1);
        size_t len = 0;

        if (!buf)
                return -ENOMEM;
        while (len < max) {
                size_t want = PAGE - (size_t) ((addr + len) % PAGE);
                ssize_t got;
                char *nul;

                if (want > max - len)
                        want = max - len;
                got = peek(pid, addr + len, buf + len, want);
                if (got <= 0)
                        return -EFAULT;
                nul = memchr(buf + len, '\0', (size_t) got);
                if (nul) {
                        len = (size_t) (nul - buf);
                        break;
                }
                len += (size_t) got;
        }
        *truncated = len == max;
        buf[len] = '\0';
        *ret_len = len;
        *ret = TAKE_PTR(buf);
        return 0;
}

static int read_pointer(pid_t pid, uint64_t addr, uint64_t *ret)
{
        return peek(pid, addr, ret, sizeof(*ret)) == (ssize_t) sizeof(*ret) ? 0 : -EFAULT;
}

/* argv[] at addr (NULL is an empty argv, as the kernel reads it). */
static void read_argv(pid_t pid, uint64_t addr, struct gate_exec *e)
{
        size_t budget = GATE_RECORD_CALL_BYTES;
        uint64_t p;

        e->argv = calloc(GATE_RECORD_ARGS_MAX, sizeof(*e->argv));
        e->argv_len = calloc(GATE_RECORD_ARGS_MAX, sizeof(*e->argv_len));
        if (!e->argv || !e->argv_len) {
                e->argv_unreadable = true;
                return;
        }
        for (size_t i = 0; addr; i++) {
                bool cut = false;

                if (read_pointer(pid, addr + 8 * i, &p) < 0) {
                        e->argv_unreadable = true;
                        return;
                }
                if (p == 0)
                        return;
                if (i == GATE_RECORD_ARGS_MAX || budget == 0) {
                        e->argv_truncated = true;
                        return;
                }
                if (read_string(pid, p,
                                budget < GATE_RECORD_ARG_BYTES ? budget : GATE_RECORD_ARG_BYTES,
                                &e->argv[i], &e->argv_len[i], &cut) < 0) {
                        e->argv_unreadable = true;
                        return;
                }
                e->argc++;
                budget -= e->argv_len[i];
                e->argv_truncated |= cut;
        }
}

void gate_exec_read(pid_t pid, const struct seccomp_data *data, bool execveat,
                    struct gate_exec *ret)
{
        /* execve(path, argv, envp); execveat(dirfd, path, argv, envp, flags) */
        uint64_t path = data->args[execveat ? 1 : 0], argv = data->args[execveat ? 2 : 1];
        struct gate_exec e = {.pid = ret->pid};

        if (read_string(pid, path, GATE_RECORD_ARG_BYTES, &e.exe, &e.exe_len, &e.exe_truncated) < 0)
                e.exe = NULL;
        if (execveat && (int) data->args[0] != AT_FDCWD && !(e.exe && e.exe[0] == '/')) {
                e.has_dirfd = true;
                e.dirfd = (int) data->args[0];
        }
        read_argv(pid, argv, &e);
        *ret = e;
}

void gate_exec_done(struct gate_exec *e)
{
        for (size_t i = 0; e->argv && i < e->argc; i++)
                free(e->argv[i]);
        free(e->argv);
        free(e->argv_len);
        free(e->exe);
        *e = (struct gate_exec){0};
}

int gate_record_open(struct gate_record *r, const char *path, struct bento_err *err)
{
        *r = (struct gate_record){.fd = -1};
        r->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (r->fd < 0)
                return bento_err_set(err, errno, "--record '%s'", path);
        return 0;
}

/* One line in one write (the file is read while the gate may still write). */
static void put_line(struct gate_record *r, struct bento_jsonw *w)
{
        cleanup_free char *buf = NULL;
        size_t len = 0;
        ssize_t n;

        if (bento_jsonw_finish(w, &buf, &len) < 0) {
                r->lost = true;
                return;
        }
        buf[len] = '\n';
        do
                n = write(r->fd, buf, len + 1);
        while (n < 0 && errno == EINTR);
        if (n != (ssize_t) len + 1)
                r->lost = true;
        else
                r->written += len + 1;
}

static void put_hex(struct bento_jsonw *w, const char *s, size_t len)
{
        cleanup_free char *hex = bento_hex_encode(s, len);

        if (!hex)
                bento_jsonw_fail(w, -ENOMEM, "record");
        else
                bento_jsonw_string(w, hex);
}

static void write_exec(struct bento_jsonw *w, const char *call, const struct gate_exec *e)
{
        bento_jsonw_open_object(w);
        bento_jsonw_kuint(w, "pid", (uint64_t) e->pid);
        bento_jsonw_kstring(w, "call", call);
        if (e->exe) {
                bento_jsonw_key(w, "exe");
                put_hex(w, e->exe, e->exe_len);
        }
        if (e->exe_truncated)
                bento_jsonw_kbool(w, "exe_truncated", true);
        if (e->has_dirfd)
                bento_jsonw_kint(w, "dirfd", e->dirfd);
        bento_jsonw_key(w, "argv");
        bento_jsonw_open_array(w);
        for (size_t i = 0; i < e->argc; i++)
                put_hex(w, e->argv[i], e->argv_len[i]);
        bento_jsonw_close_array(w);
        if (e->argv_truncated)
                bento_jsonw_kbool(w, "argv_truncated", true);
        if (e->argv_unreadable)
                bento_jsonw_kbool(w, "argv_unreadable", true);
        bento_jsonw_close_object(w);
}

void gate_record_write(struct gate_record *r, const char *call, const struct gate_exec *e)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        struct bento_err ignored = {0};

        if (r->fd < 0)
                return;
        /* a program that execs without end must not fill the disk */
        if (r->lost || r->written >= GATE_RECORD_FILE_BYTES ||
            bento_jsonw_init(&w, false, &ignored) < 0) {
                r->omitted++;
                return;
        }
        write_exec(&w, call, e);
        put_line(r, &w);
        if (r->lost)
                r->omitted++;
        else
                r->n++;
}

void gate_record_close(struct gate_record *r, bool finished)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        struct bento_err ignored = {0};

        if (r->fd < 0)
                return;
        if (finished && !r->lost && bento_jsonw_init(&w, false, &ignored) == 0) {
                bento_jsonw_open_object(&w);
                bento_jsonw_kbool(&w, "end", true);
                bento_jsonw_kuint(&w, "recorded", r->n);
                bento_jsonw_kuint(&w, "omitted", r->omitted);
                bento_jsonw_close_object(&w);
                put_line(r, &w);
        }
        close(r->fd);
        r->fd = -1;
}
