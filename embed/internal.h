/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libbento-embed's insides (the public surface is include/bento/bento.h):
 * starting the bento program and reading what it says (child.c), the
 * network gate's listener (gate.c), and the two verbs (validate.c, run.c).
 */
#ifndef BENTO_EMBED_INTERNAL_H
#define BENTO_EMBED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <sys/types.h>

#include "bento/bento.h"

/* What `bento` may write on one stream: far more than any report. */
#define EMBED_OUTPUT_MAX ((size_t) 64 << 20)

struct embed_child {
        pid_t pid;
        int out; /* read end of its stdout */
        int err; /* read end of its stderr, or -1 (then /dev/null) */
};

/* Start bento (given, else $BENTO, else on $PATH) with args (NULL-ended,
 * not counting argv[0]), stdin on /dev/null.  0 or -errno. */
int embed_spawn(const char *given, const char *const *args, bool want_err, struct embed_child *c);

/* Wait for the child; its exit status, 128+N for a death by signal N,
 * -errno when it cannot be waited for. */
int embed_wait(pid_t pid);

/* Read both of c's streams to their end (at most EMBED_OUTPUT_MAX each),
 * NUL-terminated.  0 or -errno; the strings are set either way. */
int embed_read_both(struct embed_child *c, char **out, size_t *out_len, char **err,
                    size_t *err_len);

/* The network gate for one run (gate.c): a private directory holding a
 * socket, and the thread that answers on it with the caller's callback. */
struct embed_gate {
        char *dir, *path;
        int dir_fd;              /* the directory, held to remove what is in it */
        dev_t dir_dev, sock_dev; /* what was made, checked again before removal */
        ino_t dir_ino, sock_ino;
        int listen_fd, stop_fd, stop_w; /* stop_w closed: the thread leaves */
        bool started;
        bento_gate_fn fn;
        void *userdata;
        pthread_t thread;
};

int embed_gate_start(struct embed_gate *g, bento_gate_fn fn, void *userdata);
/* Stop the thread, remove the socket and its directory.  Safe on a gate
 * never started. */
void embed_gate_stop(struct embed_gate *g);

/* Decode base64 (RFC 4648, padded) into a new buffer.  0 or -EINVAL. */
int embed_base64_decode(const char *s, size_t len, char **ret, size_t *ret_len);

#endif
