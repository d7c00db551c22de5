/* SPDX-License-Identifier: Apache-2.0 */
/* JSON objects several reports share (json-parts.h). */
#include <string.h>

#include "json-parts.h"

void report_json_layer(struct bento_jsonw *w, const struct host_report *r, enum bento_layer l)
{
        const struct layer_status *s = host_report_get(r, l);

        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "layer", bento_layer_name(l));
        bento_jsonw_kstring(w, "tier", bento_tier_name(bento_layer_tier(l)));
        bento_jsonw_kstring(w, "state", bento_state_name(s->state));
        if (s->detail[0])
                bento_jsonw_kstring(w, "detail", s->detail);
        if (s->consequences[0])
                bento_jsonw_kstring(w, "consequences", s->consequences);
        bento_jsonw_close_object(w);
}

void report_json_shielded_grant(struct bento_jsonw *w, const struct shield_rule *rule)
{
        bento_jsonw_open_object(w);
        bento_jsonw_kstring(w, "path", rule->literal);
        if (strcmp(rule->literal, rule->path) != 0)
                bento_jsonw_kstring(w, "on_host", rule->path);
        bento_jsonw_kstring(w, "holds", shield_holds_to_string(rule->holds));
        bento_jsonw_close_object(w);
}
