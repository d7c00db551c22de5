/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The journal key and the record MACs (journal-key.h).  The key is reached
 * from the passwd home down through directory descriptors opened with
 * O_NOFOLLOW and judged on the descriptors read, as journal.c does for the
 * records, so a link planted below the home is never followed.
 */
#include "journal-key.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "journal-internal.h"
#include "sha256.h"
#include "shields/shields.h"
#include "manifest/self.h"

#define KEY_DIR  ".local/state/bento"
#define KEY_NAME "journal.key"

static const char *test_home;

void journal_key_use_home(const char *home)
{
        test_home = home;
}

static int key_home(char **ret, struct bento_err *err)
{
        int r;

        if (test_home) {
                *ret = strdup(test_home);
                return *ret ? 0 : bento_err_set(err, ENOMEM, "journal key");
        }
        r = shields_passwd_home(NULL, bento_euid(), ret, err);
        if (r < 0)
                return r;
        if (!*ret || (*ret)[0] != '/')
                return bento_err_setx(err, ENOENT,
                                      "the approval journal key has no home: the passwd "
                                      "database gives no absolute home for uid %ju",
                                      (uintmax_t) bento_euid());
        return 0;
}

int journal_key_path(char **ret, struct bento_err *err)
{
        cleanup_free char *home = NULL;
        int r = key_home(&home, err);

        if (r < 0)
                return r;
        if (asprintf(ret, "%s/" KEY_DIR "/" KEY_NAME, home) < 0)
                return bento_err_set(err, ENOMEM, "journal key");
        return 0;
}

/* home/.local/state/bento as a descriptor, each step below home a real
 * directory (O_NOFOLLOW): -ELOOP or -ENOTDIR when one is not. */
static int open_key_dir(const char *home)
{
        static const char *const steps[] = {".local", "state", "bento"};
        cleanup_close int fd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd < 0)
                return -errno;
        for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
                int next = openat(fd, steps[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

                if (next < 0)
                        return -errno;
                close(fd);
                fd = next;
        }
        return TAKE_FD(fd);
}

/* The open key file fd (in directory dfd, shown as path) is private. */
static int judge_key(int dfd, int fd, const char *path, struct bento_err *err)
{
        struct stat dst, fst;

        if (fstat(dfd, &dst) < 0 || fstat(fd, &fst) < 0)
                return bento_err_set(err, errno, "cannot inspect the journal key '%s'", path);
        if (!S_ISREG(fst.st_mode) || !journal_private_node(dfd, &dst) ||
            !journal_private_node(fd, &fst) || (fst.st_mode & (S_IRGRP | S_IROTH)) ||
            !journal_vouched(fd, path))
                return bento_err_setx(err, EPERM,
                                      "the approval journal key '%s' is not private (it must be "
                                      "a regular file only its owner, you or root, can read "
                                      "and write, in directories nobody else can write)",
                                      path);
        if (fst.st_size != JOURNAL_KEY_LEN)
                return bento_err_setx(err, EINVAL,
                                      "the approval journal key '%s' is not %d bytes long", path,
                                      JOURNAL_KEY_LEN);
        return 0;
}

static int read_key(int dfd, int fd, const char *path, unsigned char *key, struct bento_err *err)
{
        cleanup_free char *data = NULL;
        size_t len = 0;
        int r = judge_key(dfd, fd, path, err);

        if (r == 0)
                r = bento_read_fd(fd, path, JOURNAL_KEY_LEN, &data, &len, err);
        if (r == 0 && len != JOURNAL_KEY_LEN)
                r = bento_err_setx(err, EINVAL,
                                   "the approval journal key '%s' is not %d bytes long", path,
                                   JOURNAL_KEY_LEN);
        if (r == 0)
                memcpy(key, data, JOURNAL_KEY_LEN);
        if (data)
                explicit_bzero(data, len);
        return r < 0 ? r : 1;
}

int journal_key_load(unsigned char key[static JOURNAL_KEY_LEN], struct bento_err *err)
{
        cleanup_free char *home = NULL, *path = NULL;
        cleanup_close int dfd = -1, fd = -1;
        int r = key_home(&home, err);

        if (r < 0)
                return r == -ENOENT ? 0 : r;
        if (asprintf(&path, "%s/" KEY_DIR "/" KEY_NAME, home) < 0)
                return bento_err_set(err, ENOMEM, "journal key");
        dfd = open_key_dir(home);
        if (dfd == -ENOENT)
                return 0;
        if (dfd == -ELOOP || dfd == -ENOTDIR)
                return bento_err_setx(err, EPERM,
                                      "the approval journal key '%s' is reached through something "
                                      "that is not a directory (a symbolic link?) below '%s'",
                                      path, home);
        if (dfd < 0)
                return bento_err_set(err, -dfd, "cannot open the directory of '%s'", path);
        fd = openat(dfd, KEY_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0 && errno == ENOENT)
                return 0;
        if (fd < 0)
                return bento_err_set(err, errno == ELOOP ? EPERM : errno,
                                     "cannot open the approval journal key '%s'", path);
        return read_key(dfd, fd, path, key, err);
}

static int random_key(unsigned char *key)
{
        size_t got = 0;

        while (got < JOURNAL_KEY_LEN) {
                ssize_t n = getrandom(key + got, JOURNAL_KEY_LEN - got, 0);

                if (n < 0 && errno != EINTR)
                        return -errno;
                got += n > 0 ? (size_t) n : 0;
        }
        return 0;
}

