#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The README's demo: build a busybox bundle and run it under bento-runtime,
# showing what the container sees and what it is denied.
#   contrib/demo.sh BUILD_DIR
set -eu

build=${1:?usage: contrib/demo.sh BUILD_DIR}
rt="$build/bin/bento-runtime"
demo="$build/demo"
bundle="$demo/bundle"

busybox=/bin/busybox
[ -x "$busybox" ] || { echo "demo: $busybox missing (apt-get install busybox-static)" >&2; exit 1; }

rm -rf "$demo"
mkdir -p "$bundle/rootfs/bin" "$bundle/rootfs/proc" "$bundle/rootfs/dev" "$bundle/rootfs/tmp" \
         "$bundle/rootfs/etc" "$bundle/rootfs/sys"
cp "$busybox" "$bundle/rootfs/bin/busybox"
for a in sh echo id hostname ls cat touch grep mount head; do
        ln -s busybox "$bundle/rootfs/bin/$a"
done

cat > "$bundle/config.json" <<'JSON'
{
  "ociVersion": "1.2.0",
  "process": {
    "user": {"uid": 1000, "gid": 1000, "additionalGids": [1000]},
    "args": ["sh", "-c", "echo \"hello from $(hostname): $(id)\"; grep -E '^(CapEff|NoNewPrivs)' /proc/self/status; echo '--- mounts:'; mount | head -n 8; echo '--- denied:'; touch /etc/evil || true; cat /proc/kcore | head -c 1 || true; ls /root 2>&1 || true"],
    "env": ["PATH=/bin"],
    "cwd": "/",
    "noNewPrivileges": true,
    "rlimits": [{"type": "RLIMIT_NOFILE", "soft": 256, "hard": 256}]
  },
  "root": {"path": "rootfs", "readonly": true},
  "hostname": "bento-demo",
  "mounts": [
    {"destination": "/proc", "type": "proc", "source": "proc"},
    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "mode=755"]},
    {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev"]}
  ],
  "linux": {
    "namespaces": [{"type": "pid"}, {"type": "network"}, {"type": "ipc"}, {"type": "uts"},
                   {"type": "mount"}],
    "maskedPaths": ["/proc/kcore", "/proc/keys"],
    "readonlyPaths": ["/proc/sys"]
  }
}
JSON

echo "== bento-runtime run (bundle: $bundle)"
set +e
"$rt" --root "$demo/state" run --bundle "$bundle" bento-demo
code=$?
set -e
echo "== the container exited with status $code; state left behind:"
ls -A "$demo/state"
echo "(empty: run deletes the container when it ends)"
