/* SPDX-License-Identifier: Apache-2.0 */
/* The container state read on stdin (see hookstate.h). */
#include "hookstate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "state.h"

/* as large as a state bento-runtime writes (bundle/state.h) */
#define STATE_MAX BENTO_STATE_MAX_BYTES

static char *string_member(const struct bento_json *obj, const char *key)
{
        const struct bento_json *v = bento_json_get(obj, key);

        if (!v || v->type != BENTO_JSON_STRING)
                return NULL;
        return strdup(v->u.string.s);
}

int egress_hook_state_parse(const char *data, size_t len, const char *annotation,
                            struct egress_hook_state *ret, struct bento_err *err)
{
        cleanup_bento_json struct bento_json *root = NULL;
        const struct bento_json *pid, *ann;
        int r;

        memset(ret, 0, sizeof(*ret));
        r = bento_json_parse(data, len, STATE_MAX, &root, err);
        if (r < 0)
                return bento_err_prefix(err, "the container state on stdin");
        if (root->type != BENTO_JSON_OBJECT)
                return bento_err_setx(err, EINVAL,
                                      "the container state on stdin is not a JSON object: run "
                                      "bento-egress as an OCI hook");
        pid = bento_json_get(root, "pid");
        if (!pid || pid->type != BENTO_JSON_NUMBER || !pid->u.number.is_int ||
            !pid->u.number.fits_i64 || pid->u.number.i <= 0 || pid->u.number.i > 0x3fffffff)
                return bento_err_setx(err, EINVAL,
                                      "the container state on stdin has no usable \"pid\": attach "
                                      "bento-egress as a createRuntime or prestart hook, when the "
                                      "container process exists");
        ret->pid = (pid_t) pid->u.number.i;
        ret->id = string_member(root, "id");
        ann = bento_json_get(root, "annotations");
        if (annotation && ann && ann->type == BENTO_JSON_OBJECT)
                ret->annotation = string_member(ann, annotation);
        return 0;
}

void egress_hook_state_done(struct egress_hook_state *st)
{
        free(st->id);
        free(st->annotation);
        st->id = st->annotation = NULL;
}
