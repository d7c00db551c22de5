/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one message a runtime sends to a seccomp agent (runtime-spec
 * config-linux.md, "The Container Process State"): a JSON document
 *
 *   {"ociVersion", "fds": ["seccompFd"], "pid", "metadata"?, "state": {...}}
 *
 * on a unix stream socket, with the seccomp listener fd attached
 * (SCM_RIGHTS).  The peer is treated as hostile: the text is capped, the
 * number of descriptors too, every descriptor that arrives is either handed
 * out or closed, and the listener must really be a seccomp notify fd.
 *
 * Runtimes do not agree on closing the connection after the message (runc
 * 1.1 keeps it open until it exits), so the message ends either at EOF or
 * as soon as the text read so far is one whole JSON document.
 */
#ifndef BENTO_GATE_MESSAGE_H
#define BENTO_GATE_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "state.h"

/* bytes of JSON text: the state bento-runtime writes may be that large (its
 * annotations grow with the mounts: 20,000 grants carry 450 KiB of mount
 * identities), so the gate reads what the runtime may send */
#define GATE_MESSAGE_MAX BENTO_STATE_MAX_BYTES
#define GATE_MESSAGE_FDS 16  /* descriptors in one message */
#define GATE_ID_SHOWN    128 /* bytes of the container id kept for messages */

/* What the gate needs from a valid message. */
struct gate_state {
        pid_t pid;              /* the container's init, in the runtime's pid namespace */
        size_t seccomp_index;   /* position of "seccompFd" in fds[] */
        char id[GATE_ID_SHOWN]; /* state.id, control characters replaced, maybe cut */
        char oci_version[32];   /* ociVersion as sent, cut the same way */
        /* metadata is GATE_METADATA_INIT: the container's process 1 is
         * bento-init, which execs the target as its child (notify.h). */
        bool init;
};

/* The listenerMetadata of a bundle whose process 1 is bento-init
 * (translate/compile/compile.h says the same). */
#define GATE_METADATA_INIT "bento-exec-gate/1 init"

/* A message being received.  Zero-initialise, then set n_fds = 0 (as the
 * zero value already is); release with gate_message_free(). */
struct gate_message {
        char *buf;
        size_t len;
        int fds[GATE_MESSAGE_FDS];
        size_t n_fds;
        bool extra_fds; /* more descriptors came than fit: refused */
        bool eof;
};

/* Read what is available on the (non-blocking) connection conn.  Returns 1
 * once the message is complete (one whole JSON document, or EOF), 0 when
 * more is to come (EAGAIN), or -errno with err filled (EFBIG above
 * GATE_MESSAGE_MAX, EPROTO for lost descriptors). */
int gate_message_read(struct gate_message *m, int conn, struct bento_err *err);

/* Validate a complete message and hand out the seccomp listener: *ret is
 * filled and *ret_fd owns the listener (O_CLOEXEC); every other descriptor
 * of the message is closed.  Returns 0 or -errno (EINVAL for a bad message,
 * EBADF when the named descriptor is not a seccomp notify fd). */
int gate_message_take(struct gate_message *m, struct gate_state *ret, int *ret_fd,
                      struct bento_err *err);

/* Close every descriptor still held and free the text; the message may be
 * reused afterwards.  Accepts a zeroed message. */
void gate_message_free(struct gate_message *m);

/* Check a message text against the container process state schema: an
 * object with a string ociVersion, an fds array of at most GATE_MESSAGE_FDS
 * names of which exactly one is "seccompFd" and whose length is n_fds (the
 * descriptors that came with it), a pid between 1 and INT_MAX, an optional
 * string metadata (GATE_METADATA_INIT sets init), and a state object with a string id and, when
 * present, the same pid.  Unknown members are ignored.  Errors carry the JSON path
 * ("fds[1]: expected a string, got a number").  Returns 0 or -errno. */
int gate_state_parse(const char *data, size_t len, size_t n_fds, struct gate_state *ret,
                     struct bento_err *err);

#endif
