/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Manifest trust inspection (trust.h, docs/approve.md, "What approve does, in order").  The order
 * of the findings is fixed: the file itself, then its directories from the nearest up to the root,
 * then the symbolic links met while following the name as given; approve refuses on the first fatal
 * one, so the nearest cause is the one named.
 */
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "path.h"
#include "self.h"

#define ID_FILE_MAX (8u << 20) /* passwd/group files larger than this are not believed */

#define ACL_XATTR      "system.posix_acl_access"
#define ACL_VERSION    2
#define ACL_TAG_USER   0x02
#define ACL_TAG_GROUP  0x08
#define ACL_TAG_MASK   0x10
#define ACL_PERM_WRITE 0x02

/* bento never changes its user: asked of the kernel once (self.h), not
 * once per directory of every path it inspects. */
static uid_t host_euid(const struct trust_host *h)
{
        if (h && h->euid_set)
                return h->euid;
        return bento_euid();
}

static bool is_foreign(const struct trust_host *h, uid_t owner)
{
        return owner != 0 && owner != host_euid(h);
}

/* ---- passwd and group files ------------------------------------------ */

/* Split a colon-separated line in place into at most n fields; returns how
 * many were found. */
static size_t split_fields(char *line, char **f, size_t n)
{
        size_t i = 0;

        while (i < n && line) {
                f[i++] = line;
                line = strchr(line, ':');
                if (line)
                        *line++ = '\0';
        }
        return i;
}

static bool parse_id(const char *s, unsigned long *ret)
{
        char *end = NULL;

        if (!*s || *s < '0' || *s > '9')
                return false;
        errno = 0;
        *ret = strtoul(s, &end, 10);
        return errno == 0 && *end == '\0' && *ret <= UINT32_MAX;
}

/* The uid of the passwd entry called name, or false when there is none. */
static bool uid_of(const char *passwd, const char *name, uid_t *ret)
{
        cleanup_free char *copy = strdup(passwd);
        char *save = NULL;

        if (!copy)
                return false;
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char *f[4];
                unsigned long uid;

                if (split_fields(l, f, 4) == 4 && strcmp(f[0], name) == 0 && parse_id(f[2], &uid)) {
                        *ret = (uid_t) uid;
                        return true;
                }
        }
        return false;
}

/* Does any passwd entry other than euid's have gid as its primary group? */
static bool primary_of_other(const char *passwd, gid_t gid, uid_t euid)
{
        cleanup_free char *copy = strdup(passwd);
        char *save = NULL;

        if (!copy)
                return true;
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char *f[4];
                unsigned long uid, g;

                if (split_fields(l, f, 4) == 4 && parse_id(f[2], &uid) && parse_id(f[3], &g) &&
                    g == gid && uid != euid)
                        return true;
        }
        return false;
}

/* Does the group file list, for gid, a member who is not euid?  A group
 * missing from the file counts as having unknown (so other) members. */
static bool member_of_other(const char *group, const char *passwd, gid_t gid, uid_t euid)
{
        cleanup_free char *copy = strdup(group);
        char *save = NULL;

        if (!copy)
                return true;
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char *f[4], *msave = NULL;
                unsigned long g;

                if (split_fields(l, f, 4) != 4 || !parse_id(f[2], &g) || g != gid)
                        continue;
                for (char *m = strtok_r(f[3], ",", &msave); m; m = strtok_r(NULL, ",", &msave)) {
                        uid_t uid;

                        if (!uid_of(passwd, m, &uid) || uid != euid)
                                return true;
                }
                return false;
        }
        return true;
}

bool trust_group_private(const struct trust_host *host, gid_t gid)
{
        const char *pw_path = host && host->passwd_path ? host->passwd_path : "/etc/passwd";
        const char *gr_path = host && host->group_path ? host->group_path : "/etc/group";
        cleanup_free char *passwd = NULL, *group = NULL;
        struct bento_err err = {0};
        size_t len = 0;
        uid_t euid = host_euid(host);

        if (bento_read_file(pw_path, ID_FILE_MAX, &passwd, &len, &err) < 0 ||
            bento_read_file(gr_path, ID_FILE_MAX, &group, &len, &err) < 0)
                return false;
        return !primary_of_other(passwd, gid, euid) && !member_of_other(group, passwd, gid, euid);
}

