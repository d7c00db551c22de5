/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which interpreter a script wants (docs/profile.md, "The interpreter"), so
 * the proposal can name it: the shebang line first, read the way the
 * kernel and env(1) read it, else the file name's extension.  Only the
 * first PROFILE_SHEBANG_MAX bytes are looked at; the script is the user's
 * own file, but it is untrusted code, so its words are quoted when shown.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "profile.h"
#include "manifest/screen.h"
#include "report/text.h"

#define SHEBANG_WORDS_MAX 64

static bool blank(char c)
{
        return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The words of s[0..len) split on blanks, as a NULL-terminated strv. */
static char **words(const char *s, size_t len, size_t *ret_n)
{
        cleanup_strv char **v = calloc(SHEBANG_WORDS_MAX + 1, sizeof(char *));
        size_t n = 0;

        if (!v)
                return NULL;
        for (size_t i = 0; i < len && n < SHEBANG_WORDS_MAX;) {
                size_t j = i;

                if (blank(s[i])) {
                        i++;
                        continue;
                }
                while (j < len && !blank(s[j]))
                        j++;
                v[n] = strndup(s + i, j - i);
                if (!v[n++])
                        return NULL;
                i = j;
        }
        *ret_n = n;
        return TAKE_PTR(v);
}

static bool is_env(const char *w)
{
        const char *slash = strrchr(w, '/');

        return strcmp(slash ? slash + 1 : w, "env") == 0;
}

/* A word env(1) takes as an option or assignment and that names no
 * program; *consume is set for an option that takes the next word too. */
static bool env_skips(const char *w, bool *consume)
{
        *consume = strcmp(w, "-u") == 0 || strcmp(w, "--unset") == 0 || strcmp(w, "-C") == 0 ||
                   strcmp(w, "--chdir") == 0;
        if (w[0] == '-')
                return true;
        return strchr(w, '=') != NULL; /* NAME=VALUE */
}

/* What -S / --split-string= leave of a word: the text after them, which
 * begins the split command line ("" for a bare -S). */
static const char *unwrap_split(const char *w)
{
        if (strncmp(w, "-S", 2) == 0)
                return w + 2;
        if (strncmp(w, "--split-string=", 15) == 0)
                return w + 15;
        return NULL;
}

static int set_guess(struct profile_interp *g, char **v, size_t first, size_t n)
{
        g->interpreter = strdup(v[first]);
        g->args = calloc(n - first, sizeof(char *));
        if (!g->interpreter || !g->args)
                return -ENOMEM;
        for (size_t i = first + 1; i < n; i++) {
                g->args[g->n_args] = strdup(v[i]);
                if (!g->args[g->n_args++])
                        return -ENOMEM;
        }
        g->source = PROFILE_INTERP_SHEBANG;
        return 0;
}

/* #!/usr/bin/env [options] [NAME=VALUE...] prog args... */
static int env_shebang(struct profile_interp *g, char **v, size_t n)
{
        for (size_t i = 1; i < n; i++) {
                const char *rest = unwrap_split(v[i]);
                bool consume = false;

                if (rest) {
                        if (!*rest)
                                continue;
                        memmove(v[i], rest, strlen(rest) + 1);
                }
                if (strcmp(v[i], "--") == 0)
                        return i + 1 < n ? set_guess(g, v, i + 1, n) : 0;
                if (!env_skips(v[i], &consume))
                        return set_guess(g, v, i, n);
                if (consume)
                        i++;
        }
        return 0; /* nothing usable after env */
}

/* The kernel's reading: the interpreter, then at most ONE argument, the
 * rest of the line with its outer blanks trimmed. */
static int plain_shebang(struct profile_interp *g, const char *s, size_t len)
{
        size_t i = 0, j, end = len;

        while (i < len && blank(s[i]))
                i++;
        j = i;
        while (j < len && !blank(s[j]))
                j++;
        if (j == i)
                return 0;
        g->interpreter = strndup(s + i, j - i);
        g->args = calloc(2, sizeof(char *));
        if (!g->interpreter || !g->args)
                return -ENOMEM;
        while (j < end && blank(s[j]))
                j++;
        while (end > j && blank(s[end - 1]))
                end--;
        if (end > j) {
                g->args[0] = strndup(s + j, end - j);
                if (!g->args[0])
                        return -ENOMEM;
                g->n_args = 1;
        }
        g->source = PROFILE_INTERP_SHEBANG;
        return 0;
}

static int shebang(struct profile_interp *g, const char *line, size_t len)
{
        cleanup_strv char **v = NULL;
        size_t n = 0;

        v = words(line, len, &n);
        if (!v)
                return -ENOMEM;
        if (n == 0)
                return 0;
        if (is_env(v[0]))
                return env_shebang(g, v, n);
        return plain_shebang(g, line, len);
}

static int by_extension(struct profile_interp *g, const char *script)
{
        static const char *const map[][2] = {
            {".py", "python3"}, {".sh", "bash"}, {".bash", "bash"},
            {".js", "node"},    {".rb", "ruby"},
        };
        const char *base = strrchr(script, '/');
        const char *dot = strrchr(base ? base + 1 : script, '.');

        if (!dot || dot == (base ? base + 1 : script))
                return 0;
        for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
                if (strcmp(dot, map[i][0]) != 0)
                        continue;
                g->interpreter = strdup(map[i][1]);
                g->extension = strdup(dot);
                g->args = calloc(1, sizeof(char *));
                if (!g->interpreter || !g->extension || !g->args)
                        return -ENOMEM;
                g->source = PROFILE_INTERP_EXTENSION;
                return 0;
        }
        return 0;
}

