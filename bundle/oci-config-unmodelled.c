/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime-spec properties that the config model does not carry.  Unknown
 * properties must be ignored, but these are known ones that change what a
 * container may do; a runtime that dropped them silently would run the
 * container with less than it was asked for.  They are listed by JSON path
 * so the runtime can refuse them by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci-config-internal.h"

static const char *const linux_keys[] = {"timeOffsets", "intelRdt", "netDevices", NULL};

static int add_path(struct oci_config *cfg, const char *prefix, const char *key)
{
        char **grown = realloc(cfg->unmodelled, (cfg->n_unmodelled + 1) * sizeof(char *));
        char *path = NULL;

        if (!grown)
                return -ENOMEM;
        cfg->unmodelled = grown;
        if (asprintf(&path, "%s.%s", prefix, key) < 0)
                return -ENOMEM;
        cfg->unmodelled[cfg->n_unmodelled++] = path;
        return 0;
}

static int scan(struct oci_config *cfg, const struct bento_json *obj, const char *prefix,
                const char *const *keys)
{
        if (!obj || obj->type != BENTO_JSON_OBJECT)
                return 0;
        for (const char *const *k = keys; *k; k++) {
                const struct bento_json *v = bento_json_get(obj, *k);
                /* null reads as absent, like everywhere else in the model */
                if (v && v->type != BENTO_JSON_NULL && add_path(cfg, prefix, *k) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int oci_note_unmodelled(struct bento_jsonr *r, const struct bento_json *doc, struct oci_config *cfg)
{
        int rc = 0;

        rc = scan(cfg, bento_json_get(doc, "linux"), "linux", linux_keys);
        if (rc < 0)
                return bento_err_set(r->err, ENOMEM, "config");
        return 1;
}
