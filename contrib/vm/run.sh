#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `make check-vm`: build (or reuse) the Debian 12 guest, boot it under
# qemu with software emulation, let it run contrib/vm/guest-checks.sh
# against this tree, and fail unless it reports that every check passed.
#
#   contrib/vm/run.sh REPO_DIR BUILD_DIR
#
# KVM is not used: on this kind of machine a guest hangs under it.  The
# whole run is bounded by BENTO_VM_TIMEOUT seconds, after which qemu is
# killed and the tier fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "${1:?usage: run.sh REPO_DIR BUILD_DIR}" && pwd)
build=$(cd "${2:?usage: run.sh REPO_DIR BUILD_DIR}" && pwd)
vm=$build/vm
timeout_s=${BENTO_VM_TIMEOUT:-1800}
budget=${BENTO_VM_GROUP_BUDGET:-480}

for f in bin/bento-runtime bin/bento-systemd-scope tests/bento-probe; do
        if [ ! -x "$build/$f" ]; then
                echo "vm: $build/$f is missing; build it first (make all)" >&2
                exit 1
        fi
done

t0=$(date +%s)
"$here/build-image.sh" "$vm"
t1=$(date +%s)
echo "vm: image ready in $((t1 - t0)) s"

out=$vm/out
cmdline="root=/dev/vda rw console=ttyS0 quiet systemd.unified_cgroup_hierarchy=1"
cmdline+=" apparmor=1 security=apparmor systemd.show_status=1 bento_vm.budget=$budget"

# One boot.  -snapshot: the guest's writes go to a throw-away overlay, so
# every run boots the same cached image.
boot() {
        rm -rf "$out" && mkdir -p "$out"
        rc=0
        timeout -k 5 "$timeout_s" qemu-system-x86_64 -accel tcg -smp 2 -m 1024 \
                -display none -no-reboot -snapshot -nic none \
                -kernel "$vm/vmlinuz" -initrd "$vm/initrd.img" -append "$cmdline" \
                -drive "file=$vm/root.img,format=raw,if=virtio" \
                -virtfs "local,path=$repo,mount_tag=bento,security_model=none,readonly=on" \
                -virtfs "local,path=$out,mount_tag=out,security_model=none" \
                -serial "file:$out/console.log" </dev/null || rc=$?
        t2=$(date +%s)
        echo "vm: qemu ran $((t2 - t1)) s (exit $rc)"
}

# qemu's software emulation itself crashes now and then (SIGSEGV before the
# guest's first message, about one boot in six here): a boot after which
# the guest reported nothing at all, and qemu did not time out, is tried
# once more.  A guest that ran its checks is never booted again.
boot
if [ ! -s "$out/guest.log" ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]; then
        echo "vm: the guest reported nothing and qemu exited $rc; booting once more" >&2
        tail -n 5 "$out/console.log" >&2 || true
        t1=$(date +%s)
        boot
fi

if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "vm: FAIL: the guest did not finish within ${timeout_s} s; qemu was killed" >&2
fi
if [ ! -s "$out/guest.log" ]; then
        echo "vm: FAIL: the guest reported nothing (it did not boot, or its checks never ran)" >&2
        echo "vm: last console lines ($out/console.log):" >&2
        tail -n 40 "$out/console.log" >&2 || true
        exit 1
fi
cat "$out/guest.log"
result=$(sed -n 's/^bento-vm: done rc=\([0-9]*\)$/\1/p' "$out/guest.log")
if [ -z "$result" ]; then
        echo "vm: FAIL: the guest's checks did not finish (no result line in $out/guest.log)" >&2
        exit 1
fi
if [ "$result" -ne 0 ]; then
        echo "vm: FAIL: checks failed in the guest (log: $out/guest.log)" >&2
        exit 1
fi
echo "vm: all guest checks passed"
