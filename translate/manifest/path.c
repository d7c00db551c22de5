/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Path spelling for the shields, path resolution and the compiler: a lexical clean that matches
 * Go's path.Clean (manifest paths are defined in its terms, docs/manifest.md, "PATH RESOLUTION"),
 * component-boundary containment, and the docs/manifest.md, "CREDENTIAL SHIELDS" "Existing"
 * resolution.  realpath(3) cannot be used for the latter: a shield must land on where a path
 * *would* be once created, so a missing tail and a dangling final link have to resolve too.
 *
 * Resolving a manifest asks the host the same questions many times over
 * (every shield rule and every grant is resolved and stat()ed from several
 * places, each one component by component), so inside a path_cache_begin()
 * scope the answers are memoised: lstat(2) and readlink(2) per absolute
 * path, stat(2) and access(2) derived from or stored next to them, and
 * whole path_resolve() results.  The memo only ever replays what the host
 * answered during the scope; the scope owner resets it when it changes the
 * host itself.
 *
 * Most shield rules name something that is not there (a home holds a few
 * of the thousand stores the rules know).  After a few lookups in one
 * directory the directory is listed once, and a later name is answered
 * from the listing (missing, or its type) without a system call.  That is
 * sound only where a lookup finds nothing readdir did not list, which is
 * not so everywhere: a case-folding directory finds ".SSH" as ".ssh",
 * autofs mounts on lookup, /proc finds thread ids it does not list, and a
 * FUSE or network file system may do anything.  Such a listing would let
 * a shield think a credential store absent, so only directories of the
 * local file systems known to list everything (and not folding case
 * there) are listed (listing_complete()).  A walk of a whole directory
 * (path_list()) keeps its listing too: the credential links walk and the
 * alias scan both read every credential store, once.  A walk only needs the
 * names that are there, so its listing is not asked whether it is complete
 * until a lookup needs it to say that a name is missing
 * (vouch_listing()).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cleanup.h"
#include "path.h"

/* Enough for any real chain; the kernel itself gives up at 40. */
#define RESOLVE_LINKS_MAX 40
/* Linux's PATH_MAX, spelled here so no header named limits.h is needed. */
#define LINK_TARGET_MAX 4096

/* Back out of the last component written, never past `floor` (the root
 * slash, or a leading run of ".." in a relative path). */
static size_t clean_back(const char *out, size_t w, size_t floor)
{
        w--;
        while (w > floor && out[w] != '/')
                w--;
        return w;
}

/* The length of the name s starts with (up to the next slash).  Not
 * strcspn(s, "/"): its set-of-bytes setup costs more than the short names
 * of paths (it was 4 % of `bento validate`'s time). */
static size_t name_len(const char *s)
{
        return (size_t) (strchrnul(s, '/') - s);
}

bool path_is_clean(const char *p, size_t n)
{
        size_t i = n > 0 && p[0] == '/' ? 1 : 0;

        if (n == 0)
                return false;
        if (n == i || (n == 1 && p[0] == '.')) /* "/" and "." */
                return true;
        for (;;) {
                const char *slash = memchr(p + i, '/', n - i);
                size_t j = slash ? (size_t) (slash - p) : n, len = j - i;

                /* an empty name (a doubled or trailing slash), "." or ".." */
                if (len == 0 || (p[i] == '.' && (len == 1 || (len == 2 && p[i + 1] == '.'))))
                        return false;
                if (j == n)
                        return true;
                i = j + 1;
        }
}

char *path_clean(const char *p)
{
        size_t n = strlen(p), w = 0, floor = 0;
        bool rooted = n > 0 && p[0] == '/';
        char *out = malloc(n + 3);

        if (!out)
                return NULL;
        /* Most paths come clean already (joined from clean parts). */
        if (path_is_clean(p, n))
                return memcpy(out, p, n + 1);
        if (rooted)
                out[w++] = '/', floor = 1;
        for (size_t r = 0; r < n;) {
                size_t len = name_len(p + r);

                if (len == 0 || (len == 1 && p[r] == '.')) {
                        r += len ? len : 1;
                        continue;
                }
                if (len == 2 && p[r] == '.' && p[r + 1] == '.') {
                        r += 2;
                        if (w > floor)
                                w = clean_back(out, w, floor);
                        else if (!rooted) {
                                if (w > 0)
                                        out[w++] = '/';
                                memcpy(out + w, "..", 2);
                                w += 2;
                                floor = w;
                        }
                        continue;
                }
                if (w != (rooted ? 1 : 0))
                        out[w++] = '/';
                memcpy(out + w, p + r, len);
                w += len;
                r += len;
        }
        if (w == 0)
                out[w++] = '.';
        out[w] = '\0';
        return out;
}

char *path_join(const char *a, const char *b)
{
        size_t na = strlen(a), nb = strlen(b);
        cleanup_free char *both = malloc(na + nb + 2); /* no printf: this is hot */

        if (!both)
                return NULL;
        memcpy(both, a, na + 1);
        both[na] = '/';
        memcpy(both + na + 1, b, nb + 1);
        if (path_is_clean(both, na + nb + 1))
                return TAKE_PTR(both);
        return path_clean(both);
}

char *path_absolute(const char *p)
{
        cleanup_free char *cwd = NULL;

        if (p[0] == '/')
                return path_clean(p);
        cwd = getcwd(NULL, 0);
        return cwd ? path_join(cwd, p) : NULL;
}

bool path_within(const char *parent, const char *child)
{
        return strcmp(parent, child) == 0 || path_beneath(parent, child);
}

bool path_beneath(const char *parent, const char *child)
{
        size_t n = strlen(parent);

        if (strcmp(parent, "/") == 0)
                return child[0] == '/' && child[1] != '\0';
        return strncmp(parent, child, n) == 0 && child[n] == '/' && child[n + 1] != '\0';
}

/* ---- the memo ------------------------------------------------------ */

enum {
        HAVE_LSTAT = 1u << 0,
        HAVE_LINK = 1u << 1,
        HAVE_RESOLVED = 1u << 2,
        HAVE_ACCESS = 1u << 3,      /* shifted by the access(2) mode, 0..7 */
        HAVE_TYPE = 1u << 11,       /* type_hint, from the parent's listing */
        HAVE_LIST_TRIED = 1u << 12, /* listing it was attempted (rare->list may be NULL) */
        HAVE_DIRFD = 1u << 13,      /* rare->dirfd is the directory, kept open (keep_dirfd()) */
};

/* The names in one directory with their d_type, as an open-addressing
 * set. */
struct listed_name {
        char *name;
        mode_t type; /* S_IFDIR, S_IFREG, S_IFLNK, ...; 0 when readdir did not say */
};

struct listing {
        struct listed_name *names; /* in the order readdir gave them */
        size_t n;
        /* open addressing over names[]: 1 + the index, 0 when free; two
         * bytes a slot, since a listing holds at most LIST_MAX_NAMES */
        uint16_t *slots;
        size_t cap;
        /* listing_complete() said yes on the descriptor the names were read
         * from: the listing may say a name is missing, or what type it is.
         * A walk's listing (path_list()) is not asked: it only names what is
         * there. */
        bool vouched;
        struct listing *retired; /* the next on cache.retired */
};

/* Names looked up in one directory before it is listed, and the most
 * names (besides "." and "..") a listing holds (a larger directory is
 * left to lstat(2)). */
