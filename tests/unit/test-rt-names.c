/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runtime's small name parsers: signals as `kill` takes them
 * (runtime/base/signals.c), capability names (runtime/process/caps.c) and
 * the checks `create` makes of linux.devices before anything is made
 * (runtime/mount/devices.c).  Each accepts its documented forms and refuses
 * the near misses.
 */
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <string.h>

#include "mount/devices.h"
#include "base/signals.h"
#include "oci-config.h"
#include "process/caps.h"
#include "tap.h"

static struct bento_err err;

static int sig(const char *s)
{
        int n = -1;

        bento_err_clear(&err);
        return rt_signal_parse(s, &n, &err) < 0 ? -1 : n;
}

TEST(signal_names_numbers_and_realtime)
{
        ASSERT_EQ(sig("TERM"), SIGTERM);
        ASSERT_EQ(sig("SIGTERM"), SIGTERM);
        ASSERT_EQ(sig("sigkill"), SIGKILL); /* case is ignored */
        ASSERT_EQ(sig("Hup"), SIGHUP);
        ASSERT_EQ(sig("9"), SIGKILL);
        ASSERT_EQ(sig("IOT"), SIGABRT);
        ASSERT_EQ(sig("RTMIN"), SIGRTMIN);
        ASSERT_EQ(sig("SIGRTMIN+3"), SIGRTMIN + 3);
        ASSERT_EQ(sig("RTMAX"), SIGRTMAX);
        ASSERT_EQ(sig("RTMAX-2"), SIGRTMAX - 2);
        ASSERT_EQ(sig("64"), SIGRTMAX);
}

TEST(signal_near_misses_are_refused)
{
        ASSERT_EQ(sig("0"), -1);
        ASSERT_CONTAINS(err.msg, "invalid signal number '0'");
        ASSERT_EQ(sig("65"), -1);
        ASSERT_EQ(sig("9x"), -1);
        ASSERT_EQ(sig("-9"), -1);
        ASSERT_CONTAINS(err.msg, "unknown signal '-9'");
        ASSERT_EQ(sig("SIG"), -1);
        ASSERT_EQ(sig("TERMX"), -1);
        ASSERT_EQ(sig(""), -1);
        ASSERT_EQ(sig("RTMIN-1"), -1); /* RTMIN counts up, RTMAX down */
        ASSERT_EQ(sig("RTMAX+1"), -1);
        ASSERT_EQ(sig("RTMIN+99"), -1);
        ASSERT_EQ(sig("RTMIN+"), -1);
        ASSERT_CONTAINS(err.msg, "unknown signal 'RTMIN+'");
}

TEST(capability_names)
{
        ASSERT_EQ(rt_cap_from_name("CAP_CHOWN"), CAP_CHOWN);
        ASSERT_EQ(rt_cap_from_name("cap_net_bind_service"), CAP_NET_BIND_SERVICE);
        ASSERT_EQ(rt_cap_from_name("CAP_SYS_ADMIN"), CAP_SYS_ADMIN);
        ASSERT_EQ(rt_cap_from_name("CAP_CHECKPOINT_RESTORE"), CAP_CHECKPOINT_RESTORE);
        ASSERT_EQ(rt_cap_from_name("CHOWN"), -1); /* the prefix is part of the name */
        ASSERT_EQ(rt_cap_from_name("CAP_NO_SUCH_THING"), -1);
        ASSERT_EQ(rt_cap_from_name("CAP_CHOWN "), -1);
        ASSERT_EQ(rt_cap_from_name("0"), -1); /* libcap takes numbers; config.json does not */
        ASSERT_EQ(rt_cap_from_name(""), -1);
        ASSERT_EQ(rt_cap_from_name(NULL), -1);
        ASSERT_STREQ(rt_cap_to_name(CAP_KILL), "CAP_KILL");
        ASSERT_TRUE(rt_cap_to_name(-1) == NULL);
        ASSERT_TRUE(rt_cap_to_name(RT_CAP_LAST + 1) == NULL);
        for (int c = 0; c <= RT_CAP_LAST; c++)
                ASSERT_EQ(rt_cap_from_name(rt_cap_to_name(c)), c);
}

static int devices(const char *list)
{
        static const char head[] = "{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"r\"},"
                                   "\"linux\":{\"devices\":";
        cleanup_oci_config struct oci_config *cfg = NULL;
        char doc[1024];

        snprintf(doc, sizeof(doc), "%s%s}}", head, list);
        bento_err_clear(&err);
        if (oci_config_parse(doc, strlen(doc), &cfg, &err) < 0)
                return -1000 - err.code; /* refused before the runtime's own checks */
        return rt_devices_validate(cfg, &err);
}

TEST(device_list_checks)
{
        ASSERT_OK(devices("[{\"type\":\"c\",\"path\":\"/dev/fuse\",\"major\":10,\"minor\":229},"
                          "{\"type\":\"p\",\"path\":\"/dev/fifo\"},"
                          "{\"type\":\"b\",\"path\":\"/dev/disk/x\",\"major\":4095,"
                          "\"minor\":1048575}]"));
        ASSERT_EQ(devices("[{\"type\":\"c\",\"path\":\"/dev/a\",\"major\":1,\"minor\":3},"
                          "{\"type\":\"u\",\"path\":\"/dev/a\",\"major\":1,\"minor\":5}]"),
                  -EINVAL);
        ASSERT_CONTAINS(err.msg, "linux.devices[1].path: /dev/a is already listed at "
                                 "linux.devices[0]");
        ASSERT_EQ(devices("[{\"type\":\"c\",\"path\":\"/dev/a\",\"major\":4096,\"minor\":0}]"),
                  -EINVAL);
        ASSERT_CONTAINS(err.msg, "linux.devices[0]: device number 4096:0 out of range");
        /* (a missing number is already refused by the config parser) */
        ASSERT_TRUE(devices("[{\"type\":\"b\",\"path\":\"/dev/a\",\"major\":8}]") < 0);
        ASSERT_CONTAINS(err.msg, "minor");
        ASSERT_TRUE(devices("[{\"type\":\"c\",\"path\":\"dev/a\",\"major\":1,\"minor\":1}]") < 0);
        ASSERT_CONTAINS(err.msg, "linux.devices[0].path");
        /* the root names no file to make */
        ASSERT_EQ(devices("[{\"type\":\"c\",\"path\":\"/\",\"major\":1,\"minor\":1}]"), -EINVAL);
        ASSERT_CONTAINS(err.msg, "linux.devices[0].path: must be an absolute path naming a file");
        ASSERT_TRUE(devices("[{\"type\":\"x\",\"path\":\"/dev/a\",\"major\":1,\"minor\":1}]") < 0);
        ASSERT_CONTAINS(err.msg, "type");
}

TAP_MAIN()
