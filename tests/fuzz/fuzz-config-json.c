/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the hostile-input readers of bundle/: config.json
 * (oci_config_parse), the JSON tree underneath it (bento_json_parse) and
 * the runtime's state record (bento_record_parse), which shares the JSON
 * layer and reads files an attacker may have edited.
 *
 * Besides "no crash, no leak, no undefined behaviour", every accepted input
 * must round-trip: write → parse must succeed and the second write must be
 * byte-identical to the first.  A violation aborts, so libFuzzer keeps the
 * input.  Inputs above 64 KiB are skipped: the size caps are tested by the
 * unit tests, and big inputs only slow the search down.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "jsonw.h"
#include "mount-identity.h"
#include "oci-config.h"
#include "state.h"

#define FUZZ_MAX_BYTES (64u * 1024u)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int ok, const char *what, const struct bento_err *err)
{
        if (!ok) {
                fprintf(stderr, "fuzz invariant broken: %s (%s)\n", what, err ? err->msg : "");
                abort();
        }
}

static void same_bytes(const char *a, size_t alen, const char *b, size_t blen, const char *what)
{
        must(alen == blen && memcmp(a, b, alen) == 0, what, NULL);
}

/* The mount identity record, as bento-runtime reads it: accepted or
 * refused, and what is accepted formats back to an equivalent record. */
static void fuzz_identities(const struct oci_config *cfg)
{
        const char *text = oci_config_annotation(cfg, BENTO_MOUNT_IDENTITY_ANNOTATION);
        struct bento_mount_identity *ids = NULL, *again = NULL;
        struct bento_err err = {0};
        char *out = NULL;

        if (!text || bento_mount_identity_parse(text, cfg->n_mounts, &ids, &err) < 0)
                return;
        must(bento_mount_identity_format(ids, cfg->n_mounts, &out) == 0, "identity format", NULL);
        must(bento_mount_identity_parse(out, cfg->n_mounts, &again, &err) == 0, "identity reparse",
             &err);
        for (size_t i = 0; i < cfg->n_mounts; i++)
                must(ids[i].kind == again[i].kind && ids[i].dev == again[i].dev &&
                         ids[i].ino == again[i].ino,
                     "identity round trip", NULL);
        free(ids);
        free(again);
        free(out);
}

static void fuzz_config(const char *text, size_t len)
{
        struct oci_config *cfg = NULL, *again = NULL;
        char *out1 = NULL, *out2 = NULL;
        size_t len1 = 0, len2 = 0;
        struct bento_err err = {0};

        if (oci_config_parse(text, len, &cfg, &err) < 0)
                return;
        /* the lookups must be safe on anything the parser accepted */
        (void) oci_config_annotation(cfg, "org.bento.tier");
        fuzz_identities(cfg);
        for (int t = 0; t < _OCI_NS_MAX; t++)
                (void) oci_config_namespace(cfg, t);
        must(oci_config_write(cfg, &out1, &len1, &err) >= 0, "config write", &err);
        must(oci_config_parse(out1, len1, &again, &err) >= 0, "config re-parse", &err);
        must(oci_config_write(again, &out2, &len2, &err) >= 0, "config re-write", &err);
        same_bytes(out1, len1, out2, len2, "config write is not stable");
        free(out1);
        free(out2);
        oci_config_free(again);
        oci_config_free(cfg);
}

static int emit(const struct bento_json *v, bool pretty, char **ret, size_t *ret_len,
                struct bento_err *err)
{
        struct bento_jsonw w = {0};
        int r = bento_jsonw_init(&w, pretty, err);

        if (r >= 0) {
                bento_jsonw_tree(&w, v);
                r = bento_jsonw_finish(&w, ret, ret_len);
        }
        bento_jsonw_done(&w);
        return r;
}

static void fuzz_tree(const char *text, size_t len)
{
        struct bento_json *v = NULL, *back = NULL, *copy = NULL;
        char *out1 = NULL, *out2 = NULL, *out3 = NULL;
        size_t len1 = 0, len2 = 0, len3 = 0;
        struct bento_err err = {0};

        if (bento_json_parse(text, len, FUZZ_MAX_BYTES, &v, &err) < 0)
                return;
        must(emit(v, true, &out1, &len1, &err) >= 0, "tree emit", &err);
        must(bento_json_parse(out1, len1, SIZE_MAX, &back, &err) >= 0, "tree re-parse", &err);
        must(emit(back, true, &out2, &len2, &err) >= 0, "tree re-emit", &err);
        same_bytes(out1, len1, out2, len2, "tree emit is not stable");
        copy = bento_json_dup(v);
        must(copy != NULL, "tree dup", NULL);
        must(emit(copy, false, &out3, &len3, &err) >= 0, "compact emit", &err);
        free(out1);
        free(out2);
        free(out3);
        bento_json_free(copy);
        bento_json_free(back);
        bento_json_free(v);
}

static void fuzz_record(const char *text, size_t len)
{
        struct bento_record *rec = NULL, *again = NULL;
        char *out1 = NULL, *out2 = NULL, *state = NULL;
        size_t len1 = 0, len2 = 0, slen = 0;
        struct bento_err err = {0};
        struct bento_oci_state st = {0};

        if (bento_record_parse(text, len, &rec, &err) < 0)
                return;
        must(bento_record_write(rec, &out1, &len1, &err) >= 0, "record write", &err);
        must(bento_record_parse(out1, len1, &again, &err) >= 0, "record re-parse", &err);
        must(bento_record_write(again, &out2, &len2, &err) >= 0, "record re-write", &err);
        same_bytes(out1, len1, out2, len2, "record write is not stable");
        st = (struct bento_oci_state){.id = rec->id,
                                      .status = BENTO_STATUS_RUNNING,
                                      .pid = rec->pid,
                                      .bundle = rec->bundle,
                                      .rec = rec};
        must(bento_oci_state_write(&st, false, &state, &slen, &err) >= 0, "oci state", &err);
        free(state);
        free(out1);
        free(out2);
        bento_record_free(again);
        bento_record_free(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size > FUZZ_MAX_BYTES)
                return 0;
        fuzz_config((const char *) data, size);
        fuzz_tree((const char *) data, size);
        fuzz_record((const char *) data, size);
        return 0;
}
