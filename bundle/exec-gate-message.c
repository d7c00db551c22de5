/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Receiving and checking the container process state a runtime sends with
 * the seccomp listener (see message.h).
 */
#include "exec-gate-message.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "json.h"
#include "jsonr.h"

#define READ_CHUNK 65536

/* What /proc/self/fd/N reads for a seccomp user-notification listener. */
#define NOTIFY_FD_LINK "anon_inode:seccomp notify"

static void close_fds(int *fds, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (fds[i] >= 0)
                        close(fds[i]);
}

void gate_message_free(struct gate_message *m)
{
        close_fds(m->fds, m->n_fds);
        free(m->buf);
        *m = (struct gate_message){0};
}

/* Keep the descriptors of one recvmsg; any beyond GATE_MESSAGE_FDS are
 * closed at once and spoil the message. */
static void keep_fds(struct gate_message *m, struct msghdr *mh)
{
        for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
                size_t n;

                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                        continue;
                n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < n; i++) {
                        int fd;

                        memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                        if (m->n_fds < GATE_MESSAGE_FDS) {
                                m->fds[m->n_fds++] = fd;
                        } else {
                                close(fd);
                                m->extra_fds = true;
                        }
                }
        }
}

/* One whole JSON document so far?  Only tried when the text ends with '}'
 * (after blanks): the documents here are objects. */
static bool looks_complete(const struct gate_message *m)
{
        cleanup_bento_json struct bento_json *tree = NULL;
        struct bento_err ignored = {0};
        size_t n = m->len;

        while (n > 0 && strchr(" \t\r\n", m->buf[n - 1]))
                n--;
        if (n == 0 || m->buf[n - 1] != '}')
                return false;
        return bento_json_parse(m->buf, m->len, GATE_MESSAGE_MAX, &tree, &ignored) >= 0;
}

