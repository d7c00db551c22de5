#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Run a command where every runtime of the benchmark works on this kind of
# host, without changing anything the rest of the machine sees:
#
#  - a private mount namespace (nothing mounted here propagates out);
#  - in it, when /sys/fs/cgroup/unified is a cgroup2 mount next to v1
#    hierarchies ("hybrid"), a new tmpfs on /sys/fs/cgroup with only the v1
#    hierarchies mounted again.  They are the same hierarchies, so cgroups
#    made here are the host's, but crun 1.8 no longer sees a cgroup2 mount
#    holding a controller and stops refusing the host as "hybrid".  (Only
#    unmounting unified is not enough: crun would then write into the bare
#    directory left in the host's tmpfs.)
#  - tini -s as a child subreaper, so detached container inits are reaped at
#    once (this machine's PID 1 reaps orphans late, and a zombie init still
#    counts as running).
#
#   bench/sandbox.sh CMD [ARG...]
set -eu

if [ "${BENCH_SANDBOX:-}" = mount-ns ]; then
        if [ "$(stat -fc %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
                # mount point and super options ("rw,memory") of every v1 hierarchy
                hierarchies=$(awk '{
                        for (i = 7; i <= NF; i++) if ($i == "-") break
                        if ($(i + 1) == "cgroup" && index($5, "/sys/fs/cgroup/") == 1)
                                print $5, $(i + 3)
                }' /proc/self/mountinfo)
                # Unmount first rather than mount over: a covered mount still
                # shows in /proc/self/mountinfo, and a runtime that reads it
                # would pick the hidden cgroup2 mount.
                umount -R /sys/fs/cgroup
                mount -t tmpfs -o mode=0755,nosuid,nodev,noexec bench-cgroup-view /sys/fs/cgroup
                printf '%s\n' "$hierarchies" | while read -r point opts; do
                        mkdir -p "$point"
                        mount -t cgroup -o "${opts#rw,}" cgroup "$point"
                done
        fi
        BENCH_SANDBOX=inside exec tini -s -- "$@"
fi
[ "$(id -u)" -eq 0 ] || { echo "sandbox: must run as root" >&2; exit 1; }
BENCH_SANDBOX=mount-ns exec unshare --mount --propagation private -- "$0" "$@"
