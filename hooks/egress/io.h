/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Deadline-bounded socket I/O for the proxy's handlers.  Every socket the
 * proxy holds is non-blocking; these helpers wait with poll() until a
 * CLOCK_MONOTONIC deadline, so no peer can hold a handler longer than the
 * limit it is under.
 */
#ifndef BENTO_EGRESS_IO_H
#define BENTO_EGRESS_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Milliseconds on CLOCK_MONOTONIC. */
int64_t egress_now_ms(void);

/* Wait for events on fd until deadline_ms; returns revents, 0 on timeout,
 * -errno on failure. */
int egress_wait(int fd, short events, int64_t deadline_ms);

/* Wait until fd is writable (or has an error to report) before
 * deadline_ms.  Returns 0, -ETIMEDOUT or -errno. */
int egress_wait_writable(int fd, int64_t deadline_ms);

/* Write all of buf before deadline_ms.  Returns 0, -ETIMEDOUT or -errno. */
int egress_write_all(int fd, const void *buf, size_t len, int64_t deadline_ms);

/* Send an HTTP status response and its one-line body:
 *   HTTP/1.1 <code> <text>\r\nContent-Type: text/plain\r\n
 *   Connection: close\r\n\r\n<body>\n
 * within write_ms.  Returns 0 or -errno. */
int egress_send_status(int fd, int code, const char *body, int write_ms);

#endif
