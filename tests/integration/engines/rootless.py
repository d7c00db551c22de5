# SPDX-License-Identifier: Apache-2.0
"""Rootless podman: an unprivileged user with subordinate ids, and podman
run as that user.

The tests run as root, so they make the user themselves (useradd, which
gives it /etc/subuid and /etc/subgid ranges where those files exist, so
they are made first when missing; usermod adds ranges when useradd did not)
and remove it, and the files if empty, again when they made them.  Podman then runs through
setpriv as that user, with a store, XDG_RUNTIME_DIR and HOME of its own
under the session's scratch directory and the test's private /run
(engines/sandbox.py), all owned by the user.  Rootless podman keeps a
pause process holding its user namespace alive after every command; the
teardown ends every process of the user, which are the tests' own.
"""

import os
import pwd
import signal

import harness
from harness import run_cmd, wait_for

from .podman import Podman

USER = "bento-rootless"
SUBID_FILES = ("/etc/subuid", "/etc/subgid")
# a range for the user's subordinate ids when useradd gave it none
SUBID_COUNT = 65536


def _subid_ranges(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                f_ = line.strip().split(":")
                if len(f_) == 3 and f_[1].isdigit() and f_[2].isdigit():
                    out.setdefault(f_[0], []).append((int(f_[1]), int(f_[2])))
    except FileNotFoundError:
        pass
    return out


def _free_subid_start():
    top = 100000
    for path in SUBID_FILES:
        for ranges in _subid_ranges(path).values():
            for start, count in ranges:
                top = max(top, start + count)
    return top


class RootlessUser:
    def __init__(self):
        self.name = USER
        self.created = False
        # useradd allocates subordinate ids only where these files exist
        self.made_files = [p for p in SUBID_FILES if not os.path.exists(p)]
        for path in self.made_files:
            with open(path, "x"):
                pass
            os.chmod(path, 0o644)
        try:
            pw = pwd.getpwnam(self.name)
        except KeyError:
            res = run_cmd(["useradd", "--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin",
                           self.name], timeout=30)
            assert res.rc == 0, "useradd failed:\n%s" % res
            self.created = True
            pw = pwd.getpwnam(self.name)
        self.uid, self.gid = pw.pw_uid, pw.pw_gid
        if self.name not in _subid_ranges("/etc/subuid") or self.name not in _subid_ranges("/etc/subgid"):
            start = _free_subid_start()
            span = "%d-%d" % (start, start + SUBID_COUNT - 1)
            res = run_cmd(["usermod", "--add-subuids", span, "--add-subgids", span, self.name], timeout=30)
            assert res.rc == 0, "usermod --add-subuids failed:\n%s" % res

    def pids(self):
        out = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    if os.stat("/proc/" + pid).st_uid == self.uid:
                        out.append(int(pid))
                except OSError:
                    pass
        return out

    def end_processes(self):
        """SIGKILL every process of the user (podman's pause process,
        anything a failed test left); returns the ones that were there."""
        left = [(p, harness._cmdline(p)) for p in self.pids()]
        for p, _ in left:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        try:
            wait_for(lambda: (harness.REAPER.reap_now(), not self.pids())[1], timeout=10,
                     what="the processes of %s to end" % self.name)
        except AssertionError as e:
            return left + [("?", str(e))]
        return left

    def remove(self):
        if self.created:
            res = run_cmd(["userdel", self.name], timeout=30)
            assert res.rc == 0, "userdel failed:\n%s" % res
        # the files made above, if userdel left them empty, and the
        # backups the shadow tools wrote of them (ours alone, then)
        for path in self.made_files:
            if os.path.isfile(path) and os.path.getsize(path) == 0:
                os.unlink(path)
                if os.path.isfile(path + "-"):
                    os.unlink(path + "-")


def chown_tree(path, uid, gid):
    for dirpath, dirnames, filenames in os.walk(path):
        os.lchown(dirpath, uid, gid)
        for f in dirnames + filenames:
            os.lchown(os.path.join(dirpath, f), uid, gid)


class RootlessPodman(Podman):
    """Podman (engines/podman.py) run as `user`; its XDG_RUNTIME_DIR is
    rundir/xdg, where the runtime under test keeps its state."""

    def __init__(self, user, base, rundir, runtime):
        self.user = user
        self.xdg = os.path.join(rundir, "xdg")
        os.makedirs(self.xdg, mode=0o700)
        # no --cgroup-parent: the user owns no cgroup to put it in
        super().__init__(base, rundir, runtime, None)
        for d in (base, rundir):
            chown_tree(d, user.uid, user.gid)

    def env(self):
        env = super().env()
        env.update({"USER": self.user.name, "LOGNAME": self.user.name, "XDG_RUNTIME_DIR": self.xdg})
        return env

    def argv(self, *args, runtime=None):
        return ["setpriv", "--reuid=%d" % self.user.uid, "--regid=%d" % self.user.gid, "--init-groups"] + \
            super().argv(*args, runtime=runtime)

    def run_opts(self):
        return ["--network", "none"]

    def runtime_state_dirs(self):
        """What the runtime under test keeps in XDG_RUNTIME_DIR: the
        container directories in its state root there."""
        root = os.path.join(self.xdg, os.path.basename(self.runtime))
        if not os.path.isdir(root):
            return []
        return sorted(d for d in os.listdir(root) if not d.startswith(".") and
                      os.path.isdir(os.path.join(root, d)))
