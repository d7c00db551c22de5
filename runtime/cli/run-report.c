/* SPDX-License-Identifier: Apache-2.0 */
/* The report of `run --report` (see run-report.h). */
#include "run-report.h"

#include <stdlib.h>
#include <sys/wait.h>

#include "cleanup.h"
#include "fileio.h"
#include "jsonw.h"
#include "container/snapshot.h"

void rt_run_report_take(struct rt_store *store, const char *id, struct rt_run_report *r)
{
        struct rt_snapshot s;
        struct bento_err ignored = {0};

        if (rt_snapshot_take(store, id, false, &s, &ignored) < 0)
                return;
        if (s.rec && rt_snapshot_add_oom_kills(&s, &ignored) >= 0) {
                bento_record_free(r->rec);
                r->rec = TAKE_PTR(s.rec);
        }
        rt_snapshot_close(&s);
}

void rt_run_report_note_oom_kills(struct rt_run_report *r, long n)
{
        const struct bento_json *had = r->rec ? bento_json_get(r->rec->extra, "oomKills") : NULL;

        if (!r->rec || !r->rec->extra || n <= 0 ||
            (had && had->type == BENTO_JSON_NUMBER && had->u.number.fits_i64 &&
             had->u.number.i >= n))
                return;
        (void) bento_json_object_set(r->rec->extra, "oomKills", bento_json_new_int(n));
}

static void put_status(struct bento_jsonw *w, int status)
{
        bento_jsonw_key(w, "status");
        bento_jsonw_open_object(w);
        if (WIFSIGNALED(status))
                bento_jsonw_kint(w, "signaled", WTERMSIG(status));
        else
                bento_jsonw_kint(w, "exited", WIFEXITED(status) ? WEXITSTATUS(status) : 1);
        bento_jsonw_close_object(w);
}

int rt_run_report_write(const char *path, const struct rt_run_report *r, struct bento_err *err)
{
        cleanup_jsonw struct bento_jsonw w = {0};
        cleanup_free char *buf = NULL;
        size_t len = 0;
        int ret;

        if (bento_jsonw_init(&w, true, err) < 0)
                return w.r;
        bento_jsonw_open_object(&w);
        bento_jsonw_kbool(&w, "created", r->created);
        bento_jsonw_kbool(&w, "started", r->started);
        if (r->started && r->status >= 0)
                put_status(&w, r->status);
        if (r->created && r->rec)
                bento_record_put_applied(&w, r->rec);
        bento_jsonw_close_object(&w);
        ret = bento_jsonw_finish(&w, &buf, &len);
        if (ret < 0)
                return ret;
        ret = bento_write_file_atomic(path, buf, len, 0600, err);
        if (ret < 0)
                return bento_err_prefix(err, "--report");
        return 0;
}

void rt_run_report_done(struct rt_run_report *r)
{
        bento_record_free(r->rec);
        r->rec = NULL;
}