#define LIST_AFTER_LOOKUPS 6
#define LIST_MAX_NAMES     4096
_Static_assert(LIST_MAX_NAMES < UINT16_MAX, "a listing's slot holds 1 + a name's index");

/* What lstat(2) said of an existing name, as much of struct stat as
 * anyone asks of the memo (type and permissions, identity, links, owner,
 * size): most names a scope asks about are missing, and a whole struct
 * stat in every entry was most of the memo's memory (10,000 write grants:
 * 45 MB to fault in); the 144 bytes of one are three times these. */
struct memo_stat {
        dev_t dev;
        ino_t ino;
        nlink_t nlink;
        off_t size;
        dev_t rdev;
        mode_t mode;
        uid_t uid;
        gid_t gid;
};

/* What few entries need: a listing (directories), a link's text (links),
 * an answer to access(2) (the interpreter and the entrypoint), a resolved
 * path other than the key (names beneath a link).  Made when first
 * needed, so the entry of a plain name stays small. */
struct memo_rare {
        struct listing *list; /* the names inside key, once listed */
        char *link;           /* readlink text; NULL when it failed */
        char *resolved;       /* path_resolve() of key when it is not key itself */
        unsigned char access_errno[8];
        int dirfd; /* HAVE_DIRFD: key's directory, which lookups beneath it start from */
};

/* The fields are as narrow as their values allow: a translate makes a
 * couple of thousand entries, and every page of them is a page fault
 * (about 10 us on a virtual machine, as much as five lstat(2) calls).
 * The hash is the table slot's alone: the entry is reached through its
 * slot, or from a child by its parent pointer. */
struct memo {
        /* The entry of key's directory (made with it), NULL for "/" and a
         * relative key: the walks up the failure check and the listing take
         * are then pointer steps, not one table probe per ancestor. */
        struct memo *parent;
        struct memo_stat *lst; /* lstat(2)'s answer when it had one */
        struct memo_rare *rare;
        uint32_t len;
        uint16_t have;
        uint16_t type_hint;           /* HAVE_TYPE: key's S_IFMT type, as its directory listed it */
        unsigned char lookups;        /* lstat(2) answers for names directly inside key */
        unsigned char lstat_errno;    /* 0: lst holds the answer; errno values are below 256 */
        unsigned char resolved_links; /* HAVE_RESOLVED: the links its walk followed */
        unsigned char resolved_end;   /* HAVE_RESOLVED: how that walk ended (enum walk_end) */
        /* the path itself, in the entry: no pointer to it, and no padding
         * after the header but the next entry's alignment */
        char key[];
};

/* The memo's entries and strings come from chunks that the end of the
 * scope frees whole: thousands of small allocations, each freed on its
 * own, cost a translate of a large manifest about 0.3 ms. */
struct memo_chunk {
        struct memo_chunk *next;
        size_t cap, used;
        max_align_t data[];
};

#define MEMO_CHUNK_MIN ((size_t) 64 * 1024)

struct memo_slot {
        uint64_t hash;
        struct memo *e;
};

static struct {
        unsigned depth;
        /* open addressing, linear probing; each slot keeps its entry's
         * hash, so a probe past another path reads no entry (at 10,000
         * write grants those cache misses were an eighth of the time) */
        struct memo_slot *slots;
        size_t cap, n;
        struct memo_chunk *chunks; /* the newest first */
        /* walks' listings replaced by vouched ones (vouch_listing()), kept
         * until the scope ends: a walk may still be going through one */
        struct listing *retired;
        unsigned n_dirfds; /* entries with HAVE_DIRFD */
} cache;

/* n zeroed bytes aligned to align (a power of two) that live until
 * path_cache_reset(); NULL when out of memory. */
static void *memo_alloc_aligned(size_t n, size_t align)
{
        struct memo_chunk *c = cache.chunks;
        void *p;

        if (c)
                c->used = (c->used + align - 1) & ~(align - 1);
        if (!c || c->cap - c->used < n) {
                size_t cap = n > MEMO_CHUNK_MIN ? n : MEMO_CHUNK_MIN;

                c = malloc(sizeof(*c) + cap);
                if (!c)
                        return NULL;
                c->next = cache.chunks;
                c->cap = cap;
                c->used = 0;
                cache.chunks = c;
        }
        p = (char *) c->data + c->used;
        c->used += n;
        return memset(p, 0, n);
}

/* A zeroed object of the given type, aligned for it alone (not to
 * max_align_t: 16 bytes would make an entry of 56 take 64). */
#define MEMO_NEW(type) ((type *) memo_alloc_aligned(sizeof(type), _Alignof(type)))

/* Strings are packed: no alignment. */
static char *memo_strndup(const char *s, size_t n)
{
        char *d = memo_alloc_aligned(n + 1, 1);

        if (d) {
                memcpy(d, s, n);
                d[n] = '\0';
        }
        return d;
}

static struct memo *memo_find(const char *s, size_t n, uint64_t h)
{
        if (!cache.cap)
                return NULL;
        for (size_t i = h & (cache.cap - 1);; i = (i + 1) & (cache.cap - 1)) {
                struct memo *e = cache.slots[i].e;

                if (!e)
                        return NULL;
                if (cache.slots[i].hash == h && e->len == n && memcmp(e->key, s, n) == 0)
                        return e;
        }
}

static int memo_grow(void)
{
        size_t cap = cache.cap ? cache.cap * 2 : 1024;
        struct memo_slot *slots = calloc(cap, sizeof(*slots));

        if (!slots)
                return -ENOMEM;
        for (size_t i = 0; i < cache.cap; i++) {
                struct memo_slot e = cache.slots[i];
                size_t j = e.hash & (cap - 1);

                if (!e.e)
                        continue;
                while (slots[j].e)
                        j = (j + 1) & (cap - 1);
                slots[j] = e;
        }
        free(cache.slots);
        cache.slots = slots;
        cache.cap = cap;
        return 0;
}

static bool split_last(const char *s, size_t n, size_t *dir_len, size_t *name_at);

/* The entry for s[0..n), created empty when new (with its directory's, for
 * an absolute path); NULL outside a scope or when out of memory (the
 * caller then asks the host directly). */
static struct memo *memo_get(const char *s, size_t n, uint64_t h)
{
        struct memo *e, *parent = NULL;
        size_t i, dir_len, at;

        if (cache.depth == 0 || n > UINT32_MAX)
                return NULL;
        e = memo_find(s, n, h);
        if (e)
                return e;
        /* before the slot is chosen: making the parent may grow the table */
        if (s[0] == '/' && split_last(s, n, &dir_len, &at) &&
            !(parent = memo_get(s, dir_len, path_hash(s, dir_len))))
                return NULL;
        /* at most three quarters full: the slots keep their hashes, so a
         * longer probe reads no entry, and a table of half the size is
         * half the pages to fault in */
        if ((cache.n + 1) * 4 > cache.cap * 3 && memo_grow() < 0)
                return NULL;
        e = memo_alloc_aligned(offsetof(struct memo, key) + n + 1, _Alignof(struct memo));
        if (!e)
                return NULL;
        memcpy(e->key, s, n);
        e->key[n] = '\0';
        e->parent = parent;
        e->len = (uint32_t) n;
        for (i = h & (cache.cap - 1); cache.slots[i].e; i = (i + 1) & (cache.cap - 1))
                ;
        cache.slots[i] = (struct memo_slot){h, e};
        cache.n++;
        return e;
}

