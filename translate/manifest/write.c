/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The canonical manifest serialization and the atomic manifest writer of
 * docs/approve.md, "How the file is rewritten" (see write.h).  The YAML is produced by hand
 * rather than through libyaml's emitter: the layout is fixed and tiny, and
 * writing it directly keeps the output byte-stable across libyaml versions,
 * which the approval journal's diffs (docs/approve.md, "The approval journal") rely on.
 */
#include "write.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "utf8.h"

/* An append-only buffer with a sticky error, so the emitters below need
 * no error checks of their own; the first failure is reported at the end. */
struct ybuf {
        char *p;
        size_t len, cap;
        int r;             /* 0, -ENOMEM or -EILSEQ */
        const char *field; /* for -EILSEQ: which field */
        size_t index;      /* and which element, SIZE_MAX for a scalar */
};

static void put(struct ybuf *b, const char *s, size_t n)
{
        if (b->r < 0)
                return;
        if (b->cap - b->len <= n) {
                size_t want = b->cap ? b->cap : 1024;
                char *p;

                while (want - b->len <= n && want < SIZE_MAX / 2)
                        want *= 2;
                p = want - b->len > n ? realloc(b->p, want) : NULL;
                if (!p) {
                        b->r = -ENOMEM;
                        return;
                }
                b->p = p;
                b->cap = want;
        }
        memcpy(b->p + b->len, s, n);
        b->len += n;
        b->p[b->len] = '\0';
}

static void puts_raw(struct ybuf *b, const char *s)
{
        put(b, s, strlen(s));
}

/* Whether a YAML reader takes this code point literally inside a
 * double-quoted scalar: libyaml refuses C0/DEL/C1 and BOM, U+FFFE/U+FFFF
 * are not characters, and NEL/LS/PS would be folded as line breaks. */
static bool needs_escape(uint32_t cp)
{
        return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
               cp == 0xfeff || cp == 0xfffe || cp == 0xffff;
}

static void put_escape(struct ybuf *b, uint32_t cp)
{
        char esc[12];

        switch (cp) {
        case '\t':
                puts_raw(b, "\\t");
                return;
        case '\n':
                puts_raw(b, "\\n");
                return;
        case '\r':
                puts_raw(b, "\\r");
                return;
        default:
                snprintf(esc, sizeof(esc), cp < 0x100 ? "\\x%02" PRIX32 : "\\u%04" PRIX32, cp);
                puts_raw(b, esc);
        }
}

/* s as a double-quoted YAML scalar. */
static void put_quoted(struct ybuf *b, const char *s, const char *field, size_t index)
{
        const char *p = s ? s : "", *end = p + strlen(p);

        put(b, "\"", 1);
        while (p < end && b->r == 0) {
                uint32_t cp;
                size_t n = bento_utf8_decode(p, (size_t) (end - p), &cp);

                if (n == 0) {
                        b->r = -EILSEQ, b->field = field, b->index = index;
                        return;
                }
                if (cp == '"' || cp == '\\')
                        put(b, "\\", 1);
                if (needs_escape(cp))
                        put_escape(b, cp);
                else
                        put(b, p, n);
                p += n;
        }
        put(b, "\"", 1);
}

/* "<indent><key>: "value"\n", nothing when value is empty. */
static void put_scalar(struct ybuf *b, const char *indent, const char *key, const char *value)
{
        if (!value || !*value)
                return;
        puts_raw(b, indent);
        puts_raw(b, key);
        puts_raw(b, ": ");
        put_quoted(b, value, key, SIZE_MAX);
        put(b, "\n", 1);
}

/* A block sequence of quoted strings, nothing when empty.  Elements are
 * written even when empty: validation, not the writer, refuses those. */
static void put_list(struct ybuf *b, const char *indent, const char *key, char *const *v, size_t n)
{
        if (n == 0)
                return;
        puts_raw(b, indent);
        puts_raw(b, key);
        puts_raw(b, ":\n");
        for (size_t i = 0; i < n; i++) {
                puts_raw(b, indent);
                puts_raw(b, "  - ");
                put_quoted(b, v[i], key, i);
                put(b, "\n", 1);
        }
}

static void put_network(struct ybuf *b, const struct manifest_net_rule *rules, size_t n)
{
        if (n == 0)
                return;
        puts_raw(b, "network:\n");
        for (size_t i = 0; i < n; i++) {
                puts_raw(b, "  - host: ");
                put_quoted(b, rules[i].host, "network.host", i);
                puts_raw(b, "\n    port: ");
                put_quoted(b, rules[i].port, "network.port", i);
                put(b, "\n", 1);
        }
}

