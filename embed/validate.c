/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bento_validate(): `bento validate --json PATH`.  A manifest that loads
 * gives the JSON document on stdout; one that does not gives nothing there
 * and its problems on stderr, one per line as "PATH:LINE:COLUMN: message"
 * (bento(1)), which are taken back apart here by the path the library
 * passed, so a colon in a path or a message cannot shift the fields.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "internal.h"
#include "json.h"

static int add_problem(struct bento_validation *v, const char *file, unsigned line, unsigned col,
                       const char *msg, size_t msg_len)
{
        struct bento_problem *np = realloc(v->problems, (v->n_problems + 1) * sizeof(*v->problems));

        if (!np)
                return -ENOMEM;
        v->problems = np;
        np[v->n_problems] = (struct bento_problem){
            .file = strdup(file), .line = line, .column = col, .message = strndup(msg, msg_len)};
        if (!np[v->n_problems].file || !np[v->n_problems].message) {
                free(np[v->n_problems].file);
                free(np[v->n_problems].message);
                return -ENOMEM;
        }
        v->n_problems++;
        return 0;
}

/* "PATH:L:C: msg" after any "bento: " or indentation: line and column, or
 * false when the line does not name a place in path. */
static bool place(const char *s, const char *path, unsigned *line, unsigned *col, const char **msg)
{
        char *end;
        unsigned long l, c;

        s += strspn(s, " ");
        if (strncmp(s, "bento: ", 7) == 0)
                s += 7;
        if (strncmp(s, path, strlen(path)) != 0 || s[strlen(path)] != ':')
                return false;
        s += strlen(path) + 1;
        l = strtoul(s, &end, 10);
        if (end == s || *end != ':')
                return false;
        s = end + 1;
        c = strtoul(s, &end, 10);
        if (end == s || strncmp(end, ": ", 2) != 0)
                return false;
        *line = (unsigned) l;
        *col = (unsigned) c;
        *msg = end + 2;
        return true;
}

/* Every placed problem on stderr; when none is placed, stderr as one. */
static int problems_from(struct bento_validation *v, const char *path, const char *err)
{
        int r = 0;

        for (const char *s = err; *s && r >= 0;) {
                const char *nl = strchr(s, '\n'), *msg;
                size_t len = nl ? (size_t) (nl - s) : strlen(s);
                cleanup_free char *one = strndup(s, len);
                unsigned l, c;

                if (!one)
                        return -ENOMEM;
                if (place(one, path, &l, &c, &msg))
                        r = add_problem(v, path, l, c, msg, strlen(msg));
                s += len + (nl ? 1 : 0);
        }
        if (r >= 0 && v->n_problems == 0) {
                size_t len = strlen(err);
                const char *msg = strncmp(err, "bento: ", 7) == 0 ? err + 7 : err;

                while (len > 0 && err[len - 1] == '\n')
                        len--;
                r = add_problem(v, path, 0, 0, msg, len - (size_t) (msg - err));
        }
        return r;
}

/* Takes out (the document), also on failure. */
static int from_json(struct bento_validation *v, char *out, size_t len)
{
        struct bento_err ignored = {0};
        struct bento_json *j = NULL, *a, *run;

        if (bento_json_parse(out, len, EMBED_OUTPUT_MAX, &j, &ignored) < 0 ||
            j->type != BENTO_JSON_OBJECT) {
                bento_json_free(j);
                free(out);
                return -EPROTO;
        }
        a = bento_json_get(j, "approval");
        run = bento_json_get(j, "runnable");
        v->loaded = true;
        v->approval = strdup(a && a->type == BENTO_JSON_STRING ? a->u.string.s : "unapproved");
        v->approved = v->approval && strcmp(v->approval, "current") == 0;
        v->runnable = run && run->type == BENTO_JSON_BOOL && run->u.boolean;
        v->json = out;
        bento_json_free(j);
        return v->approval ? 0 : -ENOMEM;
}

int bento_validate(const char *path, struct bento_validation **ret)
{
        const char *args[] = {"validate", "--json", path, NULL};
        struct bento_validation *v = calloc(1, sizeof(*v));
        cleanup_free char *out = NULL, *err = NULL;
        struct embed_child c;
        size_t out_len, err_len;
        int r, status;

        if (!v)
                return -ENOMEM;
        r = embed_spawn(NULL, args, true, &c);
        if (r < 0) {
                free(v);
                return r;
        }
        r = embed_read_both(&c, &out, &out_len, &err, &err_len);
        close(c.out);
        close(c.err);
        status = embed_wait(c.pid);
        if (r >= 0 && status < 0)
                r = status;
        if (r >= 0 && out_len > 0)
                r = from_json(v, TAKE_PTR(out), out_len);
        else if (r >= 0)
                r = problems_from(v, path, err);
        if (r < 0) {
                bento_validation_free(v);
                return r;
        }
        *ret = v;
        return 0;
}

void bento_validation_free(struct bento_validation *v)
{
        if (!v)
                return;
        for (size_t i = 0; i < v->n_problems; i++) {
                free(v->problems[i].file);
                free(v->problems[i].message);
        }
        free(v->problems);
        free(v->approval);
        free(v->json);
        free(v);
}
