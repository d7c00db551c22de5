/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux.resources.blockIO (see internal.h): checked, written and
 * read back.  On v1 it goes to the blkio hierarchy: the weights to
 * blkio.weight(_device) where the kernel still has them and to the BFQ
 * scheduler's blkio.bfq.weight(_device) otherwise (as runc picks them),
 * leaf weights to blkio.leaf_weight(_device), the throttles to
 * blkio.throttle.*_device.  On v2 it goes to the io controller: the weight
 * to io.bfq.weight, or to io.weight on its own 1..10000 scale, and the
 * throttles to io.max as rbps/wbps/riops/wiops.  What the kernel does not
 * have is an error naming the file, as runc's is: a container must not run
 * believing its disk I/O is limited when it is not.  The one exception is
 * v2's missing leaf weights, which runc ignores and we ignore aloud.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

static const char *const throttle_key[CG_N_THROTTLE] = {
    "throttleReadBpsDevice", "throttleWriteBpsDevice", "throttleReadIOPSDevice",
    "throttleWriteIOPSDevice"};
static const char *const v1_throttle_file[CG_N_THROTTLE] = {
    "blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
    "blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device"};
static const char *const v2_throttle_key[CG_N_THROTTLE] = {"rbps", "wbps", "riops", "wiops"};

/* ---- checking ---- */

struct pctx {
        const char *where;
        struct bento_err *err;
};

static int bad(const struct pctx *c, const char *path, const char *what)
{
        return bento_err_setx(c->err, EINVAL, "%s.blockIO.%s: %s", c->where, path, what);
}

/* An unsigned member no larger than max; *ret stays 0 when absent or null. */
static int get_u(const struct pctx *c, const struct bento_json *obj, const char *key,
                 const char *path, uint64_t max, uint64_t *ret)
{
        const struct bento_json *v = bento_json_get(obj, key);

        if (!v || v->type == BENTO_JSON_NULL)
                return 0;
        if (v->type != BENTO_JSON_NUMBER || !v->u.number.is_int || v->u.number.is_neg ||
            !v->u.number.fits_u64 || v->u.number.u > max)
                return bad(c, path, "expected an unsigned integer in range");
        *ret = v->u.number.u;
        return 0;
}

/* A weight: 0 (not set) or 10..1000, as the runtime-spec has it. */
static int get_weight(const struct pctx *c, const struct bento_json *obj, const char *key,
                      const char *path, uint64_t *ret)
{
        int r = get_u(c, obj, key, path, UINT64_MAX, ret);

        if (r >= 0 && *ret != 0 && (*ret < 10 || *ret > 1000))
                return bad(c, path, "expected a weight of 10..1000");
        return r;
}

/* One device entry: major and minor required, then the weights (weights)
 * or the rate. */
static int check_device(const struct pctx *c, const struct bento_json *d, const char *arr, size_t i,
                        bool weights)
{
        char path[96];
        uint64_t n = 0;
        int r = 0;

        snprintf(path, sizeof(path), "%s[%zu]", arr, i);
        if (d->type != BENTO_JSON_OBJECT)
                return bad(c, path, "expected an object");
        for (int k = 0; k < 2 && r >= 0; k++) {
                const char *key = k ? "minor" : "major";

                snprintf(path, sizeof(path), "%s[%zu].%s", arr, i, key);
                if (!bento_json_get(d, key))
                        return bad(c, path, "required");
                r = get_u(c, d, key, path, UINT32_MAX, &n);
        }
        for (int k = 0; weights && k < 2 && r >= 0; k++) {
                const char *key = k ? "leafWeight" : "weight";

                snprintf(path, sizeof(path), "%s[%zu].%s", arr, i, key);
                r = get_weight(c, d, key, path, &n);
        }
        snprintf(path, sizeof(path), "%s[%zu].rate", arr, i);
        if (r >= 0 && !weights)
                r = get_u(c, d, "rate", path, UINT64_MAX, &n);
        return r;
}

static int check_devices(const struct pctx *c, const struct bento_json *b, const char *key,
                         bool weights, const struct bento_json **ret)
{
        const struct bento_json *a = bento_json_get(b, key);

        if (!a || a->type == BENTO_JSON_NULL)
                return 0;
        if (a->type != BENTO_JSON_ARRAY)
                return bad(c, key, "expected an array");
        for (size_t i = 0; i < a->u.array.n; i++) {
                int r = check_device(c, a->u.array.items[i], key, i, weights);
                if (r < 0)
                        return r;
        }
        *ret = a->u.array.n ? a : NULL;
        return 0;
}

