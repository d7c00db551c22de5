# SPDX-License-Identifier: Apache-2.0
"""Private mounts for the engine tests.

The suite already runs in its own mount namespace with private propagation
(conftest.py); podman, conmon, containerd, its shims and the runtime are our
descendants and share it.  Inside it we mount:

  * a tmpfs on /run: runtime state (/run/bento-runtime, /run/runc,
    /run/crun, /run/containerd/...), containerd's shim sockets
    (/run/containerd/s) and ctr's FIFOs (/run/containerd/fifo) are all
    hard-wired there;
  * /var/lib bound read-only over itself, and a tmpfs on
    /var/lib/containers when that exists: podman keeps its blob-info cache
    there whatever --root says.  When it cannot make the directory it uses a
    cache in memory; making the directory ourselves would leave it on the
    host (or pull it from under a second test session running at the same
    time);
  * optionally (view "legacy") a tmpfs on /sys/fs/cgroup holding only the
    cgroup v1 hierarchies, re-mounted: the same cgroups, without the cgroup2
    mount of a hybrid host;
  * optionally (open_tun) a node of /dev/net/tun that everyone may open,
    bound over the host's: udev makes it 0666 on a usual host, and rootless
    podman's slirp4netns needs that, but this VM has no udev and keeps it
    0600.

Everything is lazily unmounted when the module's tests are done; the
namespace itself dies with the test process anyway.
"""

import os
import stat

import harness
from harness import run_cmd


def _mount(*args):
    res = run_cmd(["mount"] + list(args), timeout=20)
    assert res.rc == 0, "mount failed:\n%s" % res


def v1_hierarchies():
    """(mount point, super options) of every cgroup v1 mount under
    /sys/fs/cgroup, from /proc/self/mountinfo."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            sep = fields.index("-")
            fstype, superopts = fields[sep + 1], fields[sep + 3]
            target = fields[4]
            if fstype == "cgroup" and target.startswith("/sys/fs/cgroup/"):
                opts = [o for o in superopts.split(",") if o not in ("rw", "ro")]
                out.append((target, ",".join(opts)))
    return out


class Sandbox:
    def __init__(self, cgroup_view):
        self.cgroup_view = cgroup_view
        self.mounted = []  # in mount order

    def _tmpfs(self, target, mode="755", nodev=True):
        assert os.path.isdir(target), "%s: no such directory to mount on" % target
        _mount("-t", "tmpfs", "-o", "mode=%s,nosuid%s" % (mode, ",nodev" if nodev else ""), "bento-engines", target)
        self.mounted.append(target)

    def enter(self):
        try:
            self._tmpfs("/run")
            _mount("--bind", "/var/lib", "/var/lib")
            self.mounted.append("/var/lib")
            _mount("-o", "remount,bind,ro", "/var/lib")
            if os.path.isdir("/var/lib/containers"):
                self._tmpfs("/var/lib/containers", mode="700")
            if self.cgroup_view == "legacy" and os.path.ismount("/sys/fs/cgroup/unified"):
                hier = v1_hierarchies()
                assert hier, "no cgroup v1 hierarchy to build a legacy view from"
                self._tmpfs("/sys/fs/cgroup")
                for target, opts in hier:
                    os.makedirs(target, exist_ok=True)
                    _mount("-t", "cgroup", "-o", opts, "cgroup", target)
        except BaseException:
            self.leave()
            raise

    def open_tun(self, scratch):
        """Bind a 0666 node of the tun device (10:200) over /dev/net/tun;
        scratch: an empty directory for the tmpfs that holds it."""
        st = os.stat("/dev/net/tun")
        if stat.S_IMODE(st.st_mode) & 0o666 == 0o666:
            return
        self._tmpfs(scratch, nodev=False)
        node = os.path.join(scratch, "tun")
        os.mknod(node, 0o666 | stat.S_IFCHR, st.st_rdev)
        os.chmod(node, 0o666)
        _mount("--bind", node, "/dev/net/tun")
        self.mounted.append("/dev/net/tun")

    def leave(self):
        problems = []
        for target in reversed(self.mounted):
            if not harness.umount_lazy(target):
                problems.append("could not unmount %s" % target)
        self.mounted = []
        return problems
