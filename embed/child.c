/* SPDX-License-Identifier: Apache-2.0 */
/* Starting bento and reading what it writes (see internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "internal.h"

extern char **environ;

static int spawn_with(const char *prog, char *const *argv, int out_w, int err_w, pid_t *pid)
{
        posix_spawn_file_actions_t fa;
        int r;

        if (posix_spawn_file_actions_init(&fa) != 0)
                return -ENOMEM;
        r = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        if (r == 0)
                r = posix_spawn_file_actions_adddup2(&fa, out_w, 1);
        if (r == 0 && err_w >= 0)
                r = posix_spawn_file_actions_adddup2(&fa, err_w, 2);
        if (r == 0 && err_w < 0)
                r = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        /* the pipes are close-on-exec: only the dup2()ed copies reach bento */
        if (r == 0)
                r = strchr(prog, '/') ? posix_spawn(pid, prog, &fa, NULL, argv, environ)
                                      : posix_spawnp(pid, prog, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        return -r;
}

int embed_spawn(const char *given, const char *const *args, bool want_err, struct embed_child *c)
{
        const char *prog = given ? given : getenv("BENTO");
        cleanup_free char **argv = NULL;
        int out[2] = {-1, -1}, err[2] = {-1, -1};
        size_t n = 0;
        int r;

        *c = (struct embed_child){.pid = -1, .out = -1, .err = -1};
        if (!prog || !prog[0])
                prog = "bento";
        while (args[n])
                n++;
        argv = calloc(n + 2, sizeof(char *));
        if (!argv)
                return -ENOMEM;
        argv[0] = (char *) prog;
        memcpy(argv + 1, args, n * sizeof(char *));
        if (pipe2(out, O_CLOEXEC) < 0 || (want_err && pipe2(err, O_CLOEXEC) < 0)) {
                r = -errno;
                for (int i = 0; i < 2; i++) {
                        if (out[i] >= 0)
                                close(out[i]);
                }
                return r;
        }
        r = spawn_with(prog, argv, out[1], err[1], &c->pid);
        close(out[1]);
        if (err[1] >= 0)
                close(err[1]);
        if (r < 0) {
                close(out[0]);
                if (err[0] >= 0)
                        close(err[0]);
                c->pid = -1;
                return r;
        }
        c->out = out[0];
        c->err = err[0];
        return 0;
}

int embed_wait(pid_t pid)
{
        int status;

        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        if (WIFSIGNALED(status))
                return 128 + WTERMSIG(status);
        return WEXITSTATUS(status);
}

/* Append what fd has now to *buf; 1 at its end, 0 for more, -errno. */
static int take(int fd, char **buf, size_t *len, size_t *cap)
{
        ssize_t n;

        if (*cap - *len < 4097) {
                size_t ncap = *cap ? *cap * 2 : 8192;
                char *nb;

                if (ncap > EMBED_OUTPUT_MAX + 4097)
                        return -E2BIG;
                nb = realloc(*buf, ncap);
                if (!nb)
                        return -ENOMEM;
                *buf = nb;
                *cap = ncap;
        }
        n = read(fd, *buf + *len, *cap - *len - 1);
        if (n < 0)
                return errno == EINTR || errno == EAGAIN ? 0 : -errno;
        *len += (size_t) n;
        (*buf)[*len] = '\0';
        return n == 0 ? 1 : 0;
}

int embed_read_both(struct embed_child *c, char **out, size_t *out_len, char **err, size_t *err_len)
{
        struct pollfd p[2] = {{.fd = c->out, .events = POLLIN}, {.fd = c->err, .events = POLLIN}};
        char **bufs[2] = {out, err};
        size_t *lens[2] = {out_len, err_len}, caps[2] = {0, 0};
        int r = 0;

        *out = *err = NULL;
        *out_len = *err_len = 0;
        while (r >= 0 && (p[0].fd >= 0 || p[1].fd >= 0)) {
                if (poll(p, 2, -1) < 0) {
                        r = errno == EINTR ? 0 : -errno;
                        continue;
                }
                for (int i = 0; i < 2 && r >= 0; i++) {
                        if (p[i].fd < 0 || !p[i].revents)
                                continue;
                        r = take(p[i].fd, bufs[i], lens[i], &caps[i]);
                        if (r == 1) {
                                p[i].fd = -1; /* poll() skips it from now on */
                                r = 0;
                        }
                }
        }
        for (int i = 0; i < 2; i++)
                if (!*bufs[i])
                        *bufs[i] = strdup("");
        return r < 0 ? r : (*out && *err ? 0 : -ENOMEM);
}

static int b64(char ch)
{
        static const char set[] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        const char *at = ch ? strchr(set, ch) : NULL;

        return at ? (int) (at - set) : -1;
}

int embed_base64_decode(const char *s, size_t len, char **ret, size_t *ret_len)
{
        cleanup_free char *buf = NULL;
        size_t o = 0;

        if (len % 4)
                return -EINVAL;
        buf = malloc(len / 4 * 3 + 1);
        if (!buf)
                return -ENOMEM;
        for (size_t i = 0; i < len; i += 4) {
                int a = b64(s[i]), b = b64(s[i + 1]), c = b64(s[i + 2]), d = b64(s[i + 3]);
                bool last = i + 4 == len;

                if (a < 0 || b < 0 || (c < 0 && !(last && s[i + 2] == '=' && s[i + 3] == '=')) ||
                    (d < 0 && !(last && s[i + 3] == '=')))
                        return -EINVAL;
                buf[o++] = (char) (a << 2 | b >> 4);
                if (c >= 0)
                        buf[o++] = (char) ((b & 15) << 4 | c >> 2);
                if (c >= 0 && d >= 0)
                        buf[o++] = (char) ((c & 3) << 6 | d);
        }
        buf[o] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_len = o;
        return 0;
}
