/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento inspect's view of the mount identity records (bundle/mount-identity.h):
 * how many host paths the bundle pinned by device and inode, and whether
 * each one is still the object it was when the bundle was made.  A path
 * that changed is flagged: bento-runtime refuses to mount it, while runc
 * and crun, which do not read the record, would mount whatever it names
 * now.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "inspect.h"
#include "mount-identity.h"
#include "manifest/path.h"

/* The host path a record is about: the destination, or its directory. */
static char *recorded_path(const char *dest, enum bento_mount_identity_kind kind)
{
        char *p = strdup(dest);
        char *slash = p ? strrchr(p, '/') : NULL;

        if (p && kind == BENTO_MOUNT_ID_PARENT && slash)
                slash[slash == p ? 1 : 0] = '\0';
        return p;
}

static int check_one(struct inspect_report *r, size_t i, const char *dest,
                     const struct bento_mount_identity *id)
{
        cleanup_free char *path = recorded_path(dest, id->kind);
        struct stat st;

        if (!path)
                return -ENOMEM;
        if (lstat(path, &st) == 0 && (uint64_t) st.st_dev == id->dev &&
            (uint64_t) st.st_ino == id->ino)
                return 0;
        return inspect_flag(r,
                            "mounts[%zu]: \"%s\" is no longer the object the bundle recorded "
                            "(replaced, renamed or relinked since translate): bento-runtime "
                            "refuses to run this bundle; runc and crun, which do not read the "
                            "record, would mount whatever the path names now",
                            i, path);
}

int inspect_check_identities(struct inspect_report *r)
{
        const char *text = inspect_annotation(r, BENTO_MOUNT_IDENTITY_ANNOTATION);
        const struct bento_json *mounts = bento_json_get(r->doc, "mounts");
        cleanup_free struct bento_mount_identity *ids = NULL;
        struct bento_err err = {0};
        size_t n;
        int rc = 0;

        if (!mounts || mounts->type != BENTO_JSON_ARRAY)
                return 0;
        n = mounts->u.array.n;
        if (!text)
                return inspect_annotation(r, "org.bento.version")
                           ? inspect_flag(r,
                                          "the mounts carry no identity record (%s): any "
                                          "runtime mounts whatever their paths name when it "
                                          "runs; translate the manifest again",
                                          BENTO_MOUNT_IDENTITY_ANNOTATION)
                           : 0;
        if (bento_mount_identity_parse(text, n, &ids, &err) < 0)
                return inspect_flag(r, "%s", err.msg);
        for (size_t i = 0; rc >= 0 && i < n; i++) {
                const char *dest = inspect_str(mounts->u.array.items[i], "destination");

                if (ids[i].kind == BENTO_MOUNT_ID_NONE)
                        continue;
                r->n_identities++;
                if (dest && dest[0] == '/')
                        rc = check_one(r, i, dest, &ids[i]);
        }
        return rc;
}