static bool is_set(const char *s)
{
        return s && *s;
}

static void put_limits(struct ybuf *b, const struct manifest_limits *l)
{
        if (!is_set(l->memory) && !is_set(l->cpu) && l->pids == 0 && !is_set(l->tmp))
                return;
        puts_raw(b, "limits:\n");
        put_scalar(b, "  ", "memory", l->memory);
        put_scalar(b, "  ", "cpu", l->cpu);
        if (l->pids != 0) {
                char pids[40];

                snprintf(pids, sizeof(pids), "  pids: %" PRId64 "\n", l->pids);
                puts_raw(b, pids);
        }
        put_scalar(b, "  ", "tmp", l->tmp);
}

static void put_provenance(struct ybuf *b, const struct manifest_provenance *p)
{
        if (!is_set(p->generated_by) && !is_set(p->generated_at) && !is_set(p->approves) &&
            p->n_blocked_hosts == 0)
                return;
        puts_raw(b, "provenance:\n");
        put_scalar(b, "  ", "generated-by", p->generated_by);
        put_scalar(b, "  ", "generated-at", p->generated_at);
        put_scalar(b, "  ", "approves", p->approves);
        put_list(b, "  ", "blocked-hosts", p->blocked_hosts, p->n_blocked_hosts);
}

/* Spelled here, not borrowed from the parser, so the writer's output
 * cannot change with it (the journal diffs this text). */
static const char *exec_name(enum manifest_exec e)
{
        switch (e) {
        case MANIFEST_EXEC_NONE_STRICT:
                return "none-strict";
        case MANIFEST_EXEC_ALL:
                return "all";
        case MANIFEST_EXEC_NONE:
        default:
                return "none";
        }
}

static void put_manifest(struct ybuf *b, const struct manifest *m, unsigned flags)
{
        put_scalar(b, "", "entrypoint", m->entrypoint);
        put_scalar(b, "", "interpreter", m->interpreter);
        put_list(b, "", "interpreter_args", m->interpreter_args, m->n_interpreter_args);
        put_list(b, "", "args", m->args, m->n_args);
        put_list(b, "", "env", m->env, m->n_env);
        put_list(b, "", "read", m->read, m->n_read);
        put_list(b, "", "write", m->write, m->n_write);
        put_network(b, m->network, m->n_network);
        put_scalar(b, "", "exec", exec_name(m->exec));
        put_limits(b, &m->limits);
        if (!(flags & MANIFEST_YAML_NO_PROVENANCE))
                put_provenance(b, &m->provenance);
}

int manifest_to_yaml(const struct manifest *m, unsigned flags, char **ret, size_t *ret_len,
                     struct bento_err *err)
{
        struct ybuf b = {0};

        if (!m)
                return bento_err_setx(err, EINVAL, "manifest: nothing to write");
        put_manifest(&b, m, flags);
        if (b.r == -EILSEQ && b.index != SIZE_MAX)
                b.r = bento_err_setx(err, EILSEQ,
                                     "manifest: %s[%zu] is not valid UTF-8; refusing to write it",
                                     b.field, b.index);
        else if (b.r == -EILSEQ)
                b.r = bento_err_setx(
                    err, EILSEQ, "manifest: %s is not valid UTF-8; refusing to write it", b.field);
        else if (b.r < 0)
                b.r = bento_err_set(err, -b.r, "manifest: serializing");
        if (b.r < 0) {
                free(b.p);
                return b.r;
        }
        *ret = b.p;
        *ret_len = b.len;
        return 0;
}

/* The file to replace: path with every symlink resolved.  For a new file
 * the directory is resolved and the name appended.  A dangling symlink is
 * refused: where it points is not a place anyone reviewed. */
