/* SPDX-License-Identifier: Apache-2.0 */
/* Error, warning and debug output of bento-runtime (see log.h). */
#include "log.h"

#include "cleanup.h"
#include "json.h"
#include "jsonw.h"
#include "utc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int log_fd = -1;
static enum rt_log_format log_format = RT_LOG_TEXT;
static int log_level = RT_LOG_WARNING;
static bool log_stderr = true;

int rt_log_level_parse(const char *s, int *ret)
{
        static const char *const names[] = {"error", "warning", "info", "debug"};

        for (int i = 0; i < 4; i++)
                if (strcmp(s, names[i]) == 0) {
                        *ret = i;
                        return 0;
                }
        return -EINVAL;
}

int rt_log_open(const char *path, enum rt_log_format format, int level, struct bento_err *err)
{
        log_format = format;
        log_level = level;
        if (!path)
                return 0;
        log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
        if (log_fd < 0)
                return bento_err_set(err, errno, "cannot open log file '%s'", path);
        return 0;
}

void rt_log_file_only(void)
{
        log_stderr = false;
}

void rt_log_close(void)
{
        if (log_fd >= 0)
                close(log_fd);
        log_fd = -1;
}

/* One JSON record, {"level","msg","time"} in that order, through the
 * project's JSON writer; NULL when it cannot be built (out of memory). */
static char *json_record(const char *level, const char *msg, const char *when, size_t *ret_len)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        struct bento_err err = {0};
        char *buf = NULL;

        if (bento_jsonw_init(&w, false, &err) < 0)
                return NULL;
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "level", level);
        bento_jsonw_kstring(&w, "msg", msg);
        bento_jsonw_kstring(&w, "time", when);
        bento_jsonw_close_object(&w);
        return bento_jsonw_finish(&w, &buf, ret_len) < 0 ? NULL : buf;
}

/* Append one line to the log file in a single write (with O_APPEND,
 * concurrent runtimes' lines stay whole). */
static void write_log_file(const char *level, const char *msg)
{
        char line[4096];
        char stamp[BENTO_UTC_MAX];
        struct timespec ts;
        int n;

        if (log_fd < 0)
                return;
        clock_gettime(CLOCK_REALTIME, &ts);
        bento_utc_format(ts.tv_sec, stamp);
        if (log_format == RT_LOG_JSON) {
                cleanup_free char *rec = NULL;
                struct iovec iov[2];
                size_t len = 0;

                snprintf(line, sizeof(line), "%s.%09ldZ", stamp, ts.tv_nsec);
                rec = json_record(level, msg, line, &len);
                if (!rec)
                        return;
                iov[0] = (struct iovec){.iov_base = rec, .iov_len = len};
                iov[1] = (struct iovec){.iov_base = (void *) "\n", .iov_len = 1};
                (void) !writev(log_fd, iov, 2);
                return;
        }
        n = snprintf(line, sizeof(line), "%sZ %s: %s\n", stamp, level, msg);
        if (n > 0)
                (void) !write(log_fd, line,
                              (size_t) n < sizeof(line) ? (size_t) n : sizeof(line) - 1);
}

static void vlog(const char *level, bool to_stderr, const char *fmt, va_list ap)
{
        char msg[2048];

        vsnprintf(msg, sizeof(msg), fmt, ap);
        for (char *p = msg; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        *p = '?';
        /* engines parse the log as JSON: never hand them invalid UTF-8 */
        if (!bento_utf8_valid(msg, strlen(msg)))
                for (char *p = msg; *p; p++)
                        if ((unsigned char) *p >= 0x80)
                                *p = '?';
        if (to_stderr && (log_stderr || log_fd < 0))
                fprintf(stderr, "bento-runtime: %s%s%s\n", strcmp(level, "error") ? level : "",
                        strcmp(level, "error") ? ": " : "", msg);
        write_log_file(level, msg);
}

void rt_log_error(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vlog("error", true, fmt, ap);
        va_end(ap);
}

void rt_log_warning(const char *fmt, ...)
{
        va_list ap;

        if (log_level < RT_LOG_WARNING)
                return;
        va_start(ap, fmt);
        vlog("warning", true, fmt, ap);
        va_end(ap);
}

void rt_log_debug(const char *fmt, ...)
{
        va_list ap;

        if (log_level < RT_LOG_DEBUG)
                return;
        va_start(ap, fmt);
        vlog("debug", true, fmt, ap);
        va_end(ap);
}

int rt_log_err(const struct bento_err *err)
{
        rt_log_error("%s", err->msg[0] ? err->msg : "unknown error");
        return 1;
}
