/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rt_container_hooks_config_load (runtime/container/store.c): `start` and
 * `delete` read the saved config for its hooks only, and skip the parse of
 * one that cannot name any.  A "hooks" key, spelled out or with a \u
 * escape, is always found; the bare word elsewhere (bento's own
 * run.oci.hooks.* annotations) is not taken for one; a config that is not
 * there is an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "container/store.h"
#include "fileio.h"
#include "oci-config.h"
#include "tap.h"

#define HEAD          "\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"}"
#define POSTSTOP_HOOK "{\"poststop\":[{\"path\":\"/bin/true\"}]}"

static struct bento_err err;

/* A state directory holding config.json = text (NULL: none), opened as
 * the runtime opens one. */
static int state_dir(const char *text, char *path, struct rt_container_dir *dir)
{
        char file[4096];

        strcpy(path, "/tmp/bento-test-hooks-XXXXXX");
        if (!mkdtemp(path))
                return -errno;
        snprintf(file, sizeof(file), "%s/config.json", path);
        if (text && bento_write_file_atomic(file, text, strlen(text), 0600, &err) < 0)
                return -err.code;
        dir->path = path;
        dir->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        return dir->fd < 0 ? -errno : 0;
}

static void state_dir_remove(char *path, struct rt_container_dir *dir)
{
        char file[4096];

        snprintf(file, sizeof(file), "%s/config.json", path);
        (void) unlink(file);
        (void) rmdir(path);
        if (dir->fd >= 0)
                close(dir->fd);
        dir->fd = -1;
}

/* Load text's hooks: 1 when a config came back (its poststop hooks in
 * *n_poststop), 0 when none did, -1 on an error. */
static int load(const char *text, size_t *n_poststop)
{
        struct rt_container_dir dir = {.path = NULL, .fd = -1};
        struct oci_config *cfg = NULL;
        char path[64];
        int r;

        bento_err_clear(&err);
        *n_poststop = 0;
        if (state_dir(text, path, &dir) < 0) {
                printf("# cannot make a state directory: %s\n", strerror(errno));
                state_dir_remove(path, &dir);
                return -2;
        }
        r = rt_container_hooks_config_load(&dir, &cfg, &err);
        state_dir_remove(path, &dir);
        if (r < 0)
                return -1;
        if (!cfg)
                return 0;
        *n_poststop = cfg->n_hooks[OCI_HOOK_POSTSTOP];
        oci_config_free(cfg);
        return 1;
}

TEST(a_hooks_key_is_parsed)
{
        size_t n;

        ASSERT_EQ(load("{" HEAD ",\"hooks\":" POSTSTOP_HOOK "}", &n), 1);
        ASSERT_EQ(n, 1);
}

TEST(a_hooks_key_spelled_with_an_escape_is_parsed)
{
        size_t n;

        ASSERT_EQ(load("{" HEAD ",\"\\u0068ooks\":" POSTSTOP_HOOK "}", &n), 1);
        ASSERT_EQ(n, 1);
        ASSERT_EQ(load("{" HEAD ",\"hook\\u0073\":" POSTSTOP_HOOK "}", &n), 1);
        ASSERT_EQ(n, 1);
}

TEST(the_bare_word_in_an_annotation_is_no_hooks_key)
{
        size_t n;

        ASSERT_EQ(load("{" HEAD ",\"annotations\":{\"run.oci.hooks.stderr\":\"/x/hooks.log\","
                       "\"run.oci.hooks.stdout\":\"/x/hooks.log\"}}",
                       &n),
                  0);
        ASSERT_EQ(load("{" HEAD "}", &n), 0);
}

TEST(the_quoted_word_as_a_value_only_costs_a_parse)
{
        size_t n;

        ASSERT_EQ(load("{" HEAD ",\"annotations\":{\"a\":\"hooks\"}}", &n), 1);
        ASSERT_EQ(n, 0);
}

TEST(a_missing_or_broken_config_is_an_error)
{
        size_t n;

        ASSERT_EQ(load(NULL, &n), -1);
        ASSERT_EQ(err.code, ENOENT);
        ASSERT_EQ(load("{" HEAD ",\"hooks\":[", &n), -1);
        ASSERT_CONTAINS(err.msg, "config.json");
}

TAP_MAIN()