/* v2 has no leaf weights: drop them (and the per-device ones) with a
 * warning rather than refuse what runc runs. */
static void drop_v2_leaf_weights(const struct pctx *c, struct cg_limits *lim)
{
        const struct bento_json *w = lim->blkio.weights;

        if (lim->blkio.leaf_weight)
                rt_log_warning("%s.blockIO.leafWeight: %" PRIu64
                               " ignored: cgroup v2 has no leaf weights",
                               c->where, lim->blkio.leaf_weight);
        lim->blkio.leaf_weight = 0;
        for (size_t i = 0; w && i < w->u.array.n; i++) {
                const struct bento_json *v = bento_json_get(w->u.array.items[i], "leafWeight");

                if (v && v->type == BENTO_JSON_NUMBER && v->u.number.u)
                        rt_log_warning("%s.blockIO.weightDevice[%zu].leafWeight: %" PRIu64
                                       " ignored: cgroup v2 has no leaf weights",
                                       c->where, i, v->u.number.u);
        }
}

int cg_blkio_parse(const struct bento_json *b, enum cg_mode mode, const char *where,
                   struct cg_limits *lim, struct bento_err *err)
{
        struct pctx c = {.where = where, .err = err};
        int r;

        if (b->type != BENTO_JSON_OBJECT)
                return bento_err_setx(err, EINVAL, "%s.blockIO: expected an object", where);
        r = get_weight(&c, b, "weight", "weight", &lim->blkio.weight);
        if (r >= 0)
                r = get_weight(&c, b, "leafWeight", "leafWeight", &lim->blkio.leaf_weight);
        if (r >= 0)
                r = check_devices(&c, b, "weightDevice", true, &lim->blkio.weights);
        for (int i = 0; r >= 0 && i < CG_N_THROTTLE; i++)
                r = check_devices(&c, b, throttle_key[i], false, &lim->blkio.throttle[i]);
        if (r >= 0 && mode == CG_MODE_V2)
                drop_v2_leaf_weights(&c, lim);
        return r;
}

bool cg_blkio_any(const struct cg_limits *lim)
{
        const struct cg_blkio *b = &lim->blkio;

        for (int i = 0; i < CG_N_THROTTLE; i++)
                if (b->throttle[i])
                        return true;
        return b->weight || b->leaf_weight || b->weights;
}

/* ---- reading back ---- */

static uint64_t num_of(const struct bento_json *obj, const char *key)
{
        const struct bento_json *v = bento_json_get(obj, key);

        return v && v->type == BENTO_JSON_NUMBER ? v->u.number.u : 0;
}

/* The rest of the line of file that starts with "<key> " ("8:0 ",
 * "default "): 1 with it in out, 0 when there is no such line. */
static int line_value(const struct cg_hier *h, const char *file, const char *key, char *out,
                      size_t size)
{
        char buf[8192];
        size_t klen = strlen(key);
        int r = cg_read(h, file, buf, sizeof(buf));

        if (r < 0)
                return r;
        for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
                size_t n = strcspn(p, "\n");

                if (n <= klen || strncmp(p, key, klen) != 0 || p[klen] != ' ')
                        continue;
                snprintf(out, size, "%.*s", (int) (n - klen - 1), p + klen + 1);
                return 1;
        }
        return 0;
}

static int held_error(struct bento_err *err, const char *what, const char *want, const char *held,
                      const struct cg_hier *h, const char *file)
{
        return bento_err_setx(err, ERANGE,
                              "linux.resources blockIO.%s: asked for %s, but the kernel holds %s "
                              "(%s%s/%s); refusing to run with a limit that did not take",
                              what, want, held, h->mnt, h->path, file);
}

/* Write line to file, then check that the line for key reads want
 * (want NULL: that there is no line for key). */
static int write_checked(const struct cg_hier *h, const char *file, const char *line,
                         const char *key, const char *want, const char *what, struct bento_err *err)
{
        char got[256] = "";
        int r = cg_write(h, file, line, err);

        if (r < 0)
                return bento_err_prefix(err, "linux.resources blockIO.%s", what);
        r = line_value(h, file, key, got, sizeof(got));
        if (r < 0)
                return bento_err_set(err, -r, "cannot read back %s", file);
        if (want ? r == 1 && strcmp(got, want) == 0 : r == 0)
                return 0;
        return held_error(err, what, want ? want : "no limit", r ? got : "nothing", h, file);
}

/* 1 when the container's cgroup has file. */
static bool has_file(const struct cg_hier *h, const char *file)
{
        char buf[64];

        return cg_read(h, file, buf, sizeof(buf)) != -ENOENT;
}

/* ---- v1 ---- */

