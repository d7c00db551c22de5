/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/manifest/path-prefetch.c, the thread that reads
 * the credential stores' listings ahead of the links walk, and for its use
 * through path_list_ahead(): what a walk sees must be what it would have
 * read alone, whichever side read each directory, including a directory
 * too large for one getdents64(2), one that is missing and one that is a
 * file.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifest/path-prefetch.h"
#include "manifest/path.h"
#include "tap.h"

#define N_DIRS 40
/* more names than one 32 KiB getdents64 buffer holds */
#define BIG_DIR_NAMES 2000

static char root[] = "/tmp/bento-test-path-prefetch-XXXXXX";
static char paths[N_DIRS + 2][256];
static const char *dirs[N_DIRS + 2];

static void touch(const char *path)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

        if (fd >= 0)
                close(fd);
}

/* N_DIRS directories (the one at 5 large, the others holding i names, some
 * of them directories), then a missing path and a regular file. */
TEST(a_tree_of_stores_is_made)
{
        char p[512];

        ASSERT_TRUE(mkdtemp(root) != NULL);
        for (int i = 0; i < N_DIRS; i++) {
                int names = i == 5 ? BIG_DIR_NAMES : i;

                snprintf(paths[i], sizeof(paths[i]), "%s/store%02d", root, i);
                ASSERT_OK(mkdir(paths[i], 0755));
                for (int k = 0; k < names; k++) {
                        snprintf(p, sizeof(p), "%s/entry-with-a-longer-name-%04d", paths[i], k);
                        if (k % 3 == 0)
                                ASSERT_OK(mkdir(p, 0755));
                        else
                                touch(p);
                }
        }
        snprintf(paths[N_DIRS], sizeof(paths[N_DIRS]), "%s/missing", root);
        snprintf(paths[N_DIRS + 1], sizeof(paths[N_DIRS + 1]), "%s/a-file", root);
        touch(paths[N_DIRS + 1]);
        for (int i = 0; i < N_DIRS + 2; i++)
                dirs[i] = paths[i];
}

/* A listing as a sorted, newline-joined string of "name type" lines. */
struct names {
        char **v;
        size_t n;
};