/* Fill the new, empty key file fd (name in dfd) or remove it again,
 * checking it is still the file made before removing it. */
static int fill_key(int dfd, int fd, const char *path, struct bento_err *err)
{
        unsigned char key[JOURNAL_KEY_LEN];
        struct stat made, now;
        int r = random_key(key);

        if (r == 0 && (fchmod(fd, 0600) < 0 ||
                       write(fd, key, sizeof(key)) != (ssize_t) sizeof(key) || fsync(fd) < 0))
                r = -(errno ? errno : EIO);
        explicit_bzero(key, sizeof(key));
        if (r == 0) {
                fsync(dfd);
                return 0;
        }
        if (fstat(fd, &made) == 0 && fstatat(dfd, KEY_NAME, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
            made.st_dev == now.st_dev && made.st_ino == now.st_ino)
                unlinkat(dfd, KEY_NAME, 0);
        return bento_err_set(err, -r, "cannot write the approval journal key '%s'", path);
}

/* Make the key file; an EEXIST (another approve won the race) is fine. */
static int create_key(struct bento_err *err)
{
        cleanup_free char *home = NULL, *dir = NULL, *path = NULL;
        cleanup_close int dfd = -1, fd = -1;
        int r = key_home(&home, err);

        if (r < 0)
                return r;
        if (asprintf(&dir, "%s/" KEY_DIR, home) < 0 || asprintf(&path, "%s/" KEY_NAME, dir) < 0)
                return bento_err_set(err, ENOMEM, "journal key");
        r = journal_make_dirs(dir, err);
        if (r < 0)
                return r;
        dfd = open_key_dir(home);
        if (dfd < 0)
                return bento_err_set(err, -dfd == ENOTDIR ? ELOOP : -dfd,
                                     "cannot open '%s' without following a link", dir);
        fd = openat(dfd, KEY_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST)
                return 0;
        if (fd < 0)
                return bento_err_set(err, errno, "cannot create the approval journal key '%s'",
                                     path);
        return fill_key(dfd, fd, path, err);
}

int journal_key_ensure(unsigned char key[static JOURNAL_KEY_LEN], struct bento_err *err)
{
        int r = journal_key_load(key, err);

        if (r == 0) {
                r = create_key(err);
                if (r == 0)
                        r = journal_key_load(key, err);
                if (r == 0)
                        return bento_err_setx(err, ENOENT,
                                              "the approval journal key vanished "
                                              "right after it was made");
        }
        if (r == -EPERM || r == -EINVAL) {
                char why[sizeof(err->msg)];

                snprintf(why, sizeof(why), "%s", err->msg);
                return bento_err_setx(err, -r,
                                      "%s; remove it (every record it signed then needs a new "
                                      "`bento approve`)",
                                      why);
        }
        return r < 0 ? r : 0;
}

/* One field of the canonical encoding: its name, a NUL, its length in
 * decimal, a NUL, its bytes.  Lengths make the encoding unambiguous, so no
 * two different records feed the same bytes. */
static void feed_field(struct hmac_sha256 *m, const char *name, const char *value)
{
        char len[24];
        int n = snprintf(len, sizeof(len), "%zu", value ? strlen(value) : (size_t) 0);

        hmac_sha256_feed(m, name, strlen(name) + 1);
        hmac_sha256_feed(m, len, (size_t) n + 1);
        if (value)
                hmac_sha256_feed(m, value, strlen(value));
}

static void feed_uint(struct hmac_sha256 *m, const char *name, uint64_t v)
{
        char s[24];

        snprintf(s, sizeof(s), "%" PRIu64, v);
        feed_field(m, name, s);
}

int journal_mac(const unsigned char key[static JOURNAL_KEY_LEN], const struct journal_entry *e,
                char hex[static JOURNAL_MAC_HEX_LEN + 1])
{
        unsigned char tag[SHA256_LEN];
        struct hmac_sha256 m;
        int r;

        hmac_sha256_begin(&m, key, JOURNAL_KEY_LEN);
        feed_field(&m, "bento-journal-record", "1");
        feed_field(&m, "fingerprint", e->fingerprint);
        feed_field(&m, "manifest_path", e->manifest_path);
        feed_field(&m, "stamped_at", e->stamped_at);
        feed_field(&m, "reviewed", e->reviewed ? "true" : "false");
        feed_field(&m, "policy", e->policy);
        feed_field(&m, "has_identity", e->has_identity ? "true" : "false");
        if (e->has_identity) {
                feed_field(&m, "named_path", e->named_path);
                feed_field(&m, "named_symlink", e->named_symlink ? "true" : "false");
                feed_uint(&m, "dev", e->dev);
                feed_uint(&m, "ino", e->ino);
        }
        r = hmac_sha256_end(&m, tag);
        if (r == 0)
                sha256_to_hex(tag, hex);
        return r;
}

bool journal_authentic(const unsigned char key[static JOURNAL_KEY_LEN],
                       const struct journal_entry *e)
{
        char want[JOURNAL_MAC_HEX_LEN + 1];

        if (!e->mac || strlen(e->mac) != JOURNAL_MAC_HEX_LEN || journal_mac(key, e, want) < 0)
                return false;
        return bytes_equal_ct(want, e->mac, JOURNAL_MAC_HEX_LEN);
}