static int v1_missing(const char *what, const char *file, const char *why, struct bento_err *err)
{
        return bento_err_setx(err, ENOTSUP,
                              "linux.resources blockIO.%s: this kernel has no %s (%s); refusing "
                              "to run without it",
                              what, file, why);
}

static int v1_weight(const struct cg_hier *h, const char *file, uint64_t w, const char *what,
                     struct bento_err *err)
{
        char buf[32];
        int64_t got = 0;
        int r;

        snprintf(buf, sizeof(buf), "%" PRIu64, w);
        r = cg_write(h, file, buf, err);
        if (r < 0)
                return bento_err_prefix(err, "linux.resources blockIO.%s", what);
        r = cg_read_num(h, file, &got);
        if (r < 0)
                return bento_err_set(err, -r, "cannot read back %s", file);
        if (got < 0 || (uint64_t) got != w) {
                char held[32];

                snprintf(held, sizeof(held), "%" PRId64, got);
                return held_error(err, what, buf, held, h, file);
        }
        return 0;
}

/* weightDevice[i]: its weight into wfile, its leaf weight into lfile. */
static int v1_device_weights(const struct cg_hier *h, const struct bento_json *d, size_t i,
                             const char *wfile, struct bento_err *err)
{
        static const char *const lfile = "blkio.leaf_weight_device";
        uint64_t w = num_of(d, "weight"), lw = num_of(d, "leafWeight");
        char key[48], line[80], want[24], what[64];
        int r = 0;

        snprintf(key, sizeof(key), "%" PRIu64 ":%" PRIu64, num_of(d, "major"), num_of(d, "minor"));
        snprintf(what, sizeof(what), "weightDevice[%zu]", i);
        if (w) {
                snprintf(line, sizeof(line), "%s %" PRIu64, key, w);
                snprintf(want, sizeof(want), "%" PRIu64, w);
                r = write_checked(h, wfile, line, key, want, what, err);
        }
        if (r >= 0 && lw && !has_file(h, lfile))
                r = v1_missing(what, lfile, "leaf weights went with the CFQ scheduler", err);
        else if (r >= 0 && lw) {
                snprintf(line, sizeof(line), "%s %" PRIu64, key, lw);
                snprintf(want, sizeof(want), "%" PRIu64, lw);
                r = write_checked(h, lfile, line, key, want, what, err);
        }
        return r;
}

/* throttle[t][i] into file, as "maj:min rate" (a rate of 0 removes it). */
static int v1_throttle(const struct cg_hier *h, const struct bento_json *d, size_t i, int t,
                       struct bento_err *err)
{
        uint64_t rate = num_of(d, "rate");
        char key[48], line[80], want[24], what[64];

        snprintf(key, sizeof(key), "%" PRIu64 ":%" PRIu64, num_of(d, "major"), num_of(d, "minor"));
        snprintf(line, sizeof(line), "%s %" PRIu64, key, rate);
        snprintf(want, sizeof(want), "%" PRIu64, rate);
        snprintf(what, sizeof(what), "%s[%zu]", throttle_key[t], i);
        return write_checked(h, v1_throttle_file[t], line, key, rate ? want : NULL, what, err);
}

static int apply_v1(const struct cg_hier *h, const struct cg_blkio *b, struct bento_err *err)
{
        /* blkio.weight went with CFQ (Linux 5.0); BFQ's is what is left,
         * where BFQ is built in */
        bool legacy = has_file(h, "blkio.weight");
        const char *wfile = legacy ? "blkio.weight" : "blkio.bfq.weight";
        const char *dfile = legacy ? "blkio.weight_device" : "blkio.bfq.weight_device";
        int r = 0;

        if ((b->weight || b->weights) && !legacy && !has_file(h, wfile))
                return v1_missing(b->weight ? "weight" : "weightDevice",
                                  "blkio.weight nor blkio.bfq.weight",
                                  "the first went with the CFQ scheduler, the second comes with "
                                  "the BFQ scheduler, which this kernel is built without",
                                  err);
        if (b->weight)
                r = v1_weight(h, wfile, b->weight, "weight", err);
        if (r >= 0 && b->leaf_weight && !has_file(h, "blkio.leaf_weight"))
                r = v1_missing("leafWeight", "blkio.leaf_weight",
                               "leaf weights went with the CFQ scheduler", err);
        else if (r >= 0 && b->leaf_weight)
                r = v1_weight(h, "blkio.leaf_weight", b->leaf_weight, "leafWeight", err);
        for (size_t i = 0; r >= 0 && b->weights && i < b->weights->u.array.n; i++)
                r = v1_device_weights(h, b->weights->u.array.items[i], i, dfile, err);
        for (int t = 0; t < CG_N_THROTTLE; t++)
                for (size_t i = 0; r >= 0 && b->throttle[t] && i < b->throttle[t]->u.array.n; i++)
                        r = v1_throttle(h, b->throttle[t]->u.array.items[i], i, t, err);
        return r;
}