int gate_message_read(struct gate_message *m, int conn, struct bento_err *err)
{
        union {
                struct cmsghdr align;
                char buf[CMSG_SPACE(sizeof(int) * GATE_MESSAGE_FDS)];
        } ctl;
        struct iovec iov;
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
        size_t room;
        ssize_t n;

        if (!m->buf) {
                /* one byte more than allowed, to tell "full" from "too big" */
                m->buf = malloc(GATE_MESSAGE_MAX + 1);
                if (!m->buf)
                        return bento_err_set(err, ENOMEM, "container process state");
        }
        room = GATE_MESSAGE_MAX + 1 - m->len;
        iov = (struct iovec){.iov_base = m->buf + m->len,
                             .iov_len = room < READ_CHUNK ? room : READ_CHUNK};
        mh.msg_control = ctl.buf;
        mh.msg_controllen = sizeof(ctl.buf);
        do
                n = recvmsg(conn, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        while (n < 0 && errno == EINTR);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return 0;
        if (n < 0)
                return bento_err_set(err, errno, "reading the container process state");
        keep_fds(m, &mh);
        if (mh.msg_flags & MSG_CTRUNC || m->extra_fds)
                return bento_err_setx(err, EPROTO, "the runtime sent more than %d file descriptors",
                                      GATE_MESSAGE_FDS);
        m->len += (size_t) n;
        if (m->len > GATE_MESSAGE_MAX)
                return bento_err_setx(err, EFBIG,
                                      "the container process state is larger than %zu bytes",
                                      GATE_MESSAGE_MAX);
        if (n == 0) {
                m->eof = true;
                return 1;
        }
        return looks_complete(m) ? 1 : 0;
}

/* Copy s for messages: control characters and non-ASCII bytes become '?'. */
static void copy_shown(char *dst, size_t size, const char *s)
{
        size_t i = 0;

        for (; s[i] && i + 1 < size; i++)
                dst[i] = ((unsigned char) s[i] < 0x20 || (unsigned char) s[i] >= 0x7f) ? '?' : s[i];
        dst[i] = '\0';
}

/* fds: the names of the descriptors, in the order they came; exactly one
 * "seccompFd". */
static int parse_fds(struct bento_jsonr *r, const struct bento_json *doc, size_t n_fds,
                     size_t *ret_index)
{
        char **names = NULL;
        size_t n = 0, found = SIZE_MAX;
        int k = bento_jsonr_strv(r, doc, "fds", &names, &n);

        if (k == 0)
                return bento_jsonr_fail(r, "fds: required property is missing");
        if (k < 0)
                return k;
        for (size_t i = 0; k >= 0 && i < n; i++) {
                if (strcmp(names[i], "seccompFd") != 0)
                        continue;
                if (found != SIZE_MAX)
                        k = bento_jsonr_fail(r, "fds[%zu]: \"seccompFd\" named twice", i);
                found = i;
        }
        bento_strv_free_n(names, n);
        if (k < 0)
                return k;
        if (found == SIZE_MAX)
                return bento_jsonr_fail(r, "fds: no \"seccompFd\"");
        if (n != n_fds)
                return bento_jsonr_fail(r, "fds: names %zu descriptor(s), but %zu came with it", n,
                                        n_fds);
        *ret_index = found;
        return 0;
}

/* state: the OCI state of the container being created. */
static int parse_inner_state(struct bento_jsonr *r, const struct bento_json *doc, int64_t pid,
                             struct gate_state *st)
{
        const struct bento_json *inner = NULL;
        cleanup_free char *id = NULL;
        size_t mark;
        int64_t inner_pid = 0;
        int k = bento_jsonr_member(r, doc, "state", BENTO_JSON_OBJECT, true, &inner);

        if (k < 0)
                return k;
        mark = bento_jsonr_push_key(r, "state");
        k = bento_jsonr_string(r, inner, "id", true, &id);
        if (k >= 0)
                k = bento_jsonr_int(r, inner, "pid", false, 1, INT_MAX, &inner_pid);
        if (k > 0 && inner_pid != pid) {
                size_t pmark = bento_jsonr_push_key(r, "pid");

                k = bento_jsonr_fail(r, "%lld, but the message is about pid %lld",
                                     (long long) inner_pid, (long long) pid);
                bento_jsonr_pop(r, pmark);
        }
        bento_jsonr_pop(r, mark);
        if (k < 0)
                return k;
        copy_shown(st->id, sizeof(st->id), id);
        return 0;
}

int gate_state_parse(const char *data, size_t len, size_t n_fds, struct gate_state *ret,
                     struct bento_err *err)
{
        cleanup_bento_json struct bento_json *doc = NULL;
        cleanup_free char *version = NULL;
        cleanup_free char *metadata = NULL;
        struct gate_state st = {0};
        struct bento_jsonr r;
        int64_t pid = 0;
        int k;

        k = bento_json_parse(data, len, GATE_MESSAGE_MAX, &doc, err);
        if (k < 0)
                return bento_err_prefix(err, "container process state");
        bento_jsonr_init(&r, err);
        if (doc->type != BENTO_JSON_OBJECT)
                k = bento_jsonr_fail_type(&r, "an object", doc);
        if (k >= 0)
                k = bento_jsonr_string(&r, doc, "ociVersion", true, &version);
        if (k >= 0)
                k = parse_fds(&r, doc, n_fds, &st.seccomp_index);
        if (k >= 0)
                k = bento_jsonr_int(&r, doc, "pid", true, 1, INT_MAX, &pid);
        if (k >= 0)
                k = bento_jsonr_string(&r, doc, "metadata", false, &metadata);
        if (k >= 0)
                k = parse_inner_state(&r, doc, pid, &st);
        if (k < 0)
                return bento_err_prefix(err, "container process state");
        st.pid = (pid_t) pid;
        st.init = metadata && strcmp(metadata, GATE_METADATA_INIT) == 0;
        copy_shown(st.oci_version, sizeof(st.oci_version), version);
        *ret = st;
        return 0;
}

/* The descriptor must be a seccomp listener: anything else (a pipe, a
 * socket, another anon inode) is refused rather than polled. */
static int check_notify_fd(int fd, struct bento_err *err)
{
        char path[64], target[64];
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        n = readlink(path, target, sizeof(target) - 1);
        if (n < 0)
                return bento_err_set(err, errno, "checking the seccomp listener (%s)", path);
        target[n] = '\0';
        if (strcmp(target, NOTIFY_FD_LINK) != 0)
                return bento_err_setx(err, EBADF,
                                      "the descriptor named \"seccompFd\" is not a seccomp "
                                      "listener (it is %s)",
                                      target);
        return 0;
}

int gate_message_take(struct gate_message *m, struct gate_state *ret, int *ret_fd,
                      struct bento_err *err)
{
        struct gate_state st = {0};
        int fd, r;

        if (m->len == 0)
                return bento_err_setx(err, EPROTO,
                                      "the runtime closed the connection without a message");
        r = gate_state_parse(m->buf, m->len, m->n_fds, &st, err);
        if (r < 0)
                return r;
        if (st.seccomp_index >= m->n_fds) /* parse checked it; kept for the analyzer */
                return bento_err_setx(err, EPROTO, "no \"seccompFd\" descriptor");
        fd = m->fds[st.seccomp_index];
        r = check_notify_fd(fd, err);
        if (r < 0)
                return r;
        m->fds[st.seccomp_index] = -1;
        gate_message_free(m);
        *ret = st;
        *ret_fd = fd;
        return 0;
}
