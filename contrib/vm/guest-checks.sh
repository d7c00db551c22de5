#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Runs inside the check-vm guest as root (bento-vm-check.service), with the
# host's tree read-only at /mnt/bento and the results folder at /mnt/out.
# Prints what kind of host this is, then runs the guest's pytest groups,
# each bounded; the log goes to the console and to /mnt/out/guest.log, and
# its last line "bento-vm: done rc=N" is what the host waits for.
set -uo pipefail

src=/mnt/bento
out=/mnt/out
# Not under /root: the harness puts a tmpfs over the home it runs in when
# that has no .local yet (harness.isolate_journal_key).
work=/srv/bento
exec > >(tee "$out/guest.log") 2>&1

uptime_s() { cut -d' ' -f1 /proc/uptime; }
echo "bento-vm: checks start at guest uptime $(uptime_s)s"
echo "bento-vm: kernel $(uname -r), PID 1 is $(cat /proc/1/comm)"
echo "bento-vm: cgroup.controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
echo "bento-vm: lsm: $(cat /sys/kernel/security/lsm)"
echo "bento-vm: system is $(systemctl is-system-running --wait)"

# A private copy (contrib/ holds the engine configuration that the engine
# fixtures read): the harness and pytest may write beside the tests, and
# the host's tree stays read-only.
rm -rf "$work" && mkdir -p "$work"
tar -C "$src" --exclude=build/obj --exclude=build/vm --exclude=build/debug -cf - build tests contrib |
        tar -C "$work" -xf -
cd "$work" || exit 1

export BENTO_BUILD=$work/build BENTO_VM_GUEST=1 PYTHONDONTWRITEBYTECODE=1
# One group's budget in seconds, from the host (kernel command line), so
# that the whole tier stays inside the host's timeout.
budget=$(sed -n 's/.*bento_vm.budget=\([0-9]*\).*/\1/p' /proc/cmdline)
budget=${budget:-240}

rc=0
group() {
        local name=$1 r
        shift
        echo "bento-vm: group $name start at $(uptime_s)s"
        timeout -k 10 "$budget" python3 -m pytest -q -ra -p no:cacheprovider "$@"
        r=$?
        [ "$r" -eq 124 ] && echo "bento-vm: group $name timed out after ${budget}s"
        echo "bento-vm: group $name rc=$r at $(uptime_s)s"
        [ "$r" -eq 0 ] || rc=1
}

group guest-host tests/integration/vm
group cgroups tests/integration/test_cgroups.py tests/integration/test_cgroup_v2_devices.py \
        tests/integration/test_oci_cgroups_more.py

sync
echo "bento-vm: done rc=$rc"
