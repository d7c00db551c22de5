/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The last steps before a draft is written (docs/profile.md, "Writing the
 * manifest"): provenance, so a reader knows the file was drafted by a
 * machine and when, and the relocatable spellings, so a project directory
 * can move (or be checked out elsewhere) and keep its manifest: "./" under
 * the manifest's directory, "~/" under home, absolute otherwise.  A
 * spelling the manifest checks would refuse stays absolute: the file
 * written must always parse.  Then the atomic write of
 * translate/manifest/write.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cleanup.h"
#include "internal.h"
#include "jsonr.h"
#include "manifest/path.h"
#include "report/text.h"

char *profile_relocatable(const char *path, const char *dir, const char *home)
{
        cleanup_free char *h = NULL;

        if (path[0] != '/')
                return strdup(path);
        if (dir && path_within(dir, path)) {
                size_t n = strcmp(dir, "/") == 0 ? 0 : strlen(dir);

                return path[n] ? text_printf("./%s", path + n + (path[n] == '/')) : strdup(".");
        }
        if (home && home[0] == '/' && (h = path_clean(home)) && strcmp(h, "/") != 0 &&
            path_within(h, path))
                return path[strlen(h)] ? text_printf("~%s", path + strlen(h)) : strdup("~");
        return strdup(path);
}

static bool valid(const struct manifest *m, const char *out)
{
        struct manifest_problems probs = {0};
        struct bento_err why = {0};
        int r = manifest_validate(m, out, &probs, &why);

        manifest_problems_done(&probs);
        return r >= 0;
}

/* The manifest with one grant in place of all of them: enough for the checks
 * on a single spelling, and cheap, so that relocating N grants costs N small
 * checks and not N checks of the whole manifest (20,000 reads took minutes). */
static bool valid_alone(const struct manifest *m, char **slot, bool write)
{
        struct manifest one = *m;

        one.read = write ? NULL : slot;
        one.n_read = write ? 0 : 1;
        one.read_places = NULL;
        one.write = write ? slot : NULL;
        one.n_write = write ? 1 : 0;
        one.write_places = NULL;
        return valid(&one, NULL);
}

/* Respell *slot; keep the absolute form when the spelling alone would not
 * validate.  The absolute form is kept in *abs for the final check. */
static int respell(struct manifest *m, char **slot, bool write, const char *dir, const char *home,
                   char **abs)
{
        char *rel = profile_relocatable(*slot, dir, home);

        if (!rel)
                return -ENOMEM;
        *abs = *slot;
        *slot = rel;
        if (valid_alone(m, slot, write))
                return 0;
        *slot = *abs;
        *abs = NULL;
        free(rel);
        return 0;
}

/* Every slot a draft respells, in one list, so the whole set can be put
 * back at once. */
struct slots {
        char ***v;
        bool *write;
        size_t n;
};

static int slots_collect(struct manifest *m, struct slots *s)
{
        size_t cap = 2 + m->n_read + m->n_write;

        s->v = calloc(cap, sizeof(*s->v));
        s->write = calloc(cap, sizeof(*s->write));
        if (!s->v || !s->write)
                return -ENOMEM;
        s->v[s->n++] = &m->entrypoint;
        if (strchr(m->interpreter, '/'))
                s->v[s->n++] = &m->interpreter;
        for (size_t i = 0; i < m->n_read; i++)
                s->v[s->n++] = &m->read[i];
        for (size_t i = 0; i < m->n_write; i++) {
                s->write[s->n] = true;
                s->v[s->n++] = &m->write[i];
        }
        return 0;
}

/* Respell every slot, then check the whole once: a cross-entry check the
 * single-spelling ones cannot see puts every absolute form back (the draft
 * validated with those, in profile_finish). */
static int relocate(struct manifest *m, const char *out, const char *home, struct bento_err *err)
{
        cleanup_free char *dir = profile_out_dir(out);
        struct slots s = {0};
        char **abs = NULL;
        int r;

        if (!dir)
                return bento_err_set(err, errno ? errno : ENOMEM, "the manifest's directory");
        r = slots_collect(m, &s);
        if (r >= 0 && !(abs = calloc(s.n ? s.n : 1, sizeof(*abs))))
                r = -ENOMEM;
        for (size_t i = 0; r >= 0 && i < s.n; i++)
                r = respell(m, s.v[i], s.write[i], dir, home, &abs[i]);
        if (r >= 0 && !valid(m, out))
                for (size_t i = 0; i < s.n; i++)
                        if (abs[i]) {
                                free(*s.v[i]);
                                *s.v[i] = TAKE_PTR(abs[i]);
                        }
        for (size_t i = 0; abs && i < s.n; i++)
                free(abs[i]);
        free(abs);
        free(s.v);
        free(s.write);
        return r < 0 ? bento_err_set(err, ENOMEM, "relocatable spellings") : 0;
}

static int split_port(const struct profile_dest *d, struct manifest *m, char ***v, size_t *n)
{
        cleanup_free char *hp = NULL;

        if (!manifest_network_allows(m, d->host, d->port))
                return 0;
        hp = profile_host_port(d->host, d->port);
        if (!hp)
                return -ENOMEM;
        for (size_t i = 0; i < *n; i++)
                if (strcmp((*v)[i], hp) == 0)
                        return 0;
        return bento_strv_append(v, n, hp);
}

static int provenance(struct manifest *m, const struct profile_dest *blocked, size_t n_blocked,
                      int64_t now)
{
        struct manifest_provenance *pv = &m->provenance;
        time_t t = now ? (time_t) now : time(NULL);
        struct tm tm;
        char stamp[32];

        if (!gmtime_r(&t, &tm) || strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                return -EINVAL;
        free(pv->generated_by);
        free(pv->generated_at);
        free(pv->approves);
        pv->generated_by = strdup("bento profile");
        pv->generated_at = strdup(stamp);
        pv->approves = strdup("");
        if (!pv->generated_by || !pv->generated_at || !pv->approves)
                return -ENOMEM;
        bento_strv_free_n(pv->blocked_hosts, pv->n_blocked_hosts);
        pv->blocked_hosts = NULL;
        pv->n_blocked_hosts = 0;
        /* Only what a rule of this file allows is a note worth keeping: a
         * refusal nothing here could have caused says nothing about it. */
        for (size_t i = 0; i < n_blocked; i++)
                if (split_port(&blocked[i], m, &pv->blocked_hosts, &pv->n_blocked_hosts) < 0)
                        return -ENOMEM;
        return 0;
}

int profile_finish(struct manifest *m, const struct profile_dest *guard_blocked, size_t n_blocked,
                   const char *out, const char *home, int64_t now, struct bento_err *err)
{
        int r = provenance(m, guard_blocked, n_blocked, now);

        if (r < 0)
                return bento_err_set(err, -r, "provenance");
        if (!valid(m, out)) {
                struct manifest_problems probs = {0};
                cleanup_free char *text = NULL;

                manifest_validate(m, out, &probs, err);
                text = manifest_problems_render(&probs);
                manifest_problems_done(&probs);
                return bento_err_setx(err, EINVAL, "the draft would not validate: %s",
                                      text ? text : err->msg);
        }
        return relocate(m, out, home, err);
}

int profile_write(const char *out, const struct manifest *m, char **ret_warning,
                  struct bento_err *err)
{
        struct manifest_write_info info = {0};

        *ret_warning = NULL;
        if (manifest_write_file(out, m, &info, err) < 0)
                return -err->code;
        if (info.clamped)
                *ret_warning = text_printf("[bento] %s was group/world-writable (%04o); writing "
                                           "it back as %04o - only its owner can change the "
                                           "drafted policy now",
                                           out, (unsigned) info.old_mode, (unsigned) info.new_mode);
        return 0;
}
