/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host path handling shared by the shields, path resolution (docs/manifest.md, "PATH RESOLUTION")
 * and the compiler: lexical cleaning as Go's path.Clean does it (manifest paths are defined
 * in those terms) and the "Existing" symlink resolution of docs/manifest.md, "CREDENTIAL SHIELDS",
 * which also works for paths that do not exist yet.
 */
#ifndef BENTO_PATH_H
#define BENTO_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Lexical clean (as Go's path.Clean): collapse "//", ".", "..", drop a
 * trailing slash.  Heap string, NULL only when out of memory. */
char *path_clean(const char *p);

/* Is p[0..n) spelled as path_clean() spells it (no empty, "." or ".."
 * name and no trailing slash; "/" and "." themselves)?  False for a
 * relative path with a leading "..", which the full clean keeps. */
bool path_is_clean(const char *p, size_t n);

/* clean(a + "/" + b); NULL only when out of memory. */
char *path_join(const char *a, const char *b);

/* p made absolute against the working directory and cleaned, the way a
 * path given on the command line is meant (symlinks are left to whoever
 * checks it).  NULL when out of memory or the working directory is gone. */
char *path_absolute(const char *p);

/* child equals parent or lies beneath it, on component boundaries; both
 * must already be clean. */
bool path_within(const char *parent, const char *child);

/* child lies strictly beneath parent. */
bool path_beneath(const char *parent, const char *child);

/* Is child[0..n) a parent child lies beneath (path_beneath(child[0..n),
 * child))?  Looping n over 0..strlen(child) names every such parent. */
bool path_parent_len(const char *child, size_t n);

/* docs/manifest.md, "CREDENTIAL SHIELDS" "Existing" resolution: follow symlinks as far as the path
 * exists, resolve a dangling link against its resolved parent, append the missing rest lexically,
 * and give a path that loops back cleaned but unresolved. Returns 0 or -ENOMEM. */
int path_resolve(const char *p, char **ret);
/* The same, saving the copy most callers would compare with p and free:
 * *ret is NULL when the answer is p itself (as spelled), else a heap
 * string.  Returns 0 or -ENOMEM. */
int path_resolve_changed(const char *p, char **ret);

/* Called for each symbolic link a walk steps on: link is its path as
 * resolved so far, dir the (resolved) directory that holds it.  A negative
 * return stops the walk with that value. */
typedef int (*path_link_fn)(const char *link, const char *dir, void *userdata);

/* Walk the absolute name p (not cleaned first) the way the kernel resolves
 * it, with the same walker as path_resolve: one component at a time, by
 * lstat and readlink only, so no link is ever followed by the kernel on
 * the way; ".." steps up from what has been resolved so far.  fn sees every
 * link, in order; the walk stops at a missing or unreadable name and after
 * 40 links.  Returns 0, -EINVAL for a relative p, -ENOMEM, or fn's error. */
int path_walk_links(const char *p, path_link_fn fn, void *userdata);

/* A memo of host lookups for one stretch of work that does not change the
 * host (resolving a manifest asks about the same paths many times over).
 * Between path_cache_begin() and the matching path_cache_end() (scopes
 * nest), path_resolve() and the path_*stat()/path_access() calls below
 * answer from what the host said the first time; the outermost end drops
 * it.  Whoever changes the host inside a scope calls path_cache_reset(). */
void path_cache_begin(void);
void path_cache_end(void);
void path_cache_reset(void);

/* lstat(2), stat(2), access(2), with their return and errno, memoised for
 * absolute paths inside a scope (the system call itself outside one).
 * Inside a scope the memo keeps the type and permissions, identity (st_dev,
 * st_ino), links, owner, size and st_rdev of a struct stat; times and block
 * counts read as zero there, so whoever needs them calls lstat(2) itself. */
int path_lstat(const char *path, struct stat *st);
/* lstat(2)'s answer to "what is it" alone: 0 and the S_IF* type in *type,
 * or -1 with errno.  Inside a scope a listed directory answers it without
 * a system call (readdir's d_type), so callers that need no more than the
 * type should ask this. */
int path_type(const char *path, mode_t *type);
/* The same with stat(2)'s answer: a final symlink is followed. */
int path_follow_type(const char *path, mode_t *type);
int path_stat(const char *path, struct stat *st);
int path_access(const char *path, int mode);
/* readlink(2), memoised like the above: inside a scope a link's text is
 * read once, whoever asks (path_resolve() reads it too).  Copies at most
 * size bytes (no NUL) and returns their number, or -1 with errno (EINVAL:
 * not a link). */