/* ---- ACLs --------------------------------------------------------------- */

static uint32_t le32(const unsigned char *p)
{
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
               (uint32_t) p[3] << 24;
}

static ssize_t get_acl(int fd, const char *path, void *buf, size_t size)
{
        return fd >= 0 ? fgetxattr(fd, ACL_XATTR, buf, size) : getxattr(path, ACL_XATTR, buf, size);
}

/* Walk the entries of a version-2 ACL blob (4-byte header, 8-byte entries:
 * tag u16, perm u16, id u32, little-endian). */
static int acl_scan(const unsigned char *b, size_t n, uid_t euid, char *who, size_t who_size)
{
        bool mask_w = true, hit = false;

        if (n < 4 || (n - 4) % 8 != 0 || le32(b) != ACL_VERSION)
                return -EINVAL;
        for (size_t o = 4; o < n; o += 8)
                if ((b[o] | b[o + 1] << 8) == ACL_TAG_MASK)
                        mask_w = (b[o + 2] & ACL_PERM_WRITE) != 0;
        for (size_t o = 4; o < n && !hit; o += 8) {
                unsigned tag = b[o] | b[o + 1] << 8;
                uint32_t id = le32(b + o + 4);

                if (!(b[o + 2] & ACL_PERM_WRITE))
                        continue;
                if (tag == ACL_TAG_USER && id != euid)
                        hit = snprintf(who, who_size, "user %u", (unsigned) id) >= 0;
                else if (tag == ACL_TAG_GROUP)
                        hit = snprintf(who, who_size, "group %u", (unsigned) id) >= 0;
        }
        return hit && mask_w ? 1 : 0;
}

int trust_acl_grants_write(int fd, const char *path, uid_t euid, char *who, size_t who_size)
{
        cleanup_free unsigned char *buf = NULL;
        ssize_t n = get_acl(fd, path, NULL, 0);

        if (n < 0)
                return errno == ENODATA || errno == ENOTSUP ? 0 : -errno;
        buf = malloc((size_t) n + 1);
        if (!buf)
                return -ENOMEM;
        n = get_acl(fd, path, buf, (size_t) n);
        if (n < 0)
                return errno == ENODATA || errno == ENOTSUP ? 0 : -errno;
        return acl_scan(buf, (size_t) n, euid, who, who_size);
}

/* ---- findings ---------------------------------------------------------- */

struct inspect {
        const struct trust_host *host;
        const char *path; /* as given */
        struct trust_report rep;
};

__attribute__((format(printf, 5, 6))) static int add_flaw(struct inspect *in,
                                                          enum trust_flaw_kind kind, bool fatal,
                                                          const char *hint, const char *fmt, ...)
{
        struct trust_flaw *v;
        char *reason = NULL, *h = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&reason, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        if (hint && !(h = strdup(hint))) {
                free(reason);
                return -ENOMEM;
        }
        v = realloc(in->rep.flaws, (in->rep.n_flaws + 1) * sizeof(*v));
        if (!v) {
                free(reason);
                free(h);
                return -ENOMEM;
        }
        in->rep.flaws = v;
        v[in->rep.n_flaws++] = (struct trust_flaw){kind, fatal, reason, h};
        /* cppcheck-suppress memleak ; reason and h now belong to the report */
        return 0;
}

/* A hint naming a path: "`chmod g-w <path>`". */
__attribute__((format(printf, 1, 2))) static char *hint_for(const char *fmt, ...)
{
        char *s = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&s, fmt, ap);
        va_end(ap);
        return r < 0 ? NULL : s;
}

