/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The approval journal (journal.h, docs/approve.md, "The approval journal").  Entries are read
 * through directory descriptors opened from the state home down with
 * O_NOFOLLOW, and judged on the descriptors actually read, so a link
 * planted in the journal is never followed and what was judged private is
 * what is believed.
 */
#include "journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "json.h"
#include "jsonr.h"
#include "journal-internal.h"
#include "journal-key.h"
#include "jsonw.h"
#include "manifest/path.h"
#include "sha256.h"
#include "manifest/trust.h"
#include "manifest/self.h"

#define JOURNAL_ENTRY_MAX (8u << 20) /* a 1 MiB manifest quoted and escaped fits */
#define DIFF_CELLS_MAX    (4u << 20) /* LCS table cells before the diff gives up on detail */

static const char *abs_env(const char *name)
{
        const char *v = getenv(name);

        return v && v[0] == '/' ? v : NULL;
}

/* The journal is <state home>/ROOT_NAME/DIR_NAME; bento makes both. */
#define ROOT_NAME "bento"
#define DIR_NAME  "approvals"

/* $XDG_STATE_HOME when absolute, else ~/.local/state. */
static int state_home(char **ret, struct bento_err *err)
{
        const char *state = abs_env("XDG_STATE_HOME"), *home = abs_env("HOME");
        char *s = NULL;
        int r;

        if (state)
                r = asprintf(&s, "%s", state);
        else if (home)
                r = asprintf(&s, "%s/.local/state", home);
        else
                return bento_err_setx(err, ENOENT,
                                      "the approval journal has no home: neither XDG_STATE_HOME "
                                      "nor HOME is an absolute path");
        if (r < 0)
                return bento_err_set(err, ENOMEM, "approval journal");
        *ret = s;
        return 0;
}

bool journal_relocated(void)
{
        return abs_env("XDG_STATE_HOME") != NULL;
}

int journal_dir(char **ret, struct bento_err *err)
{
        cleanup_free char *state = NULL;
        int r = state_home(&state, err);

        if (r < 0 || !state)
                return r < 0 ? r : bento_err_set(err, ENOMEM, "approval journal");
        if (asprintf(ret, "%s/" ROOT_NAME "/" DIR_NAME, state) < 0)
                return bento_err_set(err, ENOMEM, "approval journal");
        return 0;
}

/* The entry's file name inside the journal directory. */
static int entry_name(const char *real, char name[static 70], struct bento_err *err)
{
        char hex[65];

        if (sha256_hex(real, strlen(real), hex) < 0)
                return bento_err_setx(err, EIO, "approval journal: SHA-256 failed in libcrypto");
        snprintf(name, 70, "%s.json", hex);
        return 0;
}

int journal_entry_path(const char *real, char **ret, struct bento_err *err)
{
        cleanup_free char *dir = NULL;
        char name[70];
        int r;

        r = journal_dir(&dir, err);
        if (r == 0)
                r = entry_name(real, name, err);
        if (r < 0)
                return r;
        if (asprintf(ret, "%s/%s", dir, name) < 0)
                return bento_err_set(err, ENOMEM, "approval journal");
        return 0;
}

bool journal_private_node(int fd, const struct stat *st)
{
        uid_t euid = bento_euid();
        char who[64];

        if (st->st_uid != euid && st->st_uid != 0)
                return false;
        if (st->st_mode & (S_IWGRP | S_IWOTH))
                return false;
        return trust_acl_grants_write(fd, NULL, euid, who, sizeof(who)) == 0;
}

bool journal_vouched(int fd, const char *path)
{
        cleanup_trust_report struct trust_report rep = {0};
        struct bento_err err = {0};

        return trust_inspect_fd(fd, path, NULL, &rep, &err) == 0 && !trust_first_fatal(&rep);
}

struct journal_entry *journal_entry_free(struct journal_entry *e)
{
        if (!e)
                return NULL;
        free(e->fingerprint);
        free(e->policy);
        free(e->manifest_path);
        free(e->stamped_at);
        free(e->named_path);
        free(e->mac);
        free(e);
        return NULL;
}

/* The identity fields, all or none: a record with some of them is
 * corrupt. */
static int decode_identity(struct bento_jsonr *rd, const struct bento_json *doc,
                           struct journal_entry *e)
{
        int k = bento_jsonr_string(rd, doc, "named_path", false, &e->named_path);