ssize_t path_readlink(const char *path, char *buf, size_t size);

/* fn(name, type, userdata) for each name in the directory dir but "." and
 * "..", in the order readdir(3) gives them; type is the S_IF* type the
 * directory entry says, 0 when it does not.  Inside a scope the names are
 * read once and kept, so a second walk of the same directory costs no
 * system call, and nor do later lookups of names in it where listing is
 * sound (see path.c).  Returns 0; -1 with errno when dir cannot be opened
 * or read whole; or the first nonzero value fn returned, which ends the
 * walk. */
typedef int (*path_list_fn)(const char *name, mode_t type, void *userdata);
int path_list(const char *dir, path_list_fn fn, void *userdata);
/* The same, keeping nothing: for walks of trees of any size (a memo of two
 * million names would not be small).  A listing the scope holds already
 * is replayed; any other directory is read straight from the host. */
int path_list_direct(const char *dir, path_list_fn fn, void *userdata);
/* Several names in the directory dir are about to be looked up (the
 * workspace shields of a write grant): inside a scope, list it now, where
 * listing is sound, so that each is answered without a system call of its
 * own rather than after LIST_AFTER_LOOKUPS (path.c) of them. */
void path_list_soon(const char *dir);

/* The hash every path table here uses (FNV-1a).  A running hash: feeding
 * path_hash_step() the bytes of a path from PATH_HASH_SEED passes through
 * the hash of each of its prefixes, so a table keyed by path can look up
 * every parent of a path in one pass over it. */
#define PATH_HASH_SEED 0xcbf29ce484222325ULL

static inline uint64_t path_hash_step(uint64_t h, char c)
{
        return (h ^ (unsigned char) c) * 0x100000001b3ULL;
}

static inline uint64_t path_hash(const char *s, size_t n)
{
        uint64_t h = PATH_HASH_SEED;

        for (size_t i = 0; i < n; i++)
                h = path_hash_step(h, s[i]);
        return h;
}

/* Many paths indexed for containment queries (a hash lookup per prefix of
 * the path asked about, a binary search for what lies beneath it), so
 * checking P paths against N costs about O(P * depth) instead of O(P * N),
 * where N is a thousand shield rules or hundreds of grants.  Keys are borrowed;
 * ids are the keys' positions in the array given to path_index_init(), and
 * every range below lists equal keys in id order. */
struct path_index_entry {
        const char *key;
        size_t id;
};

struct path_index {
        struct path_index_entry *e; /* sorted by key, then id */
        size_t n;
        /* hash of the distinct keys: 1 + the first entry of each (four
         * bytes a slot: the table is most of an index's memory, and every
         * page of it a page fault) */
        uint32_t *runs;
        size_t cap_runs;
        /* bit k: some key is k bytes long (k < 64); long_keys: some key is
         * longer.  A prefix of a length no key has is not probed for. */
        uint64_t key_lens;
        bool long_keys;
};

/* Returns 0 or -ENOMEM. */
int path_index_init(struct path_index *ix, const char *const *keys, size_t n);
void path_index_done(struct path_index *ix);

/* [*lo, *hi): the entries whose key equals key[0..len) (empty: lo == hi). */
void path_index_equal(const struct path_index *ix, const char *key, size_t len, size_t *lo,
                      size_t *hi);

/* The lowest id whose key equals key (the first of them in the array
 * given to path_index_init()), SIZE_MAX when none does: "seen before?"
 * for keys in order, without a pass over the earlier ones. */
size_t path_index_first(const struct path_index *ix, const char *key);

/* fn(lo, hi, whole, userdata) for each run [lo, hi) of equal keys that hold
 * child (path_within(key, child)); whole when the key is child itself. */
typedef void (*path_index_fn)(size_t lo, size_t hi, bool whole, void *userdata);
void path_index_within(const struct path_index *ix, const char *child, path_index_fn fn,
                       void *userdata);

/* [*lo, *hi): the entries whose key lies strictly beneath parent
 * (path_beneath(parent, key)). */
void path_index_beneath(const struct path_index *ix, const char *parent, size_t *lo, size_t *hi);

/* Does some key equal path or hold it (path_within(key, path))? */
bool path_index_holds(const struct path_index *ix, const char *path);

#endif