static void add_name(struct names *s, const char *name, unsigned type)
{
        char line[300];

        snprintf(line, sizeof(line), "%s %u", name, type);
        s->v = realloc(s->v, (s->n + 1) * sizeof(*s->v));
        if (!s->v || !(s->v[s->n++] = strdup(line)))
                abort();
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static char *joined(struct names *s)
{
        size_t len = 1;
        char *out;

        if (s->n)
                qsort(s->v, s->n, sizeof(*s->v), cmp_str);
        for (size_t i = 0; i < s->n; i++)
                len += strlen(s->v[i]) + 1;
        out = calloc(1, len);
        if (!out)
                abort();
        for (size_t i = 0; i < s->n; i++) {
                strcat(out, s->v[i]);
                strcat(out, "\n");
                free(s->v[i]);
        }
        free(s->v);
        *s = (struct names){0};
        return out;
}

/* What readdir(3) says of dir. */
static char *readdir_names(const char *dir)
{
        struct names s = {0};
        DIR *d = opendir(dir);
        struct dirent *de;

        if (!d)
                abort();
        while ((de = readdir(d)))
                if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
                        add_name(&s, de->d_name, de->d_type);
        closedir(d);
        return joined(&s);
}

/* What the records the reader handed over say. */
static char *record_names(const char *bytes, size_t n)
{
        struct names s = {0};

        for (size_t off = 0; off < n;) {
                const struct dirent64 *de = (const void *) (bytes + off);

                off += de->d_reclen;
                if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
                        add_name(&s, de->d_name, de->d_type);
        }
        return joined(&s);
}

TEST(too_few_directories_start_no_thread)
{
        const char *bytes;
        size_t n;

        ASSERT_TRUE(path_prefetch_start(dirs, PATH_PREFETCH_MIN - 1) == NULL);
        ASSERT_EQ(path_prefetch_take(NULL, dirs[0], strlen(dirs[0]), &bytes, &n), 0);
        path_prefetch_end(NULL);
}

/* Taken once the reader is done: every directory as readdir lists it, the
 * missing one and the file with their errors, each once. */
TEST(what_the_reader_read_is_what_readdir_lists)
{
        struct path_prefetch *pf = path_prefetch_start(dirs, N_DIRS + 2);
        const char *bytes;
        size_t n;
        int r;

        ASSERT_TRUE(pf != NULL);
        /* a directory the caller never named is not the reader's */
        ASSERT_EQ(path_prefetch_take(pf, root, strlen(root), &bytes, &n), 0);
        path_prefetch_end(pf);

        pf = path_prefetch_start(dirs, N_DIRS + 2);
        ASSERT_TRUE(pf != NULL);
        usleep(200 * 1000); /* long enough for the reader to read them all */
        for (int i = 0; i < N_DIRS; i++) {
                r = path_prefetch_take(pf, dirs[i], strlen(dirs[i]), &bytes, &n);
                if (r == 0)
                        continue; /* the reader was slower: the caller's own */
                ASSERT_EQ(r, 1);
                char *got = record_names(bytes, n), *want = readdir_names(dirs[i]);

                ASSERT_STREQ(got, want);
                free(got);
                free(want);
                /* handed over once */
                ASSERT_EQ(path_prefetch_take(pf, dirs[i], strlen(dirs[i]), &bytes, &n), 0);
        }
        r = path_prefetch_take(pf, dirs[N_DIRS], strlen(dirs[N_DIRS]), &bytes, &n);
        ASSERT_TRUE(r == 0 || (r == -1 && errno == ENOENT));
        r = path_prefetch_take(pf, dirs[N_DIRS + 1], strlen(dirs[N_DIRS + 1]), &bytes, &n);
        ASSERT_TRUE(r == 0 || (r == -1 && errno == ENOTDIR));
        path_prefetch_end(pf);
}

/* Taken at once, in order: the caller claims from the first, the reader
 * from the last, so the caller's own come first and the reader's after,
 * and whatever the reader read is right. */
TEST(the_caller_and_the_reader_meet_once)
{
        for (int round = 0; round < 20; round++) {
                struct path_prefetch *pf = path_prefetch_start(dirs, N_DIRS);
                bool readers = false;

                ASSERT_TRUE(pf != NULL);
                for (int i = 0; i < N_DIRS; i++) {
                        const char *bytes;
                        size_t n;
                        int r = path_prefetch_take(pf, dirs[i], strlen(dirs[i]), &bytes, &n);

                        ASSERT_TRUE(r == 0 || r == 1);
                        if (r == 0) {
                                ASSERT_TRUE(!readers);
                                continue;
                        }
                        readers = true;
                        char *got = record_names(bytes, n), *want = readdir_names(dirs[i]);

                        ASSERT_STREQ(got, want);
                        free(got);
                        free(want);
                }
                path_prefetch_end(pf);
        }
}

struct seen {
        struct names s;
};

static int see(const char *name, mode_t type, void *userdata)
{
        struct seen *w = userdata;

        add_name(&w->s, name, (unsigned) type);
        return 0;
}

/* Through path.c: a walk after path_list_ahead() sees what a walk outside
 * a scope sees, for every store, and fails where it fails. */
TEST(a_walk_after_path_list_ahead_sees_what_it_would_alone)
{
        char *alone[N_DIRS + 2];

        for (int i = 0; i < N_DIRS + 2; i++) {
                struct seen w = {0};

                alone[i] = path_list(dirs[i], see, &w) < 0 ? NULL : joined(&w.s);
        }
        for (int round = 0; round < 10; round++) {
                path_cache_begin();
                path_list_ahead(dirs, N_DIRS + 2);
                if (round % 2)
                        usleep(50 * 1000);
                for (int i = 0; i < N_DIRS + 2; i++) {
                        struct seen w = {0};
                        int r = path_list(dirs[i], see, &w);

                        if (!alone[i]) {
                                ASSERT_TRUE(r < 0);
                                continue;
                        }
                        ASSERT_EQ(r, 0);
                        char *got = joined(&w.s);

                        ASSERT_STREQ(got, alone[i]);
                        free(got);
                }
                /* the scope's end waits for the reader */
                path_cache_end();
        }
        for (int i = 0; i < N_DIRS + 2; i++)
                free(alone[i]);
}

TEST(the_tree_is_removed)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        ASSERT_EQ(system(cmd), 0);
}

TAP_MAIN()