static int resolve_new(const char *path, char **ret_real, struct bento_err *err)
{
        const char *slash = strrchr(path, '/');
        const char *base = slash ? slash + 1 : path;
        cleanup_free char *dir = NULL, *dir_real = NULL;
        char *joined;
        struct stat st;

        if (lstat(path, &st) == 0)
                return bento_err_setx(err, ENOENT,
                                      "'%s' is a symbolic link to a missing file; refusing to "
                                      "write through it",
                                      path);
        if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
                return bento_err_setx(err, EINVAL, "'%s' does not name a file", path);
        dir = !slash ? strdup(".") : strndup(path, slash == path ? 1 : (size_t) (slash - path));
        if (!dir)
                return bento_err_set(err, ENOMEM, "writing '%s'", path);
        dir_real = realpath(dir, NULL);
        if (!dir_real)
                return bento_err_set(err, errno, "cannot resolve the directory of '%s'", path);
        joined = NULL;
        if (asprintf(&joined, "%s/%s", strcmp(dir_real, "/") ? dir_real : "", base) < 0 || !joined)
                return bento_err_set(err, ENOMEM, "writing '%s'", path);
        *ret_real = joined;
        return 0;
}

static int resolve_target(const char *path, char **ret_real, struct stat *ret_st, bool *ret_existed,
                          struct bento_err *err)
{
        cleanup_free char *real = realpath(path, NULL);
        struct stat st;

        if (!real && errno != ENOENT)
                return bento_err_set(err, errno, "cannot resolve '%s'", path);
        if (!real) {
                *ret_existed = false;
                return resolve_new(path, ret_real, err);
        }
        if (stat(real, &st) < 0)
                return bento_err_set(err, errno, "cannot stat '%s'", path);
        if (!S_ISREG(st.st_mode))
                return bento_err_setx(err, EINVAL, "'%s' is not a regular file", path);
        *ret_st = st;
        *ret_existed = true;
        *ret_real = TAKE_PTR(real);
        return 0;
}

static int replace_file(const char *shown, const char *real, const char *data, size_t len,
                        mode_t mode, struct stat *ret_st, struct bento_err *err)
{
        const char *slash = strrchr(real, '/');
        cleanup_free char *dir = strndup(real, slash == real ? 1 : (size_t) (slash - real));
        cleanup_free char *tmp = NULL;
        cleanup_close int fd = -1;
        const char *step = NULL;
        int r;

        if (!dir || asprintf(&tmp, "%s/.bento-approve-XXXXXX", strcmp(dir, "/") ? dir : "") < 0)
                return bento_err_set(err, ENOMEM, "writing '%s'", shown);
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return bento_err_set(err, errno,
                                     "cannot write '%s': no temporary file could be created in "
                                     "'%s' (replacing the manifest needs write and search "
                                     "permission on that directory)",
                                     shown, dir);
        /* The temporary file becomes the manifest: its identity is the
         * new file's. */
        if (fstat(fd, ret_st) < 0)
                *ret_st = (struct stat){0};
        r = bento_commit_temp_file(TAKE_FD(fd), tmp, real, data, len, mode, &step);
        if (r < 0)
                return bento_err_set(err, -r, "cannot %s '%s'", step, tmp);
        return 0;
}

int manifest_write_bytes(const char *path, const char *data, size_t len,
                         struct manifest_write_info *ret_info, struct bento_err *err)
{
        cleanup_free char *real = NULL;
        struct stat st = {0}, written = {0};
        bool existed = false;
        mode_t old_mode = 0, new_mode;
        int r;

        r = resolve_target(path, &real, &st, &existed, err);
        if (r < 0)
                return r;
        assert(real);
        /* Only permission bits carry over: set-id bits on a policy file
         * would mean nothing, and the write bits for others are exactly
         * what would let someone else rewrite an approved policy. */
        old_mode = existed ? st.st_mode & 0777 : 0;
        new_mode = (existed ? old_mode : 0600) & ~(mode_t) (S_IWGRP | S_IWOTH);
        r = replace_file(path, real, data, len, new_mode, &written, err);
        if (r < 0)
                return r;
        if (ret_info)
                *ret_info = (struct manifest_write_info){
                    .existed = existed,
                    .old_mode = old_mode,
                    .new_mode = new_mode,
                    .clamped = existed && (old_mode & (S_IWGRP | S_IWOTH)),
                    .dev = written.st_dev,
                    .ino = written.st_ino,
                };
        return 0;
}

int manifest_write_file(const char *path, const struct manifest *m,
                        struct manifest_write_info *ret_info, struct bento_err *err)
{
        cleanup_free char *yaml = NULL;
        size_t len = 0;
        int r;

        /* Never emit a file the parser would refuse (docs/approve.md, "How the file is rewritten").
         */
        r = manifest_validate(m, path, NULL, err);
        if (r < 0)
                return r;
        r = manifest_to_yaml(m, 0, &yaml, &len, err);
        if (r < 0)
                return r;
        return manifest_write_bytes(path, yaml, len, ret_info, err);
}
