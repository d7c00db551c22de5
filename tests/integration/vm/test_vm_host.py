# SPDX-License-Identifier: Apache-2.0
"""The guest is the host the other guest checks claim to test: systemd is
process 1 and came up, only the unified cgroup hierarchy is mounted and it
offers the limit controllers, and AppArmor is an active LSM."""

import subprocess


def test_pid1_is_systemd_and_the_system_came_up():
    with open("/proc/1/comm") as f:
        assert f.read().strip() == "systemd"
    state = subprocess.run(["systemctl", "is-system-running", "--wait"], capture_output=True, text=True,
                           timeout=300).stdout.strip()
    failed = subprocess.run(["systemctl", "--failed", "--no-legend"], capture_output=True, text=True).stdout
    assert state == "running", "system is %s; failed units:\n%s" % (state, failed)


def test_only_cgroup2_is_mounted_with_the_limit_controllers():
    with open("/proc/self/mountinfo") as f:
        types = [line.split(" - ", 1)[1].split(" ")[0] for line in f]
    assert "cgroup2" in types and "cgroup" not in types, types
    with open("/sys/fs/cgroup/cgroup.controllers") as f:
        ctrls = set(f.read().split())
    assert {"cpu", "memory", "pids", "io", "cpuset"} <= ctrls, ctrls


def test_apparmor_is_an_active_lsm():
    with open("/sys/kernel/security/lsm") as f:
        assert "apparmor" in f.read().split(",")
    with open("/sys/module/apparmor/parameters/enabled") as f:
        assert f.read().strip() == "Y"