int profile_interpreter_guess(const char *head, size_t len, const char *script,
                              struct profile_interp *ret, struct bento_err *err)
{
        int r;

        *ret = (struct profile_interp){0};
        if (len > PROFILE_SHEBANG_MAX)
                len = PROFILE_SHEBANG_MAX;
        if (len >= 2 && head[0] == '#' && head[1] == '!') {
                const char *nl = memchr(head, '\n', len);

                ret->looks_script = true;
                r = shebang(ret, head + 2, (nl ? (size_t) (nl - head) : len) - 2);
        } else {
                r = by_extension(ret, script ? script : "");
        }
        if (r >= 0 && !ret->args)
                ret->args = calloc(1, sizeof(char *));
        if (r < 0 || !ret->args) {
                profile_interp_done(ret);
                return bento_err_set(err, ENOMEM, "guessing the interpreter");
        }
        return 0;
}

int profile_interpreter_guess_file(const char *script, struct profile_interp *ret,
                                   struct bento_err *err)
{
        char buf[PROFILE_SHEBANG_MAX];
        cleanup_close int fd = open(script, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        ssize_t n;

        if (fd < 0)
                return bento_err_set(err, errno, "entrypoint \"%s\"", script);
        if (fstat(fd, &st) < 0)
                return bento_err_set(err, errno, "entrypoint \"%s\"", script);
        if (!S_ISREG(st.st_mode))
                return bento_err_setx(err, EINVAL, "entrypoint \"%s\": not a regular file", script);
        do
                n = read(fd, buf, sizeof(buf));
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return bento_err_set(err, errno, "entrypoint \"%s\"", script);
        return profile_interpreter_guess(buf, (size_t) n, script, ret, err);
}

char *profile_interpreter_line(const struct profile_interp *g)
{
        cleanup_free char *q = NULL, *from = NULL;

        if (g->source == PROFILE_INTERP_NONE || !g->interpreter)
                return NULL;
        q = text_quote(g->interpreter);
        if (g->source == PROFILE_INTERP_SHEBANG)
                from = strdup("the script's shebang");
        else
                from = text_printf("the %s extension", g->extension);
        if (!q || !from)
                return NULL;
        return text_printf("[bento] interpreter %s, from %s; --interpreter overrides it", q, from);
}

char *profile_interpreter_args_line(const struct profile_interp *g)
{
        cleanup_free char *joined = NULL, *q = NULL;
        char shown[PROFILE_SHEBANG_MAX + 8];
        size_t len = 0;

        if (g->source != PROFILE_INTERP_SHEBANG || g->n_args == 0)
                return NULL;
        for (size_t i = 0; i < g->n_args; i++)
                len += strlen(g->args[i]) + 1;
        joined = malloc(len);
        if (!joined)
                return NULL;
        len = 0;
        for (size_t i = 0; i < g->n_args; i++) {
                size_t n = strlen(g->args[i]);

                if (i)
                        joined[len++] = ' ';
                memcpy(joined + len, g->args[i], n);
                len += n;
        }
        joined[len] = '\0';
        q = text_quote(joined);
        if (!q)
                return NULL;
        /* The name is shown bare, as the program will be named, but with
         * nothing in it that could rewrite the terminal line. */
        screen_sanitize(g->interpreter, strlen(g->interpreter), PROFILE_SHEBANG_MAX, shown,
                        sizeof(shown));
        return text_printf(
            "[bento] the shebang passes %s to %s; the manifest records it as interpreter_args", q,
            shown);
}

void profile_interp_done(struct profile_interp *g)
{
        free(g->interpreter);
        strv_free(g->args);
        free(g->extension);
        *g = (struct profile_interp){0};
}
