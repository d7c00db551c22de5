/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How bento-runtime talks to people and engines.  Messages at or above
 * --log-level go to stderr; with --log FILE they are also appended to FILE,
 * as one JSON object per line ({"level","msg","time"}) with --log-format
 * json, which is what containerd's shim and conmon parse.  Errors are
 * returned up to the verb, which logs them once; lower layers only add
 * warnings and debug traces.  bundle/ never logs.
 */
#ifndef RT_LOG_H
#define RT_LOG_H

#include <stdbool.h>

#include "err.h"

/* Messages below the level are dropped; errors always go out. */
enum rt_log_level {
        RT_LOG_ERROR,
        RT_LOG_WARNING,
        RT_LOG_INFO,
        RT_LOG_DEBUG,
};

/* "error", "warning", "info", "debug" → *ret (an enum rt_log_level). */
int rt_log_level_parse(const char *s, int *ret);

enum rt_log_format {
        RT_LOG_TEXT,
        RT_LOG_JSON,
};

/* Configure the log file (NULL: stderr only).  Returns 0 or -errno with err. */
int rt_log_open(const char *path, enum rt_log_format format, int level, struct bento_err *err);
void rt_log_close(void);

/* From now on, with a log file open, messages go to it alone: for `run
 * --report`, whose stderr is the container's and whose caller reads the
 * log and the report instead.  Without a log file, stderr stays. */
void rt_log_file_only(void);

void rt_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rt_log_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rt_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Log err->msg as an error; returns the process exit status to use (1). */
int rt_log_err(const struct bento_err *err);

#endif
