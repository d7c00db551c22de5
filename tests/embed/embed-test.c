/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A program built against the installed libbento-embed, the way an
 * embedder builds one (`pkg-config --cflags --libs bento`), driven by
 * tests/integration/test_embed.py.  It prints what the library told it,
 * one fact a line, for the test to compare:
 *
 *   embed-test validate MANIFEST
 *       loaded 0|1, approved 0|1, then "problem LINE:COL MESSAGE" each
 *   embed-test run MANIFEST ALLOW_HOST
 *       runs with a gate admitting ALLOW_HOST only; "asked HOST PORT" per
 *       question, "stdout BYTES" per chunk, "denial WHAT HOST PORT",
 *       then "verdict|refusal|failed EXIT"
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bento/bento.h>

static bool gate(const char *host, const char *port, void *userdata)
{
        printf("asked %s %s\n", host, port);
        fflush(stdout);
        return strcmp(host, (const char *) userdata) == 0;
}

static void observe(const struct bento_event *ev, void *userdata)
{
        static const char *const final[] = {[BENTO_EVENT_VERDICT] = "verdict",
                                            [BENTO_EVENT_REFUSAL] = "refusal",
                                            [BENTO_EVENT_FAILED] = "failed"};

        (void) userdata;
        switch (ev->kind) {
        case BENTO_EVENT_STDOUT:
                printf("stdout %.*s\n", (int) ev->len, ev->data);
                break;
        case BENTO_EVENT_STDERR:
                break;
        case BENTO_EVENT_DENIAL:
                printf("denial %s %s %s\n", ev->what, ev->host, ev->port);
                break;
        default:
                printf("%s %d\n", final[ev->kind], ev->exit_code);
                break;
        }
        fflush(stdout);
}

static int validate(const char *path)
{
        struct bento_validation *v = NULL;
        int r = bento_validate(path, &v);

        if (r < 0) {
                fprintf(stderr, "bento_validate: %s\n", strerror(-r));
                return 1;
        }
        printf("loaded %d\napproved %d\n", v->loaded, v->approved);
        for (size_t i = 0; i < v->n_problems; i++)
                printf("problem %u:%u %s\n", v->problems[i].line, v->problems[i].column,
                       v->problems[i].message);
        bento_validation_free(v);
        return 0;
}

static int run(const char *path, const char *allow)
{
        struct bento_run_options o;
        struct bento_result res;
        int r;

        bento_run_options_init(&o);
        o.gate = gate;
        o.gate_userdata = (void *) allow;
        o.gate_timeout = 5;
        o.observer = observe;
        r = bento_run(path, &o, &res);
        if (r < 0) {
                fprintf(stderr, "bento_run: %s\n", strerror(-r));
                return 1;
        }
        printf("result %d\n", res.exit_code);
        bento_result_done(&res);
        return 0;
}

int main(int argc, char **argv)
{
        printf("version %s\n", bento_embed_version());
        if (argc == 3 && strcmp(argv[1], "validate") == 0)
                return validate(argv[2]);
        if (argc == 4 && strcmp(argv[1], "run") == 0)
                return run(argv[2], argv[3]);
        fprintf(stderr, "usage: embed-test validate MANIFEST | run MANIFEST ALLOW_HOST\n");
        return 2;
}
