/* SPDX-License-Identifier: Apache-2.0 */
/* bento-init's output and its few string helpers (out.h). */
#include "out.h"

#include <errno.h>

#include "sys.h"

void out_flush(struct init_out *out)
{
        size_t done = 0;

        while (done < out->len) {
                long n = sys_write(out->fd, out->buf + done, out->len - done);

                if (n == -EINTR)
                        continue;
                if (n <= 0)
                        break;
                done += (size_t) n;
        }
        out->len = 0;
}

void out_str(struct init_out *out, const char *s)
{
        for (; *s; s++) {
                if (out->len == sizeof(out->buf))
                        out_flush(out);
                out->buf[out->len++] = *s;
        }
}

void out_int(struct init_out *out, long v)
{
        /* the digits from the last: 20 hold any long, a sign and the NUL */
        char digits[22];
        char *p = digits + sizeof(digits) - 1;
        unsigned long u = v < 0 ? 0UL - (unsigned long) v : (unsigned long) v;

        *p = '\0';
        do {
                *--p = (char) ('0' + u % 10);
                u /= 10;
        } while (u);
        if (v < 0)
                *--p = '-';
        out_str(out, p);
}

/* glibc's text for each (strerror); a switch of literals, no table of
 * pointers, so that the program needs no relocation (Makefile). */
static const char *errno_text(int e)
{
        switch (e) {
        case EPERM:
                return "Operation not permitted";
        case ENOENT:
                return "No such file or directory";
        case EIO:
                return "Input/output error";
        case E2BIG:
                return "Argument list too long";
        case ENOEXEC:
                return "Exec format error";
        case EBADF:
                return "Bad file descriptor";
        case EAGAIN:
                return "Resource temporarily unavailable";
        case ENOMEM:
                return "Cannot allocate memory";
        case EACCES:
                return "Permission denied";
        case EFAULT:
                return "Bad address";
        case ENOTDIR:
                return "Not a directory";
        case EISDIR:
                return "Is a directory";
        case EINVAL:
                return "Invalid argument";
        case ENFILE:
                return "Too many open files in system";
        case EMFILE:
                return "Too many open files";
        case ETXTBSY:
                return "Text file busy";
        case ENAMETOOLONG:
                return "File name too long";
        case ELOOP:
                return "Too many levels of symbolic links";
        default:
                return NULL;
        }
}

void out_errno(struct init_out *out, int e)
{
        const char *text = errno_text(e);

        if (text) {
                out_str(out, text);
                return;
        }
        out_str(out, "error ");
        out_int(out, e);
}

bool init_streq(const char *a, const char *b)
{
        while (*a && *a == *b) {
                a++;
                b++;
        }
        return *a == *b;
}

int init_parse_fd(const char *s)
{
        long v = 0;

        if (*s < '0' || *s > '9')
                return -1;
        for (; *s; s++) {
                if (*s < '0' || *s > '9')
                        return -1;
                v = v * 10 + (*s - '0');
                if (v > 1 << 20)
                        return -1;
        }
        return v < 3 ? -1 : (int) v;
}