static int judge_file(struct inspect *in, int fd, const struct stat *st)
{
        cleanup_free char *hint = NULL;
        char who[64];
        mode_t mode = st->st_mode & 07777;

        if (is_foreign(in->host, st->st_uid))
                return add_flaw(in, TRUST_FILE_FOREIGN_OWNER, true,
                                "if you are root, `chown 0` the file to take it over; otherwise "
                                "keep the manifest somewhere you own",
                                "%s is owned by uid %u, not by you", in->path,
                                (unsigned) st->st_uid);
        hint = hint_for("`chmod go-w %s` (approve writes it back without those bits)", in->path);
        if (!hint)
                return -ENOMEM;
        if (trust_acl_grants_write(fd, NULL, host_euid(in->host), who, sizeof(who)) == 1)
                return add_flaw(in, TRUST_FILE_SHARED_WRITE, false, hint,
                                "%s has an ACL entry that lets %s rewrite it", in->path, who);
        if (mode & S_IWOTH)
                return add_flaw(in, TRUST_FILE_SHARED_WRITE, false, hint,
                                "%s is world-writable (mode %04o)", in->path, (unsigned) mode);
        if ((mode & S_IWGRP) && ((mode & S_ISGID) || !trust_group_private(in->host, st->st_gid)))
                return add_flaw(in, TRUST_FILE_SHARED_WRITE, false, hint,
                                "%s is writable by its group %u, which has other members (mode "
                                "%04o)",
                                in->path, (unsigned) st->st_gid, (unsigned) mode);
        return 0;
}

/* The write-bit findings of one directory; sticky ones are exempt. */
static int judge_dir_bits(struct inspect *in, const char *dir, const struct stat *st)
{
        cleanup_free char *hint = NULL;
        mode_t mode = st->st_mode & 07777;
        char who[64];

        if (mode & S_ISVTX)
                return 0;
        if (trust_acl_grants_write(-1, dir, host_euid(in->host), who, sizeof(who)) == 1)
                return add_flaw(in, TRUST_DIR_ACL, true,
                                "keep the manifest in a directory only you can write",
                                "the directory %s has an ACL entry that lets %s replace %s", dir,
                                who, in->path);
        if (mode & S_IWOTH) {
                hint = hint_for("`chmod o-w %s`, or keep the manifest somewhere only you can "
                                "write",
                                dir);
                return add_flaw(in, TRUST_DIR_WORLD_WRITABLE, true, hint,
                                "the directory %s is world-writable (mode %04o) and not sticky, "
                                "so anyone can replace %s",
                                dir, (unsigned) mode, in->path);
        }
        if (!(mode & S_IWGRP))
                return 0;
        hint = hint_for("`chmod g-w %s`", dir);
        if ((mode & S_ISGID) || !trust_group_private(in->host, st->st_gid))
                return add_flaw(in, TRUST_DIR_GROUP_SHARED, true, hint,
                                "the directory %s is writable by its group %u (mode %04o), %s, "
                                "so other members can replace %s",
                                dir, (unsigned) st->st_gid, (unsigned) mode,
                                (mode & S_ISGID) ? "set-group-ID like a shared project"
                                                 : "which has other members",
                                in->path);
        return add_flaw(in, TRUST_DIR_GROUP_PRIVATE, false, hint,
                        "the directory %s is group-writable (mode %04o)", dir, (unsigned) mode);
}

/* The directory holding real, and each ancestor up to "/". */
static int judge_dirs(struct inspect *in, const char *real)
{
        cleanup_free char *dir = strdup(real);
        int r = 0;

        if (!dir)
                return -ENOMEM;
        while (r == 0 && strcmp(dir, "/") != 0) {
                char *slash = strrchr(dir, '/');
                struct stat st;

                if (!slash)
                        break;
                slash[slash == dir ? 1 : 0] = '\0';
                if (path_stat(dir, &st) < 0)
                        continue; /* unreadable on the way: nothing to judge */
                if (is_foreign(in->host, st.st_uid))
                        r = add_flaw(in, TRUST_DIR_FOREIGN_OWNER, true,
                                     "keep the manifest somewhere you own",
                                     "the directory %s is owned by uid %u, who can replace %s", dir,
                                     (unsigned) st.st_uid, in->path);
                else
                        r = judge_dir_bits(in, dir, &st);
        }
        return r;
}

/* Can someone other than the caller add, remove or rename entries of dir?
 * Unlike judge_dir_bits(), a sticky bit does not help here: the owner of
 * a link may always replace it. */
static bool dir_open_to_others(const struct inspect *in, const char *dir)
{
        struct stat st;
        char who[64];

        if (path_stat(dir, &st) < 0)
                return true;
        if (is_foreign(in->host, st.st_uid) || (st.st_mode & S_IWOTH))
                return true;
        if ((st.st_mode & S_IWGRP) &&
            ((st.st_mode & S_ISGID) || !trust_group_private(in->host, st.st_gid)))
                return true;
        return trust_acl_grants_write(-1, dir, host_euid(in->host), who, sizeof(who)) == 1;
}