/* The rare part of e, made when first asked for; NULL when out of
 * memory. */
static struct memo_rare *memo_rare(struct memo *e)
{
        if (!e->rare)
                e->rare = MEMO_NEW(struct memo_rare);
        return e->rare;
}

/* The listing of the names inside e, NULL when there is none. */
static struct listing *memo_listing(const struct memo *e)
{
        return e->rare ? e->rare->list : NULL;
}

/* path_resolve() of e, once HAVE_RESOLVED. */
static const char *memo_resolved(const struct memo *e)
{
        return e->rare && e->rare->resolved ? e->rare->resolved : e->key;
}

/* The listing itself and its names are the memo's (MEMO_NEW()). */
static void listing_free(struct listing *l)
{
        if (!l)
                return;
        free(l->names);
        free(l->slots);
}

void path_cache_reset(void)
{
        for (size_t i = 0; i < cache.cap; i++) {
                struct memo *e = cache.slots[i].e;

                if (!e)
                        continue;
                listing_free(memo_listing(e));
                if (e->have & HAVE_DIRFD)
                        close(e->rare->dirfd);
        }
        cache.n_dirfds = 0;
        while (cache.retired) {
                struct listing *next = cache.retired->retired;

                listing_free(cache.retired);
                cache.retired = next;
        }
        free(cache.slots);
        cache.slots = NULL;
        cache.cap = cache.n = 0;
        while (cache.chunks) {
                struct memo_chunk *next = cache.chunks->next;

                free(cache.chunks);
                cache.chunks = next;
        }
}

void path_cache_begin(void)
{
        cache.depth++;
}

void path_cache_end(void)
{
        if (cache.depth > 0 && --cache.depth == 0)
                path_cache_reset();
}

/* A walk through a missing name or a non-directory fails there, whatever
 * follows: when an ancestor of e's path (below "/") is known to fail with
 * ENOENT or ENOTDIR, so does e's, with the same errno (the topmost such
 * ancestor's).  0 when none is. */
static int failed_ancestor(const struct memo *e)
{
        int failed = 0;

        for (const struct memo *a = e->parent; a && a->len > 1; a = a->parent)
                if ((a->have & HAVE_LSTAT) &&
                    (a->lstat_errno == ENOENT || a->lstat_errno == ENOTDIR))
                        failed = a->lstat_errno;
        return failed;
}

static const struct listed_name *listing_find(const struct listing *l, const char *name, size_t n)
{
        if (!l->cap) /* empty */
                return NULL;
        for (size_t i = path_hash(name, n) & (l->cap - 1); l->slots[i];
             i = (i + 1) & (l->cap - 1)) {
                const struct listed_name *e = &l->names[l->slots[i] - 1];

                if (strncmp(e->name, name, n) == 0 && e->name[n] == '\0')
                        return e;
        }
        return NULL;
}

static mode_t type_of_dirent(unsigned char d_type)
{
        switch (d_type) {
        case DT_DIR:
                return S_IFDIR;
        case DT_REG:
                return S_IFREG;
        case DT_LNK:
                return S_IFLNK;
        case DT_CHR:
                return S_IFCHR;
        case DT_BLK:
                return S_IFBLK;
        case DT_FIFO:
                return S_IFIFO;
        case DT_SOCK:
                return S_IFSOCK;
        default:
                return 0;
        }
}

/* Does readdir on fd list every name a lookup there finds?  Yes on ext2/3/4,
 * tmpfs and f2fs directories that do not fold case (FS_IOC_GETFLAGS;
 * a directory that cannot say is not listed) and on btrfs (no case
 * folding); no elsewhere (case-insensitive, automounting, synthetic,
 * FUSE and network file systems), where lookups stay one lstat(2) each. */
static bool listing_complete(int fd)
{
        struct statfs sfs;
        int flags = 0;

        if (fstatfs(fd, &sfs) < 0)
                return false;
        switch ((unsigned long) sfs.f_type) {
        case EXT4_SUPER_MAGIC:
        case TMPFS_MAGIC:
        case F2FS_SUPER_MAGIC:
                return ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && !(flags & FS_CASEFOLD_FL);
        case BTRFS_SUPER_MAGIC:
                return true;
        default:
                return false;
        }
}

