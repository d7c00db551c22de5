/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bounding-set step of rt_caps_apply() (runtime/process/caps.c): it
 * drops without reading the set first while it holds CAP_SETPCAP, and
 * without CAP_SETPCAP it drops only what is still in the set, so that a
 * set that already is what the config asks for is not an error and one
 * that is not fails naming a capability that really cannot go.  Each case
 * runs in a child of its own (the step changes the process's capabilities)
 * and needs root; as another user the cases pass without checking.
 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process/caps.h"
#include "tap.h"

/* The bounding set as a mask, by PR_CAPBSET_READ. */
static uint64_t bounding_now(void)
{
        uint64_t m = 0;

        for (int c = 0; c <= rt_cap_last_supported() && c < 64; c++)
                if (prctl(PR_CAPBSET_READ, (unsigned long) c, 0, 0, 0) == 1)
                        m |= 1ULL << c;
        return m;
}

/* Capabilities named in mask, for the config's bounding list. */
static size_t names_of(uint64_t mask, char **names)
{
        size_t n = 0;

        for (int c = 0; c <= RT_CAP_LAST; c++)
                if (mask & (1ULL << c))
                        names[n++] = (char *) rt_cap_to_name(c);
        return n;
}

/* Drop CAP_SETPCAP from the effective, permitted and inheritable sets (it
 * stays in the bounding set). */
static int lose_setpcap(void)
{
        cleanup_cap cap_t c = cap_get_proc();
        cap_value_t v = CAP_SETPCAP;

        if (!c || cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_CLEAR) < 0 ||
            cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_CLEAR) < 0 ||
            cap_set_flag(c, CAP_INHERITABLE, 1, &v, CAP_CLEAR) < 0)
                return -1;
        return cap_set_proc(c);
}

/* Run rt_caps_apply() keeping `keep` in a child; 0 when it succeeded and
 * left exactly keep & the set before, 1 when it failed with EPERM naming
 * `named`, 2 otherwise.  absent: dropped before (while CAP_SETPCAP is
 * held); setpcap: whether the step may use CAP_SETPCAP. */
static int child_case(uint64_t keep, uint64_t absent, bool setpcap, const char *named)
{
        pid_t pid = fork();
        int status = 0;

        if (pid == 0) {
                char *names[64];
                struct oci_capabilities caps = {0};
                struct bento_err err = {0};
                uint64_t before;
                int r;

                for (int c = 0; c < 64; c++)
                        if ((absent & (1ULL << c)) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
                                _exit(3);
                if (!setpcap && lose_setpcap() < 0)
                        _exit(3);
                before = bounding_now();
                caps.present[OCI_CAP_BOUNDING] = true;
                caps.set[OCI_CAP_BOUNDING] = names;
                caps.n[OCI_CAP_BOUNDING] = names_of(keep, names);
                r = rt_caps_apply(&caps, 0, &err);
                if (r == 0)
                        _exit(bounding_now() == (before & keep) ? 0 : 2);
                _exit(r == -EPERM && named && strstr(err.msg, named) ? 1 : 2);
        }
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
                return -1;
        return WEXITSTATUS(status);
}

#define BIT(c) (1ULL << (c))

TEST(with_setpcap_everything_not_kept_goes)
{
        if (geteuid() != 0)
                return;
        ASSERT_EQ(child_case(BIT(CAP_KILL) | BIT(CAP_CHOWN), 0, true, NULL), 0);
        /* some already gone: dropping them again is no error */
        ASSERT_EQ(child_case(BIT(CAP_KILL), BIT(CAP_SYS_BOOT) | BIT(CAP_MKNOD), true, NULL), 0);
        ASSERT_EQ(child_case(0, 0, true, NULL), 0);
}

TEST(without_setpcap_a_set_already_right_is_no_error)
{
        uint64_t gone = BIT(CAP_CHOWN) | BIT(CAP_MKNOD);

        if (geteuid() != 0)
                return;
        /* keep all the rest: only absent capabilities are "dropped" */
        ASSERT_EQ(child_case(~gone, gone, false, NULL), 0);
}

TEST(without_setpcap_a_present_capability_cannot_go)
{
        uint64_t gone = BIT(CAP_CHOWN) | BIT(CAP_MKNOD);

        if (geteuid() != 0)
                return;
        /* CAP_CHOWN comes first but is gone already (the first drop's EPERM
         * says nothing): the error names CAP_SYS_BOOT, the first one still
         * there that is not kept */
        ASSERT_EQ(child_case(~(gone | BIT(CAP_SYS_BOOT)), gone, false, "dropping CAP_SYS_BOOT"), 1);
}

TAP_MAIN()