static int judge_link(struct inspect *in, const char *link, const char *dir, const struct stat *st)
{
        if (!is_foreign(in->host, st->st_uid) || !dir_open_to_others(in, dir))
                return 0;
        return add_flaw(in, TRUST_SYMLINK_FOREIGN, true,
                        "name the manifest by its real path, or keep it somewhere you own",
                        "the symbolic link %s on the way to %s belongs to uid %u and sits in %s, "
                        "which others can write",
                        link, in->path, (unsigned) st->st_uid, dir);
}

static int judge_walked_link(const char *link, const char *dir, void *userdata)
{
        struct stat st;

        if (path_lstat(link, &st) < 0)
                return 0;
        return judge_link(userdata, link, dir, &st);
}

/* Follow the name as given, as the kernel did to open it (path.c's walker:
 * ".." after a link steps up from the link's target), and judge each link
 * on the way. */
static int walk_links(struct inspect *in)
{
        cleanup_free char *cwd = NULL, *abs = NULL;

        if (in->path[0] != '/') {
                char *s = NULL;

                /* not path_join: cleaning would drop a ".." the kernel
                 * applied after a link */
                cwd = getcwd(NULL, 0);
                if (!cwd || asprintf(&s, "%s/%s", cwd, in->path) < 0)
                        return -ENOMEM;
                abs = s;
        }
        return path_walk_links(abs ? abs : in->path, judge_walked_link, in);
}

/* The symlink-resolved location of fd; *ret stays NULL when /proc cannot
 * tell.  Fails when that location is now another file. */
static int locate(int fd, const char *path, const struct stat *st, char **ret,
                  struct bento_err *err)
{
        char link[64], buf[PATH_MAX];
        struct stat now;
        ssize_t n;

        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, buf, sizeof(buf) - 1);
        if (n <= 0 || buf[0] != '/')
                return 0;
        buf[n] = '\0';
        if (path_stat(buf, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino)
                return bento_err_setx(
                    err, ESTALE, "%s moved while it was being read; run the command again", path);
        *ret = strdup(buf);
        return *ret ? 0 : bento_err_set(err, ENOMEM, "inspecting %s", path);
}

int trust_inspect_fd(int fd, const char *path, const struct trust_host *host,
                     struct trust_report *ret, struct bento_err *err)
{
        struct inspect in = {host, path, {0}};
        struct stat st;
        int r;

        if (fstat(fd, &st) < 0)
                return bento_err_set(err, errno, "cannot inspect %s", path);
        if (!S_ISREG(st.st_mode))
                return bento_err_setx(err, EINVAL,
                                      "%s is not a regular file, so there is nothing to vouch for "
                                      "its permissions",
                                      path);
        /* The directories judged up from the real path are the ones the
         * walk of the name as given steps down through (the same names
         * when no link is on the way): one memo (path.h) answers both,
         * and nothing here changes the host. */
        path_cache_begin();
        r = locate(fd, path, &st, &in.rep.real_path, err);
        if (r < 0) {
                path_cache_end();
                return r;
        }
        r = judge_file(&in, fd, &st);
        if (r == 0 && in.rep.real_path)
                r = judge_dirs(&in, in.rep.real_path);
        else if (r == 0)
                r = add_flaw(&in, TRUST_UNLOCATED, true, NULL,
                             "where %s lives cannot be established (/proc/self/fd is not "
                             "available), so nothing tells who else can rewrite it",
                             path);
        if (r == 0)
                r = walk_links(&in);
        path_cache_end();
        if (r < 0) {
                trust_report_done(&in.rep);
                return bento_err_set(err, -r, "inspecting %s", path);
        }
        *ret = in.rep;
        return 0;
}

/* manifest_load()'s size refusal, as one problem. */
static int too_large(const char *path, struct manifest_problems *problems, struct bento_err *err)
{
        char *line = NULL;

        if (asprintf(&line, "%s: manifest: input is larger than %u bytes, which is not a manifest",
                     path, MANIFEST_MAX_BYTES) < 0)
                return bento_err_set(err, ENOMEM, "manifest");
        bento_err_setx(err, EINVAL, "%s", line);
        if (problems && (problems->items = calloc(1, sizeof(char *)))) {
                problems->items[0] = line;
                problems->n = 1;
                return -EINVAL;
        }
        free(line);
        return -EINVAL;
}

