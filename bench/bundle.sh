#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Make the bundles every runtime in the benchmark runs:
#   DIR/rootfs                 Debian's static busybox, read-only for everyone
#   DIR/plain/config.json      /bin/true in new pid, net, ipc, uts and mount
#                              namespaces; /proc; a tmpfs on /dev; no cgroup limits
#   DIR/limits/config.json     the same plus a memory and a pids limit
# The config is written here by hand (not `crun spec`) so that it holds only
# what the bubblewrap command line in run.sh can mirror.
#   bench/bundle.sh DIR
set -eu

dir=${1:?usage: bench/bundle.sh DIR}
busybox=${BUSYBOX:-/bin/busybox}
[ -x "$busybox" ] || { echo "bundle: $busybox missing (apt-get install busybox-static)" >&2; exit 1; }

rootfs=$dir/rootfs
rm -rf "$rootfs" "$dir/plain" "$dir/limits"
mkdir -p "$rootfs/bin" "$rootfs/proc" "$rootfs/dev" "$rootfs/tmp" "$rootfs/etc" \
         "$dir/plain" "$dir/limits"
cp "$busybox" "$rootfs/bin/busybox"
for applet in sh true echo cat ls; do
        ln -s busybox "$rootfs/bin/$applet"
done
echo 'root:x:0:0:root:/:/bin/sh' > "$rootfs/etc/passwd"
echo 'root:x:0:' > "$rootfs/etc/group"

# $1: the text of linux.resources, or nothing
write_config() {
        resources=${2:+,
    \"resources\": $2}
        cat > "$1" <<JSON
{
  "ociVersion": "1.0.2",
  "process": {
    "terminal": false,
    "user": {"uid": 0, "gid": 0},
    "args": ["/bin/true"],
    "env": ["PATH=/bin"],
    "cwd": "/",
    "capabilities": {
      "bounding": ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"],
      "effective": ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"],
      "permitted": ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]
    },
    "noNewPrivileges": true
  },
  "root": {"path": "$(cd "$rootfs" && pwd -P)", "readonly": true},
  "mounts": [
    {"destination": "/proc", "type": "proc", "source": "proc"},
    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
     "options": ["nosuid", "strictatime", "mode=755", "size=1024k"]}
  ],
  "linux": {
    "namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "ipc"},
                   {"type": "uts"}, {"type": "mount"}]$resources
  }
}
JSON
}

write_config "$dir/plain/config.json" ""
write_config "$dir/limits/config.json" \
        '{"memory": {"limit": 67108864}, "pids": {"limit": 64}}'
