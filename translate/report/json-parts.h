/* SPDX-License-Identifier: Apache-2.0 */
/*
 * JSON objects that more than one verb's --json output carries, written
 * once so that their shapes cannot drift apart: a layer of the host report
 * (doctor §3.6, run §3.2.1) and a read grant that opts a shield out
 * (validate §3.3, run §3.2.1).
 */
#ifndef BENTO_REPORT_JSON_H
#define BENTO_REPORT_JSON_H

#include "host/probe.h"
#include "jsonw.h"
#include "shields/shields.h"

/* Layer l of r: layer, tier, state, and detail / consequences when set. */
void report_json_layer(struct bento_jsonw *w, const struct host_report *r, enum bento_layer l);

/* The shield rule a read grant opts out (§5.10): path as written, on_host
 * when it resolves elsewhere, holds. */
void report_json_shielded_grant(struct bento_jsonw *w, const struct shield_rule *rule);

#endif
