/* SPDX-License-Identifier: Apache-2.0 */
/*
 * JSON objects that more than one verb's --json output carries, written
 * once so that their shapes cannot drift apart: a layer of the host report
 * (doctor docs/doctor.md, run docs/cli/bento-run.md, "JSON OUTPUT") and a read grant that opts a
 * shield out (validate docs/validate.md, run docs/cli/bento-run.md, "JSON OUTPUT").
 */
#ifndef BENTO_REPORT_JSON_H
#define BENTO_REPORT_JSON_H

#include "host/probe.h"
#include "jsonw.h"
#include "shields/shields.h"

/* Layer l of r: layer, tier, state, and detail / consequences when set. */
void report_json_layer(struct bento_jsonw *w, const struct host_report *r, enum bento_layer l);

/* The shield rule a read grant opts out (docs/manifest.md, "CREDENTIAL SHIELDS"): path as written,
 * on_host when it resolves elsewhere, holds. */
void report_json_shielded_grant(struct bento_jsonw *w, const struct shield_rule *rule);

#endif
