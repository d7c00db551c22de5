#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Install, with apt-get, the Debian 12 packages that building and testing bento
# need, and only those that are missing.  Run as root; as another user it only
# reports what is missing.
set -eu

PACKAGES="build-essential pkg-config clang libyajl-dev libseccomp-dev libcap-dev
libsystemd-dev libyaml-dev libssl-dev busybox-static python3 python3-pytest groff-base man-db
iproute2 util-linux procps tini jq hyperfine bubblewrap time strace git
podman conmon containerd runc crun uidmap slirp4netns firejail zsh fish
libclang-rt-14-dev clang-format clang-tidy cppcheck shellcheck
qemu-system-x86 debootstrap e2fsprogs"

missing=""
for p in $PACKAGES; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
                missing="$missing $p"
        fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
        echo "install-deps: missing Debian packages:$missing" >&2
        echo "install-deps: run 'sudo contrib/install-deps.sh' (or apt-get install them)" >&2
        exit 1
fi

echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends $missing; then
        apt-get update
        apt-get install -y --no-install-recommends $missing
fi