        if (k <= 0)
                return k;
        if (e->named_path[0] != '/' ||
            bento_jsonr_bool(rd, doc, "named_symlink", &e->named_symlink) != 1 ||
            bento_jsonr_uint(rd, doc, "dev", true, UINT64_MAX, &e->dev) != 1 ||
            bento_jsonr_uint(rd, doc, "ino", true, UINT64_MAX, &e->ino) != 1)
                return -EINVAL;
        e->has_identity = true;
        return 0;
}

static int decode_fields(const struct bento_json *doc, struct journal_entry *e)
{
        struct bento_err err = {0};
        struct bento_jsonr rd;

        bento_jsonr_init(&rd, &err);
        if (bento_jsonr_string(&rd, doc, "fingerprint", true, &e->fingerprint) < 0 ||
            bento_jsonr_string(&rd, doc, "policy", true, &e->policy) < 0 ||
            bento_jsonr_string(&rd, doc, "manifest_path", true, &e->manifest_path) < 0 ||
            bento_jsonr_string(&rd, doc, "stamped_at", true, &e->stamped_at) < 0 ||
            bento_jsonr_bool(&rd, doc, "reviewed", &e->reviewed) < 0 || !*e->fingerprint ||
            decode_identity(&rd, doc, e) < 0 ||
            bento_jsonr_string(&rd, doc, "mac", false, &e->mac) < 0)
                return -EINVAL;
        return 0;
}

static int decode_entry(const char *data, size_t len, struct journal_entry **ret)
{
        cleanup_bento_json struct bento_json *doc = NULL;
        struct journal_entry *e = NULL;
        struct bento_err err = {0};

        if (bento_json_parse(data, len, JOURNAL_ENTRY_MAX, &doc, &err) < 0 ||
            doc->type != BENTO_JSON_OBJECT)
                return -EINVAL;
        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        if (decode_fields(doc, e) < 0) {
                journal_entry_free(e);
                return -EINVAL;
        }
        *ret = e;
        return 0;
}

/* The journal's two directories, opened from the state home down without
 * following a link below it: 0, -ENOTDIR or -ELOOP when one is not a real
 * directory (bento makes both, so someone else put that there), or
 * another -errno. */
