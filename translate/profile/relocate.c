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

/* Respell *slot; put the absolute form back when the manifest would then
 * not validate. */
static int respell(struct manifest *m, char **slot, const char *dir, const char *home,
                   const char *out)
{
        char *rel = profile_relocatable(*slot, dir, home);
        char *abs = *slot;

        if (!rel)
                return -ENOMEM;
        *slot = rel;
        if (valid(m, out)) {
                free(abs);
                return 0;
        }
        *slot = abs;
        free(rel);
        return 0;
}

static int relocate(struct manifest *m, const char *out, const char *home, struct bento_err *err)
{
        cleanup_free char *dir = profile_out_dir(out);
        int r = 0;

        if (!dir)
                return bento_err_set(err, errno ? errno : ENOMEM, "the manifest's directory");
        r = respell(m, &m->entrypoint, dir, home, out);
        if (r >= 0 && strchr(m->interpreter, '/'))
                r = respell(m, &m->interpreter, dir, home, out);
        for (size_t i = 0; r >= 0 && i < m->n_read; i++)
                r = respell(m, &m->read[i], dir, home, out);
        for (size_t i = 0; r >= 0 && i < m->n_write; i++)
                r = respell(m, &m->write[i], dir, home, out);
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
