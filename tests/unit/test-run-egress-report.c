/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for translate/run/egress.c: the egress hook's decision report
 * read back into the per-kind lists a run reports (docs/egress.md).  A
 * network gate's "gate-deny" lands in gate_denied, deduplicated and sorted,
 * and in no other list; the other kinds keep their own lists; a line that
 * is not JSON is skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/run.h"
#include "tap.h"

static char dir[64];
static char path[96];

static void read_text(const char *text, struct run_egress *e)
{
        struct bento_err err = {0};
        FILE *f;

        snprintf(dir, sizeof(dir), "/tmp/bento-run-egress-XXXXXX");
        if (!mkdtemp(dir))
                abort();
        snprintf(path, sizeof(path), "%s/egress.jsonl", dir);
        f = fopen(path, "w");
        if (!f)
                abort();
        fputs(text, f);
        fclose(f);
        if (run_egress_read(path, e, &err) < 0)
                abort();
        unlink(path);
        rmdir(dir);
}

#define DECISION(d, h, p)                                                                          \
        "{\"event\":\"decision\",\"decision\":\"" d "\",\"host\":\"" h "\",\"port\":\"" p "\"}\n"

TEST(gate_denials_are_their_own_sorted_list)
{
        struct run_egress e;

        read_text(DECISION("gate-deny", "zeta.example", "443") DECISION("deny", "b.example", "80")
                      DECISION("gate-deny", "alpha.example",
                               "443") "not json\n" DECISION("gate-deny", "zeta.example", "443")
                          DECISION("allow", "ok.example", "443"),
                  &e);
        ASSERT_EQ(e.n_gate_denied, (size_t) 2);
        ASSERT_STREQ(e.gate_denied[0].host, "alpha.example");
        ASSERT_STREQ(e.gate_denied[1].host, "zeta.example");
        ASSERT_STREQ(e.gate_denied[1].port, "443");
        /* the allowlist's own denial stays in its list, not the gate's */
        ASSERT_EQ(e.n_denied, (size_t) 1);
        ASSERT_STREQ(e.denied[0].host, "b.example");
        ASSERT_EQ(e.connections, 5L);
        run_egress_done(&e);
}

TEST(no_gate_decision_leaves_the_list_empty)
{
        struct run_egress e;

        read_text(DECISION("deny", "b.example", "80") DECISION("untunneled", "c.example", "80"),
                  &e);
        ASSERT_EQ(e.n_gate_denied, (size_t) 0);
        ASSERT_TRUE(e.gate_denied == NULL);
        ASSERT_EQ(e.n_untunneled, (size_t) 1);
        run_egress_done(&e);
}

TAP_MAIN()