#define MANIFEST_OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* Without openat2 (before Linux 5.6, or filtered): the last component is
 * not followed, and the file opened must sit at path itself, which it
 * does not when a directory on the way was a link. */
static int open_nolinks_fallback(const char *path)
{
        char link[64], buf[PATH_MAX];
        int fd = open(path, MANIFEST_OPEN_FLAGS | O_NOFOLLOW);
        ssize_t n;

        if (fd < 0)
                return -errno;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, buf, sizeof(buf) - 1);
        if (n > 0 && (size_t) n == strlen(path) && memcmp(buf, path, (size_t) n) == 0)
                return fd;
        close(fd);
        return -ELOOP;
}

int trust_open_nolinks(const char *path)
{
        struct open_how how = {.flags = MANIFEST_OPEN_FLAGS, .resolve = RESOLVE_NO_SYMLINKS};
        int fd = (int) syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

        if (fd >= 0)
                return fd;
        if (errno == ENOSYS || errno == EPERM)
                return open_nolinks_fallback(path);
        return -errno;
}

int trust_load_manifest(const char *path, const struct trust_host *host, struct trust_loaded *ret,
                        struct manifest_problems *problems, struct bento_err *err)
{
        int fd = open(path, MANIFEST_OPEN_FLAGS);

        if (problems)
                *problems = (struct manifest_problems){0};
        if (fd < 0)
                return bento_err_set(err, errno, "manifest: cannot open '%s'", path);
        return trust_load_fd(fd, path, host, ret, problems, err);
}

int trust_load_fd(int fd_in, const char *path, const struct trust_host *host,
                  struct trust_loaded *ret, struct manifest_problems *problems,
                  struct bento_err *err)
{
        cleanup_trust_loaded struct trust_loaded l = {0};
        cleanup_close int fd = fd_in;
        int r;

        if (problems)
                *problems = (struct manifest_problems){0};
        r = trust_inspect_fd(fd, path, host, &l.trust, err);
        if (r < 0)
                return bento_err_prefix(err, "manifest");
        r = bento_read_fd(fd, path, MANIFEST_MAX_BYTES, &l.data, &l.len, err);
        if (r == -EFBIG)
                return too_large(path, problems, err);
        if (r < 0)
                return bento_err_prefix(err, "manifest");
        r = manifest_parse(l.data, l.len, path, &l.m, problems, err);
        if (r < 0)
                return r;
        *ret = l;
        /* The cleanup handler reads l: it must not free what *ret now owns. */
        /* NOLINTNEXTLINE(clang-analyzer-deadcode.DeadStores) */
        l = (struct trust_loaded){0};
        return 0;
}

void trust_loaded_done(struct trust_loaded *l)
{
        if (!l)
                return;
        manifest_free(l->m);
        trust_report_done(&l->trust);
        free(l->data);
        *l = (struct trust_loaded){0};
}

void trust_report_done(struct trust_report *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->n_flaws; i++) {
                free(r->flaws[i].reason);
                free(r->flaws[i].hint);
        }
        free(r->flaws);
        free(r->real_path);
        *r = (struct trust_report){0};
}

const struct trust_flaw *trust_first_fatal(const struct trust_report *r)
{
        for (size_t i = 0; r && i < r->n_flaws; i++)
                if (r->flaws[i].fatal)
                        return &r->flaws[i];
        return NULL;
}

char *trust_render_warnings(const struct trust_report *r)
{
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);

        if (!f)
                return NULL;
        for (size_t i = 0; r && i < r->n_flaws; i++) {
                fprintf(f,
                        "[bento] %s - its approval stamp attests only what whoever can write "
                        "it leaves there.\n",
                        r->flaws[i].reason);
                if (r->flaws[i].hint)
                        fprintf(f, "[bento] %s\n", r->flaws[i].hint);
        }
        if (fclose(f) != 0) {
                free(out);
                return NULL;
        }
        return out;
}
