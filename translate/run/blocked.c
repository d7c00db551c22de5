/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Recording guard-blocked destinations in provenance.blocked-hosts after a
 * run (blocked.h).  The egress report was written by a process that
 * talked to the target, so an entry is recorded only when it is a plain
 * hostname or canonical IP literal with a single port that a rule of the
 * manifest allows.  The file is re-read without following a symlink and
 * must hold the bytes that were checked before the run; the edit is then
 * written with the atomic replacement approve uses, onto that same file.
 */
#include "blocked.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "approval/stamp.h"
#include "cleanup.h"
#include "fileio.h"
#include "manifest/write.h"
#include "manifest/netrule.h"
#include "manifest/self.h"

/* "host:port" (IPv6 bracketed) when d may be recorded, else NULL. */
static char *entry_for(const struct manifest *m, const struct run_dest *d)
{
        char why[512];
        char *s = NULL;
        bool v6 = strchr(d->host, ':') != NULL;

        if (d->host[0] == '\0' || d->host[0] == '*' || d->host[0] == '.' ||
            netrule_check_host(d->host, why, sizeof(why)) < 0 || d->port[0] == '\0' ||
            strspn(d->port, "0123456789") != strlen(d->port) ||
            netrule_check_port(d->port, why, sizeof(why)) < 0 ||
            !manifest_network_allows(m, d->host, d->port))
                return NULL;
        if (asprintf(&s, "%s%s%s:%s", v6 ? "[" : "", d->host, v6 ? "]" : "", d->port) < 0)
                return NULL;
        return s;
}

static bool recorded(const struct manifest *m, const char *entry)
{
        for (size_t i = 0; i < m->provenance.n_blocked_hosts; i++)
                if (strcmp(m->provenance.blocked_hosts[i], entry) == 0)
                        return true;
        return false;
}

/* The entries to add; *ret_n = 0 when there is nothing new. */
static char **new_entries(const struct manifest *m, const struct run_egress *e, size_t *ret_n)
{
        char **v = calloc(e->n_blocked + 1, sizeof(*v));
        size_t n = 0;

        *ret_n = 0;
        for (size_t i = 0; v && i < e->n_blocked; i++) {
                char *s = entry_for(m, &e->blocked[i]);

                if (s && !recorded(m, s))
                        v[n++] = s;
                else
                        free(s);
        }
        *ret_n = n;
        return v;
}

/* "a", "b" */
static char *joined(char *const *v, size_t n)
{
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);

        if (!f)
                return NULL;
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s\"%s\"", i ? ", " : "", v[i]);
        if (fclose(f) != 0) {
                free(s);
                return NULL;
        }
        return s;
}

/* What the file must still be for a run to rewrite it: what was checked
 * before the run, at the same place, the caller's own, not shared-
 * writable (the atomic write would take group/world write away).  NULL
 * when it is; *ret_st then describes it. */
static const char *unsafe(const struct trust_loaded *l, struct stat *ret_st)
{
        cleanup_close int fd = -1;
        cleanup_free char *now = NULL;
        struct bento_err ignored = {0};
        size_t len = 0;

        if (!l->trust.real_path)
                return "bento could not establish where the file lives";
        fd = open(l->trust.real_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0 || fstat(fd, ret_st) < 0 || !S_ISREG(ret_st->st_mode))
                return "it was moved or replaced during the run";
        if (ret_st->st_uid != bento_euid())
                return "it belongs to another user, and a run does not rewrite someone "
                       "else's "
                       "file";
        if (ret_st->st_mode & (S_IWGRP | S_IWOTH))
                return "it is group- or world-writable, and rewriting it would change its "
                       "mode";
        if (bento_read_fd(fd, l->trust.real_path, MANIFEST_MAX_BYTES, &now, &len, &ignored) < 0)
                return "it could not be read again";
        if (len != l->len || memcmp(now, l->data, len) != 0)
                return "it changed during the run";
        return NULL;
}

/* The file at the real path is still the one unsafe() read (a rename onto
 * it replaces that directory entry and never follows a link). */
static bool still_there(const char *real, const struct stat *was)
{
        struct stat st;

        return lstat(real, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == was->st_dev &&
               st.st_ino == was->st_ino;
}

static void not_recorded(struct run_blocked *ret, const struct trust_loaded *l, char *const *v,
                         size_t n, const char *why)
{
        cleanup_free char *list = joined(v, n);

        if (asprintf(&ret->note,
                     "the egress guard refused %s although a rule allows %s, but %s "
                     "not recorded "
                     "in provenance.blocked-hosts of %s: %s; add %s there by hand to "
                     "keep the "
                     "record",
                     list ? list : "some destinations", n == 1 ? "it" : "them",
                     n == 1 ? "it was" : "they were", l->m->path, why, n == 1 ? "it" : "them") < 0)
                ret->note = NULL;
}

static int write_edit(const struct trust_loaded *l, const struct stat *st, char *const *v, size_t n,
                      struct run_blocked *ret)
{
        cleanup_manifest struct manifest *m = NULL;
        struct approval_blocked_edit ed = {0};
        struct bento_err err = {0};
        cleanup_free char *list = NULL;
        int r;

        r = manifest_parse(l->data, l->len, l->m->path, &m, NULL, &err);
        if (r >= 0)
                r = approval_blocked_hosts_text(m, l->data, l->len, v, n, &ed, &err);
        if (r == 0)
                return 0;
        if (r > 0 && !still_there(l->trust.real_path, st))
                r = bento_err_setx(&err, EBUSY, "it was moved or replaced during the run");
        if (r > 0)
                r = manifest_write_bytes(l->trust.real_path, ed.text, ed.len, NULL, &err);
        if (r < 0) {
                not_recorded(ret, l, v, n, err.msg);
                approval_blocked_edit_done(&ed);
                return 0;
        }
        list = joined(ed.added, ed.n_added);
        if (asprintf(&ret->note,
                     "recorded %s in provenance.blocked-hosts of %s: the egress "
                     "guard refused %s "
                     "although a rule allows %s. Provenance is outside the "
                     "fingerprint, so the "
                     "approval is unchanged",
                     list ? list : "the refused destinations", l->m->path,
                     ed.n_added == 1 ? "it" : "them", ed.n_added == 1 ? "it" : "them") < 0)
                ret->note = NULL;
        ret->recorded = TAKE_PTR(ed.added);
        ret->n_recorded = ed.n_added;
        approval_blocked_edit_done(&ed);
        return 1;
}

int run_blocked_record(const struct trust_loaded *l, const struct run_egress *e,
                       struct run_blocked *ret)
{
        cleanup_strv char **v = NULL;
        const char *why;
        struct stat st;
        size_t n = 0;

        *ret = (struct run_blocked){0};
        if (!l->m || e->n_blocked == 0)
                return 0;
        v = new_entries(l->m, e, &n);
        if (n == 0)
                return 0;
        why = unsafe(l, &st);
        if (why) {
                not_recorded(ret, l, v, n, why);
                return 0;
        }
        return write_edit(l, &st, v, n, ret);
}

void run_blocked_note(const struct run_blocked *b)
{
        if (b && b->note)
                fprintf(stderr, "[bento] note: %s.\n", b->note);
}

void run_blocked_done(struct run_blocked *b)
{
        strv_free(b->recorded);
        free(b->note);
        *b = (struct run_blocked){0};
}