/* ---- v2 ---- */

/* runc's mapping of a blkio weight (10..1000) onto io.weight (1..10000). */
static uint64_t io_weight_of(uint64_t w)
{
        return 1 + (w - 10) * 9999 / 990;
}

static int v2_weights(const struct cg_hier *h, const struct cg_blkio *b, struct bento_err *err)
{
        bool bfq = has_file(h, "io.bfq.weight");
        const char *file = bfq ? "io.bfq.weight" : "io.weight";
        char line[80], want[24], key[48], what[64];
        int r = 0;

        if (b->weight) {
                snprintf(want, sizeof(want), "%" PRIu64, bfq ? b->weight : io_weight_of(b->weight));
                r = write_checked(h, file, want, "default", want, "weight", err);
        }
        for (size_t i = 0; r >= 0 && b->weights && i < b->weights->u.array.n; i++) {
                const struct bento_json *d = b->weights->u.array.items[i];
                uint64_t w = num_of(d, "weight");

                snprintf(what, sizeof(what), "weightDevice[%zu]", i);
                if (!w)
                        continue;
                if (!bfq)
                        return bento_err_setx(err, ENOTSUP,
                                              "linux.resources blockIO.%s: per-device weights "
                                              "need the BFQ scheduler's io.bfq.weight, which "
                                              "this cgroup does not have",
                                              what);
                snprintf(key, sizeof(key), "%" PRIu64 ":%" PRIu64, num_of(d, "major"),
                         num_of(d, "minor"));
                snprintf(line, sizeof(line), "%s %" PRIu64, key, w);
                snprintf(want, sizeof(want), "%" PRIu64, w);
                r = write_checked(h, file, line, key, want, what, err);
        }
        return r;
}

/* One io.max setting; a rate of 0 means no limit ("max"), as on v1. */
static int v2_throttle(const struct cg_hier *h, const struct bento_json *d, size_t i, int t,
                       struct bento_err *err)
{
        uint64_t rate = num_of(d, "rate");
        char key[48], line[96], want[32], got[256] = "", what[64], tok[40];
        const char *p;
        int r;

        snprintf(key, sizeof(key), "%" PRIu64 ":%" PRIu64, num_of(d, "major"), num_of(d, "minor"));
        if (rate)
                snprintf(want, sizeof(want), "%" PRIu64, rate);
        else
                snprintf(want, sizeof(want), "max");
        snprintf(line, sizeof(line), "%s %s=%s", key, v2_throttle_key[t], want);
        snprintf(what, sizeof(what), "%s[%zu]", throttle_key[t], i);
        r = cg_write(h, "io.max", line, err);
        if (r < 0)
                return bento_err_prefix(err, "linux.resources blockIO.%s", what);
        r = line_value(h, "io.max", key, got, sizeof(got));
        if (r < 0)
                return bento_err_set(err, -r, "cannot read back io.max");
        /* a device without any limit has no line at all */
        snprintf(tok, sizeof(tok), "%s=%s", v2_throttle_key[t], want);
        p = r ? strstr(got, tok) : NULL;
        if ((r == 0 && !rate) || (p && (p[strlen(tok)] == ' ' || p[strlen(tok)] == '\0')))
                return 0;
        return held_error(err, what, tok, r ? got : "nothing", h, "io.max");
}

static int apply_v2(const struct cg_hier *h, const struct cg_blkio *b, struct bento_err *err)
{
        int r;

        if (!has_file(h, "io.max") && !has_file(h, "io.weight"))
                return bento_err_setx(err, ENOTSUP,
                                      "linux.resources blockIO: the io controller is not "
                                      "available in the cgroup v2 hierarchy at %s (see "
                                      "cgroup.controllers); refusing to run without it",
                                      h->mnt);
        r = v2_weights(h, b, err);
        for (int t = 0; t < CG_N_THROTTLE; t++)
                for (size_t i = 0; r >= 0 && b->throttle[t] && i < b->throttle[t]->u.array.n; i++)
                        r = v2_throttle(h, b->throttle[t]->u.array.items[i], i, t, err);
        return r;
}

int cg_blkio_apply(const struct cg_hier *h, const struct cg_limits *lim, struct bento_err *err)
{
        return h->v2 ? apply_v2(h, &lim->blkio, err) : apply_v1(h, &lim->blkio, err);
}

