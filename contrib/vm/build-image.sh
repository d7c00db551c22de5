#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Build the Debian 12 guest that `make check-vm` boots: a root file system
# made with debootstrap from the archive apt uses on this host, packed into
# an ext4 disk image, plus the guest kernel and initrd for direct boot.
#
#   contrib/vm/build-image.sh OUTDIR
#
# Writes OUTDIR/root.img, OUTDIR/vmlinuz, OUTDIR/initrd.img and
# OUTDIR/image.stamp.  The stamp holds a hash of this script and of the
# guest files it installs: while it matches, nothing is rebuilt, so only
# the first run pays for the download.  Run as root (debootstrap, chroot).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-image.sh OUTDIR}
suite=bookworm
size=${BENTO_VM_IMAGE_SIZE:-4G}

# What the guest checks need: systemd as PID 1 with a system bus for the
# --systemd-cgroup driver, the stock kernel, AppArmor's parser, the test
# harness (python3, pytest, busybox-static for the container root), and
# the reference runtimes and the engines that the engine-facing tests
# import; for a normal user's systemd (bento run's limits, rootless podman's
# delegated cgroup): the user bus and logind's lingering sessions; and
# rootless podman's network.
packages="systemd systemd-sysv dbus dbus-user-session libpam-systemd udev kmod
linux-image-amd64 initramfs-tools apparmor python3 python3-pytest busybox-static
procps iproute2 uidmap slirp4netns podman conmon containerd crun runc tini"

stamp_of() {
        cat "$0" "$here"/guest/* | sha256sum | cut -d' ' -f1
}

if [ -f "$out/image.stamp" ] && [ "$(cat "$out/image.stamp")" = "$(stamp_of)" ] &&
        [ -f "$out/root.img" ] && [ -f "$out/vmlinuz" ] && [ -f "$out/initrd.img" ]; then
        echo "vm: guest image is up to date ($out/root.img)"
        exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
        echo "vm: building the guest image needs root (debootstrap, chroot)" >&2
        exit 1
fi

# The first archive that serves the suite itself (not -updates or
# -security), from either sources format; BENTO_VM_MIRROR overrides it.
mirror_from_apt() {
        local f
        for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
                [ -f "$f" ] || continue
                awk -v suite="$suite" '
                        /^deb[ \t]/ { sub(/\[[^]]*\][ \t]*/, ""); if ($3 == suite) { print $2; exit } }
                        /^URIs:/    { uris = $2 }
                        /^Suites:/  { for (i = 2; i <= NF; i++) if ($i == suite) { print uris; exit } }
                        /^$/        { uris = "" }' "$f"
        done | head -n1
}
mirror=${BENTO_VM_MIRROR:-$(mirror_from_apt)}
if [ -z "$mirror" ]; then
        echo "vm: no apt source for $suite found in /etc/apt; set BENTO_VM_MIRROR" >&2
        exit 1
fi

mkdir -p "$out"
root="$out/rootfs"
# A half-built tree from an interrupted run is never reused.
if mountpoint -q "$root/proc"; then umount "$root/proc"; fi
rm -rf --one-file-system "$root" "$out/root.img.tmp"
mkdir -p "$root"

cleanup() {
        if mountpoint -q "$root/proc"; then umount "$root/proc"; fi
        rm -rf --one-file-system "$root"
}
trap cleanup EXIT

echo "vm: debootstrap $suite from $mirror"
debootstrap --variant=minbase --include=ca-certificates "$suite" "$root" "$mirror"

mount -t proc proc "$root/proc"
# No service starts inside the chroot while packages install.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
# shellcheck disable=SC2086 # the package list is split on purpose
chroot "$root" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends $packages
chroot "$root" apt-get clean
rm -f "$root/usr/sbin/policy-rc.d"
umount "$root/proc"

echo bento-vm >"$root/etc/hostname"
printf '/dev/vda / ext4 rw,relatime 0 0\n' >"$root/etc/fstab"
mkdir -p "$root/mnt/bento" "$root/mnt/out"
install -m 644 "$here/guest/bento-vm-check.service" "$root/etc/systemd/system/"
ln -sf /etc/systemd/system/bento-vm-check.service \
        "$root/etc/systemd/system/multi-user.target.wants/bento-vm-check.service"
# The console belongs to the check's output, and timers that would wake
# apt or man-db only slow an emulated boot.
for unit in serial-getty@ttyS0.service getty@tty1.service apt-daily.timer \
        apt-daily-upgrade.timer man-db.timer e2scrub_all.timer fstrim.timer; do
        ln -sf /dev/null "$root/etc/systemd/system/$unit"
done

# The one kernel the image has, and the initrd its package made for it.
kernels=("$root"/boot/vmlinuz-*)
if [ "${#kernels[@]}" -ne 1 ] || [ ! -f "${kernels[0]}" ]; then
        echo "vm: expected one kernel in $root/boot, found: ${kernels[*]}" >&2
        exit 1
fi
cp "${kernels[0]}" "$out/vmlinuz"
cp "$root/boot/initrd.img-${kernels[0]#"$root"/boot/vmlinuz-}" "$out/initrd.img"
echo "vm: packing $root into an ext4 image of $size"
mkfs.ext4 -q -F -L bento-vm -d "$root" "$out/root.img.tmp" "$size"
mv "$out/root.img.tmp" "$out/root.img"
stamp_of >"$out/image.stamp"
echo "vm: guest image ready ($out/root.img)"
