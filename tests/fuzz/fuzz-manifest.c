/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the manifest loader (translate/manifest*.c): the
 * input is a hostile YAML file.  Beyond "no crash, no leak, no undefined
 * behaviour", every outcome must keep the loader's promises: a refusal
 * carries at least one problem and no problem line holds a control
 * character; an accepted manifest has no NULL strings, passes
 * manifest_validate() again, and its network rules match themselves.
 * Inputs above 64 KiB are skipped: the size cap is a unit test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "manifest/manifest.h"

static void check_refusal(const struct manifest_problems *p, const struct bento_err *err)
{
        must(err->code != 0, "refusal without an error code");
        must(p->n > 0, "refusal without a problem");
        for (size_t i = 0; i < p->n; i++)
                for (const unsigned char *c = (const unsigned char *) p->items[i]; *c; c++)
                        must(*c >= 0x20 && *c != 0x7f, "control character in a problem");
}

static void check_accepted(const struct manifest *m)
{
        struct bento_err err = {0};

        must(m->entrypoint && *m->entrypoint, "accepted without an entrypoint");
        must(m->interpreter && m->exec_as_written && m->limits.memory && m->limits.cpu,
             "NULL string in an accepted manifest");
        must(manifest_validate(m, "fuzz", NULL, &err) == 0, "accepted but not valid");
        for (size_t i = 0; i < m->n_network; i++) {
                const char *h = m->network[i].host, *p = m->network[i].port;

                if (h[0] != '.' && strchr(p, '-') == NULL)
                        must(manifest_network_allows(m, h, p), "a rule does not match itself");
        }
        must(strcmp(manifest_exec_to_string(m->exec), "invalid") != 0, "bad exec mode");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct manifest_problems p = {0};
        struct bento_err err = {0};
        struct manifest *m = NULL;

        if (size > FUZZ_MAX_BYTES)
                return 0;
        if (manifest_parse((const char *) data, size, "fuzz.yaml", &m, &p, &err) == 0)
                check_accepted(m);
        else
                check_refusal(&p, &err);
        manifest_free(m);
        manifest_problems_done(&p);
        return 0;
}
