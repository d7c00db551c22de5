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

# A normal user whose own systemd runs without a login (lingering), for
# `bento run` with limits and rootless podman as that user.  Made before pytest: logind mounts
# a tmpfs on /run/user/UID when that systemd starts, and the suite's
# private mount namespace would not see a mount made after it.
vm_user=bento-vm-user
id "$vm_user" >/dev/null 2>&1 || useradd --create-home --user-group --shell /bin/sh "$vm_user"
# subordinate ids for rootless podman, where useradd gave none
touch /etc/subuid /etc/subgid
grep -q "^$vm_user:" /etc/subuid || usermod --add-subuids 200000-265535 "$vm_user"
grep -q "^$vm_user:" /etc/subgid || usermod --add-subgids 200000-265535 "$vm_user"
loginctl enable-linger "$vm_user"
vm_uid=$(id -u "$vm_user")
for _ in $(seq 120); do
        [ -S "/run/user/$vm_uid/bus" ] && break
        sleep 0.5
done
echo "bento-vm: $vm_user (uid $vm_uid): user@$vm_uid.service is $(systemctl is-active "user@$vm_uid.service")," \
        "bus $([ -S "/run/user/$vm_uid/bus" ] && echo present || echo missing)"

export BENTO_BUILD=$work/build BENTO_VM_GUEST=1 BENTO_VM_USER=$vm_user PYTHONDONTWRITEBYTECODE=1
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

group guest-host tests/integration/vm --ignore=tests/integration/vm/test_vm_rootless_podman.py
group cgroups tests/integration/test_cgroups.py tests/integration/test_cgroup_v2_devices.py \
        tests/integration/test_oci_cgroups_more.py
group engines tests/integration/test_engines.py tests/integration/test_engines_rootless.py
# the same with crun, the reference: the tests hold for it too on this host
BENTO_ENGINE_RUNTIME=/usr/bin/crun group engines-crun tests/integration/test_engines.py \
        tests/integration/test_engines_rootless.py
# and rootless podman with runc, for the side-by-side table of docs/engines.md
BENTO_ENGINE_RUNTIME=/usr/sbin/runc group rootless-runc tests/integration/test_engines_rootless.py
group rootless-podman tests/integration/vm/test_vm_rootless_podman.py

sync
echo "bento-vm: done rc=$rc"