static int open_dirs(const char *state, int *ret_root, int *ret_dir)
{
        cleanup_close int sfd = open(state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_close int rfd = -1;
        int dfd;

        if (sfd < 0)
                return -errno;
        rfd = openat(sfd, ROOT_NAME, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (rfd < 0)
                return -errno;
        dfd = openat(rfd, DIR_NAME, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return -errno;
        *ret_root = TAKE_FD(rfd);
        *ret_dir = dfd;
        return 0;
}

static bool not_a_dir(int r)
{
        return r == -ENOTDIR || r == -ELOOP;
}

/* The entry file for key, opened and judged: the descriptor, 0 when there
 * is none, -EPERM when the journal is not private. */
static int open_entry(const char *key, int *ret_fd)
{
        cleanup_free char *state = NULL, *shown = NULL;
        cleanup_close int rfd = -1, dfd = -1, fd = -1;
        struct bento_err err = {0};
        struct stat rst, dst, fst;
        char name[70];
        int r;

        if (!key || state_home(&state, &err) < 0 || !state || entry_name(key, name, &err) < 0)
                return 0;
        r = open_dirs(state, &rfd, &dfd);
        if (r < 0)
                return not_a_dir(r) ? -EPERM : 0;
        fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0 || fstat(rfd, &rst) < 0 || fstat(dfd, &dst) < 0 || fstat(fd, &fst) < 0 ||
            !S_ISREG(fst.st_mode))
                return 0;
        if (asprintf(&shown, "%s/" ROOT_NAME "/" DIR_NAME "/%s", state, name) < 0)
                return 0;
        if (!journal_private_node(rfd, &rst) || !journal_private_node(dfd, &dst) ||
            !journal_private_node(fd, &fst) || !journal_vouched(fd, shown))
                return -EPERM;
        *ret_fd = TAKE_FD(fd);
        return 1;
}

/* Is e what this host's journal key signed?  No key (or an unusable
 * one) means no record is. */
static bool authentic(const struct journal_entry *e)
{
        unsigned char k[JOURNAL_KEY_LEN];
        struct bento_err err = {0};
        bool ok = journal_key_load(k, &err) == 1 && journal_authentic(k, e);

        explicit_bzero(k, sizeof(k));
        return ok;
}

/* journal_find(), telling an entry that is there but not authentic apart
 * (*ret_unauthentic, with 0 returned). */
static int find_entry(const char *key, struct journal_entry **ret, bool *ret_unauthentic)
{
        cleanup_journal_entry struct journal_entry *e = NULL;
        cleanup_free char *data = NULL;
        cleanup_close int fd = -1;
        struct bento_err err = {0};
        size_t len = 0;
        int r;

        *ret = NULL;
        *ret_unauthentic = false;
        r = open_entry(key, &fd);
        if (r <= 0)
                return r;
        if (bento_read_fd(fd, key, JOURNAL_ENTRY_MAX, &data, &len, &err) < 0 || len == 0 ||
            decode_entry(data, len, &e) < 0)
                return 0;
        if (!authentic(e)) {
                *ret_unauthentic = true;
                return 0;
        }
        *ret = TAKE_PTR(e);
        return 1;
}

int journal_find(const char *key, struct journal_entry **ret)
{
        bool unauthentic;

        return find_entry(key, ret, &unauthentic);
}

enum journal_verdict journal_lookup(const char *real, const char *stamp,
                                    struct journal_entry **ret_entry)
{
        cleanup_journal_entry struct journal_entry *e = NULL;
        enum journal_verdict v;
        bool unauthentic;
        int r;

        if (ret_entry)
                *ret_entry = NULL;
        r = find_entry(real, &e, &unauthentic);
        if (r < 0)
                return JOURNAL_UNTRUSTED;
        if (unauthentic)
                return JOURNAL_UNAUTHENTICATED;
        /* Filed under real but about another file: a name entry left
         * from when real was a link (journal_record()). */
        if (r == 0 || strcmp(e->manifest_path, real) != 0)
                return JOURNAL_ABSENT;
        v = stamp && strcmp(e->fingerprint, stamp) == 0 ? JOURNAL_MATCHES : JOURNAL_FOREIGN;
        if (ret_entry)
                *ret_entry = TAKE_PTR(e);
        return v;
}

const char *journal_verdict_to_string(enum journal_verdict v)
{
        switch (v) {
        case JOURNAL_UNTRUSTED:
                return "untrusted";
        case JOURNAL_UNAUTHENTICATED:
                return "unauthenticated";
        case JOURNAL_FOREIGN:
                return "foreign";
        case JOURNAL_MATCHES:
                return "matches";
        case JOURNAL_ABSENT:
        default:
                return "absent";
        }
}

int journal_make_dirs(const char *dir, struct bento_err *err)
{
        cleanup_free char *p = strdup(dir);

        if (!p)
                return bento_err_set(err, ENOMEM, "approval journal");
        for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
                if (s)
                        *s = '\0';
                if (mkdir(p, 0700) < 0 && errno != EEXIST)
                        return bento_err_set(err, errno, "cannot create the approval journal '%s'",
                                             p);
                if (!s)
                        return 0;
                *s = '/';
        }
}

static int render_entry(const struct journal_entry *e, const char *mac, char **ret, size_t *ret_len,
                        struct bento_err *err)
{
        cleanup_jsonw struct bento_jsonw w = {0};

        if (bento_jsonw_init(&w, true, err) < 0)
                return -err->code;
        bento_jsonw_open_object(&w);
        bento_jsonw_kstring(&w, "fingerprint", e->fingerprint);
        bento_jsonw_kstring(&w, "policy", e->policy);
        bento_jsonw_kstring(&w, "manifest_path", e->manifest_path);
        bento_jsonw_kstring(&w, "stamped_at", e->stamped_at);
        bento_jsonw_kbool(&w, "reviewed", e->reviewed);
        if (e->has_identity) {
                bento_jsonw_kstring(&w, "named_path", e->named_path);
                bento_jsonw_kbool(&w, "named_symlink", e->named_symlink);
                bento_jsonw_kuint(&w, "dev", e->dev);
                bento_jsonw_kuint(&w, "ino", e->ino);
        }
        bento_jsonw_kstring(&w, "mac", mac);
        bento_jsonw_close_object(&w);
        return bento_jsonw_finish(&w, ret, ret_len);
}

/* Temporary file in dir, written, 0600, flushed, renamed onto dir/name. */
static int replace_entry(const char *dir, const char *name, const char *data, size_t len,
                         struct bento_err *err)
{
        cleanup_free char *tmp = NULL, *dst = NULL;
        cleanup_close int fd = -1;
        const char *step = NULL;
        int r;

        if (asprintf(&tmp, "%s/.bento-approval-XXXXXX", dir) < 0 ||
            asprintf(&dst, "%s/%s", dir, name) < 0)
                return bento_err_set(err, ENOMEM, "approval journal");
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return bento_err_set(err, errno, "cannot create a temporary file in '%s'", dir);
        r = bento_commit_temp_file(TAKE_FD(fd), tmp, dst, data, len, 0600, &step);
        if (r < 0)
                return bento_err_set(err, -r, "cannot write the approval record '%s'", dst);
        return 0;
}

/* After make_dirs(): the journal's directories must be real ones, or the
 * record would land where a link sends it (and never be believed). */
static int check_dirs(const char *dir, struct bento_err *err)
{
        cleanup_free char *state = NULL;
        cleanup_close int rfd = -1, dfd = -1;
        int r = state_home(&state, err);

        if (r < 0 || !state)
                return r < 0 ? r : bento_err_set(err, ENOMEM, "approval journal");
        r = open_dirs(state, &rfd, &dfd);
        if (not_a_dir(r))
                return bento_err_setx(err, ELOOP,
                                      "the approval journal '%s' is reached through something "
                                      "that is not a directory bento made (a symbolic link?) "
                                      "below '%s'; remove it, or point XDG_STATE_HOME elsewhere",
                                      dir, state);
        if (r < 0)
                return bento_err_set(err, -r, "cannot open the approval journal '%s'", dir);
        return 0;
}

/* The record filed under key. */
static int file_under(const char *dir, const char *key, const char *json, size_t len,
                      struct bento_err *err)
{
        char name[70];
        int r = entry_name(key, name, err);

        return r < 0 ? r : replace_entry(dir, name, json, len, err);
}

/* The record's JSON with its mac under the journal key (made when
 * missing: approve is the only writer). */
static int signed_entry(const struct journal_entry *e, char **ret, size_t *ret_len,
                        struct bento_err *err)
{
        unsigned char k[JOURNAL_KEY_LEN];
        char mac[JOURNAL_MAC_HEX_LEN + 1];
        int r = journal_key_ensure(k, err);

        if (r == 0 && journal_mac(k, e, mac) < 0)
                r = bento_err_setx(err, EIO, "approval journal: HMAC-SHA256 failed in libcrypto");
        explicit_bzero(k, sizeof(k));
        return r < 0 ? r : render_entry(e, mac, ret, ret_len, err);
}

int journal_record(const struct journal_entry *e, struct bento_err *err)
{
        cleanup_free char *dir = NULL, *json = NULL;
        size_t len = 0;
        int r;

        r = journal_dir(&dir, err);
        if (r < 0)
                return r;
        if (!dir)
                return bento_err_set(err, ENOMEM, "approval journal");
        r = journal_make_dirs(dir, err);
        if (r == 0)
                r = check_dirs(dir, err);
        if (r == 0)
                r = signed_entry(e, &json, &len, err);
        if (r == 0)
                r = file_under(dir, e->manifest_path, json, len, err);
        if (r == 0 && e->has_identity && e->named_path &&
            strcmp(e->named_path, e->manifest_path) != 0)
                r = file_under(dir, e->named_path, json, len, err);
        return r;
}

/* Does path (clean, absolute) equal or hold x, as named or resolved? */
static bool reaches(const char *path, const char *x, const char *x_real)
{
        return path_within(path, x) || (x_real && path_within(path, x_real));
}

int journal_within(const char *const *paths, size_t n, size_t *ret_index, char **ret_where)
{
        cleanup_free char *dir = NULL, *dir_clean = NULL, *root = NULL;
        cleanup_free char *dir_real = NULL, *root_real = NULL;
        struct bento_err err = {0};
        char *slash;

        if (journal_dir(&dir, &err) < 0)
                return err.code == ENOMEM ? -ENOMEM : 0;
        dir_clean = path_clean(dir);
        root = dir_clean ? strdup(dir_clean) : NULL;
        slash = root ? strrchr(root, '/') : NULL;
        if (!slash)
                return -ENOMEM;
        *slash = '\0';
        if (path_resolve(dir_clean, &dir_real) < 0 || path_resolve(root, &root_real) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (!paths[i] || (!reaches(paths[i], root, root_real) &&
                                  !reaches(paths[i], dir_clean, dir_real)))
                        continue;
                *ret_where = TAKE_PTR(dir_clean);
                *ret_index = i;
                return 1;
        }
        return 0;
}

/* ---- the line diff ----------------------------------------------------- */

struct lines {
        const char **at; /* start of each line */
        size_t *len;     /* its length without the newline */
        size_t n;
};

/* Grow both arrays of l to hold cap lines. */
static int lines_grow(struct lines *l, size_t cap)
{
        const char **at = realloc(l->at, cap * sizeof(*at));
        size_t *len;

        if (!at)
                return -ENOMEM;
        l->at = at;
        len = realloc(l->len, cap * sizeof(*len));
        if (!len)
                return -ENOMEM;
        l->len = len;
        return 0;
}

static int split_lines(const char *s, struct lines *ret)
{
        size_t cap = 0;

        ret->n = 0;
        while (*s) {
                const char *nl = strchrnul(s, '\n');

                if (ret->n == cap && lines_grow(ret, cap = cap ? 2 * cap : 16) < 0)
                        return -ENOMEM;
                ret->at[ret->n] = s;
                ret->len[ret->n++] = (size_t) (nl - s);
                s = *nl ? nl + 1 : nl;
        }
        return 0;
}

static bool same(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
        return a->len[i] == b->len[j] && memcmp(a->at[i], b->at[j], a->len[i]) == 0;
}

static void emit(FILE *f, char mark, const struct lines *l, size_t i)
{
        fprintf(f, "%c %.*s\n", mark, (int) l->len[i], l->at[i]);
}

/* The middle part (after a common prefix, before a common suffix) of two
 * texts through an LCS table; beyond DIFF_CELLS_MAX it is shown as all
 * removed then all added, which is still a correct diff. */
static void diff_middle(FILE *f, const struct lines *a, size_t a0, size_t a1, const struct lines *b,
                        size_t b0, size_t b1)
{
        size_t na = a1 - a0, nb = b1 - b0, i = 0, j = 0;
        cleanup_free unsigned *t = NULL;

        if (na && nb && na <= DIFF_CELLS_MAX / nb)
                t = calloc((na + 1) * (nb + 1), sizeof(*t));
        if (!t) {
                for (size_t k = a0; k < a1; k++)
                        emit(f, '-', a, k);
                for (size_t k = b0; k < b1; k++)
                        emit(f, '+', b, k);
                return;
        }
        /* t[i][j] = LCS length of a[a0+i..] and b[b0+j..] */
        for (size_t x = na; x-- > 0;)
                for (size_t y = nb; y-- > 0;)
                        t[x * (nb + 1) + y] =
                            same(a, a0 + x, b, b0 + y)
                                ? t[(x + 1) * (nb + 1) + y + 1] + 1
                                : (t[(x + 1) * (nb + 1) + y] > t[x * (nb + 1) + y + 1]
                                       ? t[(x + 1) * (nb + 1) + y]
                                       : t[x * (nb + 1) + y + 1]);
        while (i < na || j < nb) {
                if (i < na && j < nb && same(a, a0 + i, b, b0 + j)) {
                        emit(f, ' ', a, a0 + i++);
                        j++;
                } else if (i < na &&
                           (j == nb || t[(i + 1) * (nb + 1) + j] >= t[i * (nb + 1) + j + 1]))
                        emit(f, '-', a, a0 + i++);
                else
                        emit(f, '+', b, b0 + j++);
        }
}

char *journal_diff(const char *old_text, const char *new_text)
{
        struct lines a = {0}, b = {0};
        char *out = NULL;
        size_t size = 0;
        FILE *f = NULL;

        if (split_lines(old_text ? old_text : "", &a) == 0 &&
            split_lines(new_text ? new_text : "", &b) == 0)
                f = open_memstream(&out, &size);
        if (f) {
                size_t pre = 0, suf = 0;

                while (pre < a.n && pre < b.n && same(&a, pre, &b, pre))
                        emit(f, ' ', &a, pre++);
                while (suf < a.n - pre && suf < b.n - pre &&
                       same(&a, a.n - 1 - suf, &b, b.n - 1 - suf))
                        suf++;
                diff_middle(f, &a, pre, a.n - suf, &b, pre, b.n - suf);
                for (size_t k = a.n - suf; k < a.n; k++)
                        emit(f, ' ', &a, k);
                if (fclose(f) != 0) {
                        free(out);
                        out = NULL;
                }
        }
        free(a.at);
        free(a.len);
        free(b.at);
        free(b.len);
        return out;
}
