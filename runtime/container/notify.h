/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NOTIFY_SOCKET (sd_notify(3)) for a container, as crun and runc proxy it.
 *
 * When `create` or `run` finds NOTIFY_SOCKET in its environment, the
 * container gets a directory of ours, <state dir>/notify, bind-mounted
 * read-only at the path NOTIFY_SOCKET names (at /run/notify when that is an
 * abstract name), and its NOTIFY_SOCKET points at the socket "notify" in
 * it.  The caller's socket itself is never shown to the container.
 *
 * `start` (and `run`) binds that socket before the container's process
 * runs, waits until the container sends READY=1 (or its init exits), and
 * then sends the caller READY=1 and MAINPID=<host pid of the init>, each as
 * its own datagram (crun sends READY=1 alone, runc adds MAINPID).  Nothing
 * else the container writes is passed on, and the socket is closed after
 * READY: a container cannot speak to the caller's service manager in any
 * other way.
 */
#ifndef RT_NOTIFY_H
#define RT_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "err.h"
#include "oci-config.h"
#include "state.h"
#include "store.h"

/* What `create` made for a container's notify socket. */
struct rt_notify {
        char *inner;  /* the directory's path in the container */
        uint64_t dev; /* identity of <state dir>/notify, kept in the record */
        uint64_t ino;
};

/* The caller's NOTIFY_SOCKET, or NULL when unset or empty. */
const char *rt_notify_caller(void);

/* create, before the config is checked: with NOTIFY_SOCKET set, append the
 * bind mount of <state_dir>/notify to cfg->mounts (after every config
 * mount, so a tmpfs on /run cannot hide it) and set NOTIFY_SOCKET in
 * process.env.  ret->inner is set; nothing happens without NOTIFY_SOCKET
 * (ret->inner stays NULL). */
int rt_notify_plan(struct oci_config *cfg, const char *state_dir, struct rt_notify *ret,
                   struct bento_err *err);

/* create, once the state directory exists: make <state dir>/notify and
 * note its identity in n. */
int rt_notify_make_dir(int state_dir_fd, struct rt_notify *n, struct bento_err *err);

void rt_notify_done(struct rt_notify *n);

/* The record's "notify" member for n (NULL without a notify socket). */
struct bento_json *rt_notify_describe(const struct rt_notify *n);

/* A bound notify socket of a container, between bind and relay. */
struct rt_notify_link {
        int fd;    /* -1: the container has no notify socket */
        pid_t pid; /* the init */
        uint64_t start_time;
};

#define RT_NOTIFY_LINK_INIT                                                                        \
        {                                                                                          \
                .fd = -1, .pid = 0, .start_time = 0                                                \
        }

/* start/run, before the container is released: when the container was
 * created with a notify directory (its record says so, and the directory
 * there is still the one recorded), bind the socket in it.  Without one,
 * ret->fd stays -1 and 0 is returned. */
int rt_notify_bind(struct rt_store *store, const char *id, struct rt_notify_link *ret,
                   struct bento_err *err);

/* Wait for READY=1 from the container (or the end of its init) and pass
 * READY=1 and MAINPID on to the socket `caller` names.  Closes l->fd. */
int rt_notify_relay(struct rt_notify_link *l, const char *caller, struct bento_err *err);

void rt_notify_link_close(struct rt_notify_link *l);

/* delete: remove <state dir>/notify and the socket in it.  With rec, the
 * directory must be the one the record names (dev and inode); without,
 * a directory of ours.  Anything else is left and reported. */
int rt_notify_remove(int state_dir_fd, const struct bento_record *rec, struct bento_err *err);

#endif
