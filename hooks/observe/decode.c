/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento-observe: reading what a tracee names (observe.h).  Everything here
 * reads registers' targets in the tracee's memory (process_vm_readv, or
 * /proc/<pid>/mem and PTRACE_PEEKDATA where that is refused) and
 * readlink()s of the tracee's
 * /proc/<pid>/cwd and /proc/<pid>/fd/N magic links.  The named path itself
 * is never opened, stat()ed or resolved: a target could name a FIFO, a
 * device or a path it wants the observer to touch.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#include "observe.h"

#define PAGE 4096ULL

/* pread of /proc/<pid>/mem, where process_vm_readv is not allowed (a
 * seccomp profile of the container): the tracee's memory, never a file it
 * names. */
static int mem_file(pid_t pid, unsigned long long addr, void *buf, size_t len)
{
        char path[64];
        ssize_t n;
        int fd;

        snprintf(path, sizeof(path), "/proc/%d/mem", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        n = pread(fd, buf, len, (off_t) addr);
        close(fd);
        return n == (ssize_t) len ? 0 : -1;
}

/* PTRACE_PEEKDATA word by word, the last resort (a tracee in a ptrace
 * stop only). */
static int peek_mem(pid_t pid, unsigned long long addr, void *buf, size_t len)
{
        unsigned char *out = buf;

        for (size_t off = 0; off < len; off += sizeof(long)) {
                size_t n = len - off < sizeof(long) ? len - off : sizeof(long);
                long word;

                errno = 0;
                word = ptrace(PTRACE_PEEKDATA, pid, (void *) (addr + off), NULL);
                if (errno)
                        return -1;
                memcpy(out + off, &word, n);
        }
        return 0;
}

int obs_read_mem(pid_t pid, unsigned long long addr, void *buf, size_t len)
{
        struct iovec local = {.iov_base = buf, .iov_len = len};
        struct iovec remote = {.iov_base = (void *) addr, .iov_len = len};
        ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

        if (n == (ssize_t) len)
                return 0;
        if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
                if (mem_file(pid, addr, buf, len) == 0)
                        return 0;
                return peek_mem(pid, addr, buf, len);
        }
        return -1;
}

/* A string may end just before an unmapped page: it is read one page at a
 * time (process_vm_readv stops at the first remote iovec it cannot read),
 * up to PATH_MAX bytes. */
int obs_read_path(pid_t pid, unsigned long long addr, char *buf)
{
        size_t got = 0;

        if (addr == 0)
                return -1;
        while (got < PATH_MAX) {
                unsigned long long at = addr + got;
                size_t chunk = (size_t) (PAGE - (at % PAGE));
                char *nul;

                if (chunk > PATH_MAX - got)
                        chunk = PATH_MAX - got;
                if (at < addr || obs_read_mem(pid, at, buf + got, chunk) < 0)
                        return -1;
                nul = memchr(buf + got, '\0', chunk);
                if (nul)
                        return (int) (nul - buf);
                got += chunk;
        }
        return -1; /* no NUL within PATH_MAX: the kernel says ENAMETOOLONG */
}

/* readlink of /proc/<pid>/<what>: the anchor as the kernel spells it.
 * Only an absolute answer is a directory's path ("socket:[..]",
 * "anon_inode:..." are not); a deleted one ends in " (deleted)". */
static int read_anchor(pid_t pid, const char *what, char *out, size_t size)
{
        char link[64];
        ssize_t n;

        snprintf(link, sizeof(link), "/proc/%d/%s", (int) pid, what);
        n = readlink(link, out, size - 1);
        if (n <= 0 || (size_t) n >= size - 1 || out[0] != '/')
                return -1;
        out[n] = '\0';
        return 0;
}

int obs_anchor(pid_t pid, long long dirfd, bool has_dirfd, const char *rel, char *out)
{
        char what[32];
        size_t n;

        /* copied rather than printed: this runs for nearly every call */
        if (rel[0] == '/') {
                n = strnlen(rel, OBS_PATH_BUF - 1);
                memcpy(out, rel, n);
                out[n] = '\0';
                return 0;
        }
        if (!has_dirfd || (int) dirfd == AT_FDCWD)
                snprintf(what, sizeof(what), "cwd");
        else if ((int) dirfd >= 0)
                snprintf(what, sizeof(what), "fd/%d", (int) dirfd);
        else
                return -1;
        if (read_anchor(pid, what, out, PATH_MAX + 1) < 0)
                return -1;
        if (rel[0] == '\0')
                return 0;
        n = strlen(out);
        snprintf(out + n, OBS_PATH_BUF - n, "%s%s", n > 1 ? "/" : "", rel);
        return 0;
}
