/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared between the files of the config.json codec (oci-config.c,
 * oci-config-linux.c, oci-config-write.c) and state.c, which writes the
 * annotations.  Not for use outside bundle/.  Readers follow jsonr.h's
 * return convention: 1 converted, 0 absent, -errno failed.
 */
#ifndef BENTO_OCI_CONFIG_INTERNAL_H
#define BENTO_OCI_CONFIG_INTERNAL_H

#include "jsonr.h"
#include "jsonw.h"
#include "oci-config.h"

/* obj[key] as an optional string→string object, sorted by key. */
int oci_conv_kv(struct bento_jsonr *r, const struct bento_json *obj, const char *key,
                struct oci_kv **ret, size_t *ret_n);

/* One {containerID, hostID, size} entry of a uidMappings/gidMappings
 * array (bento_jsonr_objects converter): an empty or wrapping range fails. */
int oci_conv_mapping(struct bento_jsonr *r, const struct bento_json *item, void *elem);

/* The "linux" member into cfg->linux_ / cfg->has_linux. */
int oci_conv_linux(struct bento_jsonr *r, const struct bento_json *doc, struct oci_config *cfg);

/* oci-config-attrs.c: process.scheduler, ioPriority and execCPUAffinity
 * of a process object, linux.personality and memoryPolicy of the linux
 * object; their writers (members left out when absent) and frees. */
int oci_conv_process_attrs(struct bento_jsonr *r, const struct bento_json *proc,
                           struct oci_process *p);
int oci_conv_linux_attrs(struct bento_jsonr *r, const struct bento_json *lnx, struct oci_linux *l);
void oci_write_process_attrs(struct bento_jsonw *w, const struct oci_process *p);
void oci_write_linux_attrs(struct bento_jsonw *w, const struct oci_linux *l);
void oci_process_attrs_free(struct oci_process *p);
void oci_linux_attrs_free(struct oci_linux *l);

/* Fill cfg->unmodelled with the JSON paths of known properties the model
 * does not carry.  Returns 1, or a negative errno (allocation) via r. */
int oci_note_unmodelled(struct bento_jsonr *r, const struct bento_json *doc,
                        struct oci_config *cfg);

/* Write key: {sorted kv} (nothing when n == 0 unless always is set); a
 * duplicate or unset key fails the writer. */
void oci_write_kv(struct bento_jsonw *w, const char *key, const struct oci_kv *kv, size_t n,
                  bool always);

#endif