static bool dot_or_dotdot(const char *name)
{
        return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* "." and ".." are left out: no key of the memo (a clean path) asks for
 * them, and a credential store is most often empty, so its listing then
 * needs no array at all. */
static bool listing_append(struct listing *l, const char *name, unsigned char d_type)
{
        if (dot_or_dotdot(name))
                return true;
        if (l->n == LIST_MAX_NAMES)
                return false;
        if ((l->n & (l->n - 1)) == 0 && l->n >= 16) { /* full at 16, 32, 64, ... */
                struct listed_name *v = reallocarray(l->names, 2 * l->n, sizeof(*v));

                if (!v)
                        return false;
                l->names = v;
        } else if (!l->names && !(l->names = calloc(16, sizeof(*l->names)))) {
                return false;
        }
        if (!(l->names[l->n].name = memo_strndup(name, strlen(name))))
                return false;
        l->names[l->n++].type = type_of_dirent(d_type);
        return true;
}

/* The size of a getdents64(2) buffer: opendir(3)'s. */
#define DENTS_BUF 32768

/* ---- lookups from a directory kept open ------------------------------
 *
 * A lookup of an absolute path makes the kernel copy the whole path in
 * and look up every name of it, one dentry each: a fixture home's rules
 * sit five to eight names deep, and on a virtual machine the copy and the
 * walk were half of each lstat(2) and a third of each open(2) of a
 * translate.  So a directory the memo lists to answer lookups keeps the
 * descriptor it was listed through (close-on-exec) until the scope ends,
 * and a lookup beneath it starts there (fstatat(2), openat(2)) with the
 * names below it only.
 *
 * The answer is the same: only a directory whose path has no symbolic
 * link on it is kept (the walk from it then follows the same links as the
 * walk from "/", so it loops and fails alike), and a path too long for the
 * host to take whole still goes whole (it fails with ENAMETOOLONG as it
 * did).  The directory is the one the listing read, so lookups beneath it
 * and its listing agree, as they did, about the host as it was then. */

/* Directories kept open at the most: the busy ones of two homes
 * (busy-dirs.c) and a few more. */
#define MEMO_DIRFDS_MAX 32

static bool memo_plain_dir_path(struct memo *e);

/* The nearest ancestor of e kept open, and e's path below it in *rel;
 * NULL when there is none or e's path is PATH_MAX long or more. */
static const struct memo *open_ancestor(const struct memo *e, const char **rel)
{
        if (cache.n_dirfds == 0 || e->len >= LINK_TARGET_MAX)
                return NULL;
        for (const struct memo *a = e->parent; a; a = a->parent)
                if (a->have & HAVE_DIRFD) {
                        *rel = e->key + a->len + (a->len > 1); /* past the '/' */
                        return a;
                }
        return NULL;
}

/* lstat(2) of e's path. */
static int host_lstat(const struct memo *e, struct stat *st)
{
        const char *rel;
        const struct memo *a = open_ancestor(e, &rel);

        return a ? fstatat(a->rare->dirfd, rel, st, AT_SYMLINK_NOFOLLOW) : lstat(e->key, st);
}

/* e's path opened to be listed. */
static int host_open_dir(const struct memo *e)
{
        const int flags = O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC;
        const char *rel;
        const struct memo *a = open_ancestor(e, &rel);

        return a ? openat(a->rare->dirfd, rel, flags) : open(e->key, flags);
}

/* Keep *fd, dir's own descriptor, for the lookups beneath dir (taking it:
 * *fd is -1 then), when dir's path has no link on it and there is room. */
static void keep_dirfd(struct memo *dir, int *fd)
{
        if (!dir->rare || (dir->have & HAVE_DIRFD) || cache.n_dirfds >= MEMO_DIRFDS_MAX ||
            !memo_plain_dir_path(dir))
                return;
        dir->rare->dirfd = *fd;
        *fd = -1;
        dir->have |= HAVE_DIRFD;
        cache.n_dirfds++;
}

/* Append dir's names to l->names.  False when dir cannot be read whole,
 * holds more than LIST_MAX_NAMES names, or (vouch: the listing is to answer
 * lookups) its listing would not be complete.  getdents64(2) itself:
 * opendir(3) would fstat() and fcntl() a descriptor that O_DIRECTORY
 * already vouches for, two calls per listing.  The buffer is on the heap,
 * not the stack: the stack-clash probes of a 32 KiB frame touch all eight
 * of its pages, each a fresh page fault (about 10 us on a virtual
 * machine), where getdents64(2) writes only the bytes it returns. */
static bool read_names(struct memo *dir, struct listing *l, bool vouch)
{
        cleanup_close int fd = host_open_dir(dir);
        cleanup_free char *buf = NULL;
        ssize_t got;

        if (fd < 0 || (vouch && !listing_complete(fd)) || !(buf = malloc(DENTS_BUF)))
                return false;
        l->vouched = vouch;
        while ((got = getdents64(fd, buf, DENTS_BUF)) > 0)
                for (ssize_t off = 0; off < got;) {
                        const struct dirent64 *de = (const void *) (buf + off);

                        off += de->d_reclen;
                        if (!listing_append(l, de->d_name, de->d_type))
                                return false;
                }
        if (got < 0)
                return false;
        if (vouch) /* its names are looked up: so are names beneath it */
                keep_dirfd(dir, &fd);
        return true;
}

/* Every name in dir, or NULL: unreadable, a read error part way, more
 * than LIST_MAX_NAMES names, not complete (vouch), or out of memory. */
static struct listing *list_dir(struct memo *dir, bool vouch)
{
        struct listing *l = MEMO_NEW(struct listing);
        size_t cap = 16;

        if (!l)
                return NULL;
        if (!read_names(dir, l, vouch)) {
                listing_free(l);
                return NULL;
        }
        if (l->n == 0)
                return l;
        while (cap < 2 * l->n)
                cap *= 2;
        l->slots = calloc(cap, sizeof(*l->slots));
        if (!l->slots) {
                listing_free(l);
                return NULL;
        }
        l->cap = cap;
        for (size_t k = 0; k < l->n; k++) {
                size_t i = path_hash(l->names[k].name, strlen(l->names[k].name)) & (cap - 1);

                while (l->slots[i])
                        i = (i + 1) & (cap - 1);
                l->slots[i] = (uint16_t) (k + 1);
        }
        return l;
}

/* Where the last name of the absolute path s[0..n) starts; its directory
 * is s[0..dir_len).  False when there is no name (s is "/" or ends in /). */
static bool split_last(const char *s, size_t n, size_t *dir_len, size_t *name_at)
{
        size_t k = n;

        while (k > 0 && s[k - 1] != '/')
                k--;
        if (k == 0 || k == n)
                return false;
        *name_at = k;
        *dir_len = k == 1 ? 1 : k - 1;
        return true;
}

/* What the listing of s[0..n)'s directory says of it. */
enum listed { LISTED_UNKNOWN, LISTED_ABSENT, LISTED_TYPE };

/* A walk's listing cannot say a name is missing: the first lookup that
 * needs that lists dir again, asking listing_complete() on the descriptor
 * it reads from.  Most walks (the credential stores, the alias scan) never
 * need it, and a listing then costs two system calls less.  The walk's
 * listing stays alive: a walk may still be going through it. */
static void vouch_listing(struct memo *dir)
{
        struct memo_rare *rare = dir->rare; /* a listing lives there */

        rare->list->retired = cache.retired;
        cache.retired = rare->list;
        rare->list = list_dir(dir, true);
}

/* List dir once (vouch: for lookups, see list_dir()). */
static void memo_list(struct memo *dir, bool vouch)
{
        struct memo_rare *rare;

        if (dir->have & HAVE_LIST_TRIED)
                return;
        dir->have |= HAVE_LIST_TRIED;
        rare = memo_rare(dir);
        if (rare)
                rare->list = list_dir(dir, vouch);
}

static enum listed listed_lookup(const struct memo *e, mode_t *type)
{
        struct memo *dir = e->parent;
        const struct listing *l = dir ? memo_listing(dir) : NULL;
        const struct listed_name *hit;
        size_t dir_len, at;

        if (!l || !split_last(e->key, e->len, &dir_len, &at))
                return LISTED_UNKNOWN;
        hit = listing_find(l, e->key + at, e->len - at);
        if (!hit && !l->vouched) {
                vouch_listing(dir);
                l = memo_listing(dir);
                if (!l)
                        return LISTED_UNKNOWN;
                hit = listing_find(l, e->key + at, e->len - at);
        }
        if (!hit)
                return LISTED_ABSENT;
        if (!l->vouched) /* there: lstat(2) says of what type */
                return LISTED_UNKNOWN;
        *type = hit->type;
        return hit->type ? LISTED_TYPE : LISTED_UNKNOWN;
}

/* One more name in e's directory asked of the host: list the directory
 * once LIST_AFTER_LOOKUPS names were. */
static void note_lookup(const struct memo *e)
{
        struct memo *dir = e->parent;

        if (!dir || (dir->have & HAVE_LIST_TRIED) || ++dir->lookups < LIST_AFTER_LOOKUPS)
                return;
        memo_list(dir, true);
}

/* getdents64(2) itself, as read_names() does: opendir(3) would fstat() the
 * descriptor too, one call more per directory of a granted tree's walk.
 * The buffer is opendir's size, on the heap: a walk nests a listing per
 * level. */
static int read_direct(const char *dir, path_list_fn fn, void *userdata)
{
        cleanup_close int fd = open(dir, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC);
        cleanup_free char *buf = NULL;
        ssize_t got;

        if (fd < 0 || !(buf = malloc(DENTS_BUF)))
                return -1;
        while ((got = getdents64(fd, buf, DENTS_BUF)) > 0)
                for (ssize_t off = 0; off < got;) {
                        const struct dirent64 *de = (const void *) (buf + off);
                        int r;

                        off += de->d_reclen;
                        if (dot_or_dotdot(de->d_name))
                                continue;
                        r = fn(de->d_name, type_of_dirent(de->d_type), userdata);
                        if (r)
                                return r;
                }
        return got < 0 ? -1 : 0;
}

/* fn for every name of l.  Taken by the caller before the walk: fn may
 * look a name up there and so replace the directory's listing
 * (vouch_listing()). */
static int replay(const struct listing *l, path_list_fn fn, void *userdata)
{
        for (size_t i = 0; i < l->n; i++) {
                const struct listed_name *name = &l->names[i];
                int r = fn(name->name, name->type, userdata);

                if (r)
                        return r;
        }
        return 0;
}

int path_list_direct(const char *dir, path_list_fn fn, void *userdata)
{
        size_t n = strlen(dir);
        const struct memo *e =
            cache.depth && dir[0] == '/' ? memo_find(dir, n, path_hash(dir, n)) : NULL;
        const struct listing *l = e ? memo_listing(e) : NULL;

        return l ? replay(l, fn, userdata) : read_direct(dir, fn, userdata);
}

int path_list(const char *dir, path_list_fn fn, void *userdata)
{
        size_t n = strlen(dir);
        struct memo *e = dir[0] == '/' ? memo_get(dir, n, path_hash(dir, n)) : NULL;
        const struct listing *l = NULL;

        if (e) {
                memo_list(e, false);
                l = memo_listing(e);
        }
        return l ? replay(l, fn, userdata) : read_direct(dir, fn, userdata);
}

void path_list_soon(const char *dir)
{
        size_t n = strlen(dir);
        struct memo *e = dir[0] == '/' ? memo_get(dir, n, path_hash(dir, n)) : NULL;

        if (e)
                memo_list(e, true);
}

static void memo_stat_keep(struct memo_stat *m, const struct stat *st)
{
        *m = (struct memo_stat){
            .dev = st->st_dev,
            .ino = st->st_ino,
            .nlink = st->st_nlink,
            .size = st->st_size,
            .rdev = st->st_rdev,
            .mode = st->st_mode,
            .uid = st->st_uid,
            .gid = st->st_gid,
        };
}

/* The kept answer as a struct stat; what is not kept (times, block
 * counts) reads as zero. */
static void memo_stat_give(const struct memo_stat *m, struct stat *st)
{
        *st = (struct stat){
            .st_dev = m->dev,
            .st_ino = m->ino,
            .st_nlink = m->nlink,
            .st_size = m->size,
            .st_rdev = m->rdev,
            .st_mode = m->mode,
            .st_uid = m->uid,
            .st_gid = m->gid,
        };
}

/* Fill in e's lstat(2) answer, given what its ancestors (failed, from
 * failed_ancestor()) and its directory's listing (listed, from
 * listed_lookup(); LISTED_UNKNOWN when failed) already said: only when
 * neither settles it is the host asked. */
static void memo_lstat_settle(struct memo *e, int failed, enum listed listed)
{
        struct stat st;

        e->have |= HAVE_LSTAT;
        if (failed || listed == LISTED_ABSENT) {
                e->lstat_errno = (unsigned char) (failed ? failed : ENOENT);
                return;
        }
        if (host_lstat(e, &st) < 0)
                e->lstat_errno = (unsigned char) errno;
        else if (!(e->lst = MEMO_NEW(struct memo_stat)))
                e->lstat_errno = ENOMEM;
        else
                memo_stat_keep(e->lst, &st);
        note_lookup(e);
}

/* e (an absolute path's entry) with its lstat(2) answer filled in. */
static struct memo *memo_lstat_e(struct memo *e)
{
        int failed;

        if (e->have & HAVE_LSTAT)
                return e;
        failed = failed_ancestor(e);
        memo_lstat_settle(e, failed, failed ? LISTED_UNKNOWN : listed_lookup(e, &(mode_t){0}));
        return e;
}

/* The memo of an absolute path (hash h) with its lstat(2) answer filled
 * in; NULL outside a scope (or out of memory). */
static struct memo *memo_lstat_h(const char *s, size_t n, uint64_t h)
{
        struct memo *e;

        if (cache.depth == 0 || s[0] != '/')
                return NULL;
        e = memo_get(s, n, h);
        return e ? memo_lstat_e(e) : NULL;
}

/* The type of e's path as lstat(2) would give it: 0 and *type, or an
 * errno.  A listed directory answers without a system call. */
static int memo_type_e(struct memo *e, mode_t *type)
{
        if (!(e->have & (HAVE_LSTAT | HAVE_TYPE))) {
                int failed = failed_ancestor(e);
                enum listed listed = failed ? LISTED_UNKNOWN : listed_lookup(e, type);

                if (listed == LISTED_TYPE) {
                        e->type_hint = (uint16_t) *type;
                        e->have |= HAVE_TYPE;
                } else {
                        memo_lstat_settle(e, failed, listed);
                }
        }
        if (!(e->have & HAVE_LSTAT)) { /* HAVE_TYPE */
                *type = e->type_hint;
                return 0;
        }
        if (e->lstat_errno)
                return e->lstat_errno;
        *type = e->lst->mode & S_IFMT;
        return 0;
}

/* The entry of s[0..n) (hash h) when s is absolute and a scope is open;
 * NULL otherwise, or when out of memory (the host is asked then). */
static struct memo *memo_entry(const char *s, size_t n, uint64_t h)
{
        return cache.depth && s[0] == '/' ? memo_get(s, n, h) : NULL;
}

static struct memo *memo_lstat(const char *s, size_t n)
{
        return cache.depth ? memo_lstat_h(s, n, path_hash(s, n)) : NULL;
}

int path_lstat(const char *path, struct stat *st)
{
        const struct memo *e = memo_lstat(path, strlen(path));

        if (!e)
                return lstat(path, st);
        if (e->lstat_errno) {
                errno = e->lstat_errno;
                return -1;
        }
        memo_stat_give(e->lst, st);
        return 0;
}

int path_type(const char *path, mode_t *type)
{
        size_t n = strlen(path);
        struct memo *e = memo_entry(path, n, path_hash(path, n));
        struct stat st;
        int r;

        if (!e)
                return lstat(path, &st) < 0 ? -1 : (*type = st.st_mode & S_IFMT, 0);
        r = memo_type_e(e, type);
        if (r) {
                errno = r;
                return -1;
        }
        return 0;
}

int path_follow_type(const char *path, mode_t *type)
{
        struct stat st;

        if (path_type(path, type) < 0)
                return -1;
        if (*type != S_IFLNK)
                return 0;
        if (path_stat(path, &st) < 0)
                return -1;
        *type = st.st_mode & S_IFMT;
        return 0;
}

/* stat(2) differs from lstat(2) only in following a final symlink: the
 * walk up to the last name, and any failure on the way, are the same. */
int path_stat(const char *path, struct stat *st)
{
        const struct memo *e = memo_lstat(path, strlen(path));

        if (!e || (!e->lstat_errno && S_ISLNK(e->lst->mode)))
                return stat(path, st);
        if (e->lstat_errno) {
                errno = e->lstat_errno;
                return -1;
        }
        memo_stat_give(e->lst, st);
        return 0;
}

int path_access(const char *path, int mode)
{
        size_t n = strlen(path);
        struct memo *e = mode >= 0 && mode < 8 && path[0] == '/' && cache.depth
                             ? memo_get(path, n, path_hash(path, n))
                             : NULL;
        struct memo_rare *rare = e ? memo_rare(e) : NULL;

        if (!rare)
                return access(path, mode);
        if (!(e->have & (HAVE_ACCESS << mode))) {
                rare->access_errno[mode] = (unsigned char) (access(path, mode) < 0 ? errno : 0);
                e->have |= HAVE_ACCESS << mode;
        }
        if (rare->access_errno[mode]) {
                errno = rare->access_errno[mode];
                return -1;
        }
        return 0;
}

bool path_parent_len(const char *child, size_t n)
{
        /* path_beneath()'s two cases: the root, and a prefix that ends
         * where child has a slash followed by more. */
        if (n == 1 && child[0] == '/')
                return child[1] != '\0';
        return child[n] == '/' && child[n + 1] != '\0';
}

/* ---- sorted paths ------------------------------------------------------ */

/* Merge the sorted runs src[lo..mid) and src[mid..hi) into dst[lo..hi),
 * the left run first among equal keys. */
static void merge_runs(const struct path_index_entry *src, size_t lo, size_t mid, size_t hi,
                       struct path_index_entry *dst)
{
        size_t i = lo, j = mid, k = lo;

        /* no right run, or the two already in order (the rules of one
         * directory often come so): copied as they are */
        if (mid == hi || strcmp(src[mid - 1].key, src[mid].key) <= 0) {
                memcpy(dst + lo, src + lo, (hi - lo) * sizeof(*dst));
                return;
        }
        while (i < mid && j < hi)
                dst[k++] = strcmp(src[j].key, src[i].key) < 0 ? src[j++] : src[i++];
        memcpy(dst + k, src + i, (mid - i) * sizeof(*dst));
        k += mid - i;
        memcpy(dst + k, src + j, (hi - j) * sizeof(*dst));
}

/* Sort e[0..n) by key, stably: e comes in id order, so equal keys stay in
 * id order.  A bottom-up merge sort rather than qsort(3), whose calls
 * through a function pointer and generic copying were an eighth of the
 * instructions of a translate (a thousand shield rules sorted).  tmp holds
 * n entries. */
static void sort_entries(struct path_index_entry *e, struct path_index_entry *tmp, size_t n)
{
        struct path_index_entry *src = e, *dst = tmp;

        for (size_t width = 1; width < n; width *= 2) {
                struct path_index_entry *swap;

                for (size_t lo = 0; lo < n; lo += 2 * width) {
                        size_t mid = n - lo > width ? lo + width : n;
                        size_t hi = n - mid > width ? mid + width : n;

                        merge_runs(src, lo, mid, hi, dst);
                }
                swap = src;
                src = dst;
                dst = swap;
        }
        if (src != e)
                memcpy(e, src, n * sizeof(*e));
}

/* Does key equal s[0..n)? */
static bool key_is(const char *key, const char *s, size_t n)
{
        return strncmp(key, s, n) == 0 && key[n] == '\0';
}

/* Might some key be n bytes long? */
static bool key_len_known(const struct path_index *ix, size_t n)
{
        return n < 64 ? (ix->key_lens >> n) & 1 : ix->long_keys;
}

/* The run of entries whose key equals s[0..n) (hash h): true and [*lo,
 * *hi) when there is one. */
static bool run_find(const struct path_index *ix, const char *s, size_t n, uint64_t h, size_t *lo,
                     size_t *hi)
{
        /* most prefixes asked about (every parent of a path) have a length
         * no key has: no probe then */
        if (!key_len_known(ix, n))
                return false;
        for (size_t j = h & (ix->cap_runs - 1); ix->runs[j]; j = (j + 1) & (ix->cap_runs - 1)) {
                size_t i = ix->runs[j] - 1;

                if (!key_is(ix->e[i].key, s, n))
                        continue;
                *lo = i;
                while (i < ix->n && strcmp(ix->e[i].key, ix->e[*lo].key) == 0)
                        i++;
                *hi = i;
                return true;
        }
        return false;
}

int path_index_init(struct path_index *ix, const char *const *keys, size_t n)
{
        cleanup_free struct path_index_entry *tmp = malloc((n + 1) * sizeof(*tmp));

        *ix = (struct path_index){0};
        ix->e = calloc(n + 1, sizeof(*ix->e));
        ix->cap_runs = 16;
        while (ix->cap_runs < 2 * (n + 1))
                ix->cap_runs *= 2;
        ix->runs = n < UINT32_MAX ? calloc(ix->cap_runs, sizeof(*ix->runs)) : NULL;
        if (!ix->e || !ix->runs || !tmp) {
                path_index_done(ix);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                size_t len = strlen(keys[i]);

                ix->e[i] = (struct path_index_entry){keys[i], i};
                if (len < 64)
                        ix->key_lens |= UINT64_C(1) << len;
                else
                        ix->long_keys = true;
        }
        ix->n = n;
        sort_entries(ix->e, tmp, n);
        for (size_t i = 0; i < n; i++) {
                size_t j;

                if (i > 0 && strcmp(ix->e[i - 1].key, ix->e[i].key) == 0)
                        continue;
                j = path_hash(ix->e[i].key, strlen(ix->e[i].key)) & (ix->cap_runs - 1);
                while (ix->runs[j])
                        j = (j + 1) & (ix->cap_runs - 1);
                ix->runs[j] = (uint32_t) (i + 1);
        }
        return 0;
}

void path_index_done(struct path_index *ix)
{
        free(ix->e);
        free(ix->runs);
        *ix = (struct path_index){0};
}

void path_index_equal(const struct path_index *ix, const char *key, size_t len, size_t *lo,
                      size_t *hi)
{
        if (!run_find(ix, key, len, path_hash(key, len), lo, hi))
                *lo = *hi = 0;
}

size_t path_index_first(const struct path_index *ix, const char *key)
{
        size_t lo, hi;

        path_index_equal(ix, key, strlen(key), &lo, &hi);
        return lo < hi ? ix->e[lo].id : SIZE_MAX;
}

void path_index_within(const struct path_index *ix, const char *child, path_index_fn fn,
                       void *userdata)
{
        uint64_t h = PATH_HASH_SEED;
        size_t lo, hi;

        /* One pass: the hash of each prefix is the running hash there. */
        for (size_t k = 0;; k++) {
                bool whole = child[k] == '\0';

                if ((whole || path_parent_len(child, k)) && run_find(ix, child, k, h, &lo, &hi))
                        fn(lo, hi, whole, userdata);
                if (whole)
                        return;
                h = path_hash_step(h, child[k]);
        }
}

/* strcmp(key, s[0..n) + "/"). */
static int key_cmp_dir(const char *key, const char *s, size_t n)
{
        int c = strncmp(key, s, n);

        if (c)
                return c;
        return strcmp(key + n, "/");
}

void path_index_beneath(const struct path_index *ix, const char *parent, size_t *lo, size_t *hi)
{
        /* The keys that start with parent + "/" and go on (for the root,
         * with "/" and go on): a contiguous run in strcmp order, just
         * after parent + "/" itself. */
        size_t n = strcmp(parent, "/") == 0 ? 0 : strlen(parent);
        size_t i = 0, end = ix->n;

        while (i < end) {
                size_t mid = i + (end - i) / 2;

                if (key_cmp_dir(ix->e[mid].key, parent, n) <= 0)
                        i = mid + 1;
                else
                        end = mid;
        }
        *lo = i;
        while (i < ix->n && strncmp(ix->e[i].key, parent, n) == 0 && ix->e[i].key[n] == '/')
                i++;
        *hi = i;
}

static void note_any(size_t lo, size_t hi, bool whole, void *userdata)
{
        (void) whole;
        *(bool *) userdata = *(bool *) userdata || lo < hi;
}

bool path_index_holds(const struct path_index *ix, const char *path)
{
        bool any = false;

        path_index_within(ix, path, note_any, &any);
        return any;
}

/* ---- docs/manifest.md, "CREDENTIAL SHIELDS" resolution
 * --------------------------------------------------- */

/* readlink into a heap string (the memo's when memo is set); NULL when it
 * fails (treated as missing). */
static char *read_link(const char *path, bool memo)
{
        char buf[LINK_TARGET_MAX];
        ssize_t n = readlink(path, buf, sizeof(buf) - 1);

        if (n <= 0)
                return NULL;
        return memo ? memo_strndup(buf, (size_t) n) : strndup(buf, (size_t) n);
}

/* What a walk learns about one name: missing (or unreadable), a directory
 * or file to step into, or a link and its text. */
enum step_kind {
        STEP_MISSING,
        STEP_ENTER,
        STEP_LINK,
};

/* *own receives the link text when it is not memoised (caller frees). */
/* A link's text straight from the host, kept by the caller (*own). */
static enum step_kind host_link(const char *path, const char **target, char **own)
{
        *target = *own = read_link(path, false);
        return *own ? STEP_LINK : STEP_MISSING;
}

static enum step_kind step_lookup_e(struct memo *e, const char **target, char **own)
{
        struct memo_rare *rare;
        mode_t type = 0;

        if (memo_type_e(e, &type) != 0)
                return STEP_MISSING;
        if (type != S_IFLNK)
                return STEP_ENTER;
        rare = memo_rare(e);
        if (!rare)
                return host_link(e->key, target, own);
        if (!(e->have & HAVE_LINK)) {
                rare->link = read_link(e->key, true);
                e->have |= HAVE_LINK;
        }
        *target = rare->link;
        return rare->link ? STEP_LINK : STEP_MISSING;
}

ssize_t path_readlink(const char *path, char *buf, size_t size)
{
        size_t n = strlen(path);
        struct memo *e = memo_entry(path, n, path_hash(path, n));
        cleanup_free char *own = NULL;
        const char *target = NULL;

        if (!e)
                return readlink(path, buf, size);
        if (step_lookup_e(e, &target, &own) != STEP_LINK) {
                /* missing, or there and no link: what readlink(2) says */
                int missing = memo_type_e(e, &(mode_t){0});

                errno = missing ? missing : EINVAL;
                return -1;
        }
        n = strlen(target);
        memcpy(buf, target, n < size ? n : size);
        return (ssize_t) (n < size ? n : size);
}

static enum step_kind step_lookup(const char *next, size_t n, uint64_t h, const char **target,
                                  char **own)
{
        struct memo *e = memo_entry(next, n, h);
        struct stat st;

        if (e)
                return step_lookup_e(e, target, own);
        if (lstat(next, &st) < 0)
                return STEP_MISSING;
        return S_ISLNK(st.st_mode) ? host_link(next, target, own) : STEP_ENTER;
}

/* The resolved prefix of a walk: a clean absolute path, at least "/", and
 * its memo hash (kept up as names are appended). */
struct walk {
        char *s;
        size_t len, cap;
        uint64_t h;
};

/* Append "/" + name (no slash after the root). */
static int walk_push(struct walk *w, const char *name, size_t n)
{
        size_t want = w->len + n + 2;

        if (want > w->cap) {
                size_t cap = want * 2;
                char *s = realloc(w->s, cap);

                if (!s)
                        return -ENOMEM;
                w->s = s;
                w->cap = cap;
        }
        if (w->len > 1) {
                w->s[w->len++] = '/';
                w->h = path_hash_step(w->h, '/');
        }
        memcpy(w->s + w->len, name, n);
        w->len += n;
        w->s[w->len] = '\0';
        for (size_t i = 0; i < n; i++)
                w->h = path_hash_step(w->h, name[i]);
        return 0;
}

static void walk_truncate(struct walk *w, size_t len)
{
        w->len = len;
        w->s[len] = '\0';
        w->h = path_hash(w->s, len);
}

/* Step to the parent directory in place. */
static void walk_up(struct walk *w)
{
        char *slash = strrchr(w->s, '/');

        walk_truncate(w, slash == w->s ? 1 : (size_t) (slash - w->s));
}

/* Replace *rest with target + "/" + tail. */
static int splice_link(char **rest, const char *target, const char *tail)
{
        char *spliced = NULL;

        if (asprintf(&spliced, "%s/%s", target, tail) < 0)
                return -ENOMEM;
        free(*rest);
        *rest = spliced;
        return 0;
}

/* Who is told about each link a walk steps on (path_walk_links). */
struct link_visitor {
        path_link_fn fn;
        void *userdata;
};

/* Tell v about the link w->s, which sits in w->s[0..parent). */
static int visit_link(const struct link_visitor *v, const struct walk *w, size_t parent)
{
        cleanup_free char *dir = NULL;

        if (!v)
                return 0;
        dir = strndup(w->s, parent);
        if (!dir)
                return -ENOMEM;
        return v->fn(w->s, dir, v->userdata);
}

/* How a walk ended: every name entered (the result is the resolved
 * prefix), at a missing name (the rest is only spelled), or in a loop of
 * links (the path is left as it was spelled). */
enum walk_end {
        WALK_ENTERED,
        WALK_MISSING,
        WALK_LOOP,
};

/* Where a walk stands: the resolved prefix w, the names still to walk in
 * rest from i on, and the links followed so far. */
struct walk_run {
        struct walk *w;
        char *rest;
        size_t i;
        unsigned links;
        enum walk_end end;
};

/* Walk on from where r stands; *ret is a heap string.  `p` is the path the
 * walk began with, the answer for a loop. */
static int walk_on(const char *p, struct walk_run *r, const struct link_visitor *v, char **ret)
{
        struct walk *w = r->w;

        for (;;) {
                cleanup_free char *own = NULL;
                const char *target = NULL;
                size_t len, parent;
                int k;

                while (r->rest[r->i] == '/')
                        r->i++;
                len = name_len(r->rest + r->i);
                if (len == 0)
                        break;
                if (len <= 2 && r->rest[r->i] == '.' && (len == 1 || r->rest[r->i + 1] == '.')) {
                        if (len == 2)
                                walk_up(w);
                        r->i += len;
                        continue;
                }
                parent = w->len;
                if (walk_push(w, r->rest + r->i, len) < 0)
                        return -ENOMEM;
                r->i += len;
                switch (step_lookup(w->s, w->len, w->h, &target, &own)) {
                case STEP_ENTER:
                        continue;
                case STEP_MISSING:
                        /* Missing (or unreadable): the rest can only be spelled. */
                        r->end = WALK_MISSING;
                        *ret = path_join(w->s, r->rest + r->i);
                        return *ret ? 0 : -ENOMEM;
                case STEP_LINK:
                        break;
                }
                k = visit_link(v, w, parent);
                if (k < 0)
                        return k;
                if (++r->links > RESOLVE_LINKS_MAX) {
                        /* A loop: leave the path as it was spelled. */
                        r->end = WALK_LOOP;
                        *ret = strdup(p);
                        return *ret ? 0 : -ENOMEM;
                }
                /* Back to the link's directory, or to "/" for an absolute one. */
                walk_truncate(w, target[0] == '/' ? 1 : parent);
                if (splice_link(&r->rest, target, r->rest + r->i) < 0)
                        return -ENOMEM;
                r->i = 0;
        }
        r->end = WALK_ENTERED;
        *ret = strdup(w->s);
        return *ret ? 0 : -ENOMEM;
}

/* The walk itself; *ret is a heap string.  `p` is absolute: path_clean(p)
 * for path_resolve, the name as given for path_walk_links.  ".." steps up
 * from what has been resolved so far, as the kernel does. */
static int resolve_walk(const char *p, struct walk *w, const struct link_visitor *v, char **ret)
{
        struct walk_run r = {.w = w, .rest = strdup(p)};
        int k;

        if (!r.rest || walk_push(w, "", 0) < 0) {
                free(r.rest);
                return -ENOMEM;
        }
        w->s[0] = '/';
        walk_truncate(w, 1);
        k = walk_on(p, &r, v, ret);
        free(r.rest);
        return k;
}

/* The memo of the clean absolute path s[0..n) (hash h) with its
 * path_resolve() answer, or NULL (out of memory).
 *
 * A walk of s is the walk of its directory with one name more: it takes
 * the same steps until the directory's names are used up (a link's text
 * only ever goes in front of the names left), then walks the last name
 * from there.  So the answer is built from the directory's: spelled on
 * after a missing name (cleaning a plain name onto a clean path only
 * appends it), the path itself after a loop, and after a walk that
 * entered every name one step more, with the links it followed still
 * counted.  Each name of a deep path is then looked up once, not once
 * for every path beneath it. */
/* memo_resolve()'s usual step, without building a string: e's directory
 * resolved to itself (its key), so e resolves to itself too, as a name
 * entered or missing, unless its own name is a link (false: the whole walk
 * is needed).  What the walk from the directory's answer would say, down to
 * the links counted. */
static bool resolve_in_place(struct memo *e, const struct memo *dir)
{
        cleanup_free char *own = NULL;
        const char *target = NULL;
        enum walk_end end = (enum walk_end) dir->resolved_end;
        unsigned char links = 0;

        if (end == WALK_ENTERED) {
                switch (step_lookup_e(e, &target, &own)) {
                case STEP_ENTER:
                        break;
                case STEP_MISSING:
                        end = WALK_MISSING;
                        break;
                case STEP_LINK:
                        return false;
                }
                links = dir->resolved_links;
        }
        e->resolved_end = (unsigned char) end;
        e->resolved_links = links;
        e->have |= HAVE_RESOLVED;
        return true;
}

/* Keep out as e's path_resolve() answer; false when out of memory. */
static bool memo_keep_resolved(struct memo *e, const char *out, enum walk_end end, unsigned links)
{
        /* most paths resolve to themselves: no second copy then */
        if (strcmp(out, e->key) != 0) {
                struct memo_rare *rare = memo_rare(e);

                if (!rare || !(rare->resolved = memo_strndup(out, strlen(out))))
                        return false;
        }
        e->resolved_end = (unsigned char) end;
        e->resolved_links = (unsigned char) links;
        e->have |= HAVE_RESOLVED;
        return true;
}

/* e (a clean absolute path's entry) with its path_resolve() answer, or
 * NULL (out of memory).  Its directory is e->parent, made with it, so the
 * walk up takes no table probe. */
static struct memo *memo_resolve_e(struct memo *e)
{
        const char *s = e->key, *dir_resolved;
        size_t n = e->len, dir_len, at;
        struct walk w = {0};
        struct walk_run r = {.w = &w};
        cleanup_free char *out = NULL;
        struct memo *dir = e->parent;

        if (e->have & HAVE_RESOLVED)
                return e;
        if (!dir || !split_last(s, n, &dir_len, &at)) { /* "/" */
                out = strdup("/");
                r.end = WALK_ENTERED;
        } else if (!memo_resolve_e(dir)) {
                return NULL;
        } else if ((dir_resolved = memo_resolved(dir)) == dir->key && resolve_in_place(e, dir)) {
                return e;
        } else if (dir->resolved_end == WALK_MISSING) {
                out = path_join(dir_resolved, s + at);
                r.end = WALK_MISSING;
        } else if (dir->resolved_end == WALK_LOOP) {
                out = strndup(s, n);
                r.end = WALK_LOOP;
        } else {
                int k;

                w.len = strlen(dir_resolved);
                w.cap = w.len + (n - at) + 2;
                w.s = malloc(w.cap);
                r.rest = strndup(s + at - 1, n - at + 1); /* "/" + the last name */
                r.links = dir->resolved_links;
                k = w.s && r.rest ? 0 : -ENOMEM;
                if (k == 0) {
                        memcpy(w.s, dir_resolved, w.len + 1);
                        w.h = path_hash(w.s, w.len);
                        k = walk_on(s, &r, NULL, &out);
                }
                free(r.rest);
                free(w.s);
                if (k < 0)
                        return NULL;
        }
        if (!out || !memo_keep_resolved(e, out, r.end, r.links))
                return NULL;
        return e;
}

/* Is e's path a directory reached through no symbolic link (the walk
 * from "/" entered every name of it as it is spelled)? */
static bool memo_plain_dir_path(struct memo *e)
{
        return memo_resolve_e(e) && memo_resolved(e) == e->key && e->resolved_links == 0 &&
               e->resolved_end == WALK_ENTERED;
}

/* path_resolve()'s answer for p: *answer, which is the memo's (valid while
 * the scope is open) or, outside a scope, *own, a heap string. */
static int resolve_answer(const char *p, const char **answer, char **own)
{
        size_t n = strlen(p);
        /* most paths come clean already: cleaning them would only copy */
        bool is_clean = path_is_clean(p, n);
        cleanup_free char *copy = is_clean ? NULL : path_clean(p);
        const char *clean = is_clean ? p : copy;
        struct walk w = {0};
        struct memo *e = NULL;
        int r;

        if (!clean)
                return -ENOMEM;
        n = strlen(clean);
        if (cache.depth && clean[0] == '/')
                e = memo_get(clean, n, path_hash(clean, n));
        if (e && memo_resolve_e(e)) {
                *answer = memo_resolved(e);
                return 0;
        }
        r = resolve_walk(clean, &w, NULL, own);
        free(w.s);
        if (r < 0)
                return r;
        *answer = *own;
        return *own ? 0 : -ENOMEM;
}

/* resolve_answer() of p as a heap string in *ret; when unchanged, NULL
 * there instead of p's copy. */
static int resolve_to_heap(const char *p, bool unchanged_null, char **ret)
{
        const char *answer = NULL;
        char *own = NULL;
        int r = resolve_answer(p, &answer, &own);

        if (r < 0)
                return r;
        if (unchanged_null && strcmp(answer, p) == 0) {
                free(own);
                *ret = NULL;
                return 0;
        }
        *ret = own ? own : strdup(answer);
        return *ret ? 0 : -ENOMEM;
}

int path_resolve(const char *p, char **ret)
{
        return resolve_to_heap(p, false, ret);
}

int path_resolve_changed(const char *p, char **ret)
{
        return resolve_to_heap(p, true, ret);
}

int path_walk_links(const char *p, path_link_fn fn, void *userdata)
{
        const struct link_visitor v = {fn, userdata};
        struct walk w = {0};
        char *out = NULL;
        int r;

        if (p[0] != '/')
                return -EINVAL;
        r = resolve_walk(p, &w, &v, &out);
        free(w.s);
        free(out);
        return r;
}