/* ---- the record ---- */

/* {"major", "minor", "rate"} appended to arr; rate "max" is no entry. */
static int snap_entry(struct bento_json *arr, unsigned maj, unsigned min, const char *rate)
{
        struct bento_json *o;

        if (!strcmp(rate, "max"))
                return 0;
        o = bento_json_new_object();
        if (!o || bento_json_array_append(arr, o) < 0)
                return -ENOMEM;
        if (bento_json_object_set(o, "major", bento_json_new_int(maj)) < 0 ||
            bento_json_object_set(o, "minor", bento_json_new_int(min)) < 0 ||
            bento_json_object_set(o, "rate", bento_json_new_uint(strtoull(rate, NULL, 10))) < 0)
                return -ENOMEM;
        return 0;
}

/* The throttle arrays from the v1 files ("maj:min rate" lines) or from
 * io.max ("maj:min rbps=N wbps=max ..."). */
static int snap_throttles(const struct cg_hier *h, struct bento_json *arr[CG_N_THROTTLE])
{
        char buf[8192];
        int r = 0;

        for (int t = 0; t < CG_N_THROTTLE && r >= 0; t++) {
                const char *file = h->v2 ? "io.max" : v1_throttle_file[t];
                char *save = NULL;

                if ((h->v2 && t > 0) || cg_read(h, file, buf, sizeof(buf)) < 0)
                        continue;
                for (char *l = strtok_r(buf, "\n", &save); l && r >= 0;
                     l = strtok_r(NULL, "\n", &save)) {
                        unsigned maj, min;
                        char v[4][24];

                        if (!h->v2 && sscanf(l, "%u:%u %23s", &maj, &min, v[0]) == 3)
                                r = snap_entry(arr[t], maj, min, v[0]);
                        else if (h->v2 &&
                                 sscanf(l, "%u:%u rbps=%23s wbps=%23s riops=%23s wiops=%23s", &maj,
                                        &min, v[0], v[1], v[2], v[3]) == 6)
                                for (int k = 0; k < CG_N_THROTTLE && r >= 0; k++)
                                        r = snap_entry(arr[k], maj, min, v[k]);
                }
        }
        return r;
}

static int snap_weight(const struct cg_hier *h, struct bento_json *o)
{
        static const char *const v1[] = {"blkio.weight", "blkio.bfq.weight"};
        static const char *const v2[] = {"io.bfq.weight", "io.weight"};
        char val[32];
        int64_t w;

        for (int i = 0; i < 2; i++) {
                if (!h->v2 && cg_read_num(h, v1[i], &w) >= 0)
                        return bento_json_object_set(o, "weight", bento_json_new_int(w));
                if (h->v2 && line_value(h, v2[i], "default", val, sizeof(val)) == 1)
                        return bento_json_object_set(o, i ? "ioWeight" : "weight",
                                                     bento_json_new_int(atoll(val)));
        }
        return 0;
}

/* Hand the non-empty arrays to o, free the rest. */
static int snap_attach(struct bento_json *o, struct bento_json *arr[CG_N_THROTTLE])
{
        int r = 0;

        for (int t = 0; t < CG_N_THROTTLE; t++) {
                if (r >= 0 && arr[t]->u.array.n)
                        r = bento_json_object_set(o, throttle_key[t], arr[t]);
                else
                        bento_json_free(arr[t]);
                arr[t] = NULL;
        }
        return r;
}

int cg_blkio_snapshot(const struct cg_hier *h, struct bento_json *obj)
{
        struct bento_json *o, *arr[CG_N_THROTTLE] = {NULL};
        int r = 0;

        if (!h || !h->path)
                return 0;
        o = bento_json_new_object();
        for (int t = 0; t < CG_N_THROTTLE; t++)
                if (!(arr[t] = bento_json_new_array()))
                        r = -ENOMEM;
        if (r >= 0 && o)
                r = snap_weight(h, o);
        if (r >= 0 && o)
                r = snap_throttles(h, arr);
        for (int t = 0; t < CG_N_THROTTLE; t++)
                if (!arr[t] && r >= 0)
                        r = -ENOMEM;
        if (r >= 0 && o)
                r = snap_attach(o, arr);
        for (int t = 0; t < CG_N_THROTTLE; t++)
                bento_json_free(arr[t]);
        if (!o || r < 0) {
                bento_json_free(o);
                return -ENOMEM;
        }
        if (o->u.object.n == 0) {
                bento_json_free(o);
                return 0;
        }
        return bento_json_object_set(obj, "blockIO", o);
}
