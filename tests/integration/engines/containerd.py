# SPDX-License-Identifier: Apache-2.0
"""A containerd of the tests' own.

Its configuration puts root, state, the gRPC/ttrpc/debug sockets and the opt
directory under a scratch directory, points the CRI plugin at an empty CNI
directory, declares the usual runc entry (the CRI plugin refuses to load
without its default runtime) and appends contrib/containerd/bento-runtime.toml
verbatim except for BinaryName, which becomes the binary under test.

ctr does not read CRI runtime entries, so the tests take runtime_type,
BinaryName, Root and SystemdCgroup from that entry -- parsed back out of the
configuration containerd actually loaded -- and pass them to `ctr run` the
way the CRI plugin hands them to the shim.
"""

import os
import re
import signal
import subprocess
import time
import tomllib

import harness
from harness import run_cmd, wait_for

from . import CONTAINERD_ENTRY, ENV_PATH, toml_dump

CTR_TIMEOUT = 60
CRI = "io.containerd.grpc.v1.cri"


def contrib_entry_text():
    with open(CONTAINERD_ENTRY) as f:
        return f.read()


def contrib_entry():
    """(name, table) of the runtime entry shipped in contrib."""
    with open(CONTAINERD_ENTRY, "rb") as f:
        doc = tomllib.load(f)
    runtimes = doc["plugins"][CRI]["containerd"]["runtimes"]
    assert len(runtimes) == 1, "contrib should define one runtime entry: %s" % runtimes
    return next(iter(runtimes.items()))


def entry_with_binary(text, binary):
    new, n = re.subn(r'(?m)^(\s*BinaryName\s*=\s*)"[^"]*"', lambda m: '%s"%s"' % (m.group(1), binary), text)
    assert n == 1, "expected one BinaryName line in %s" % CONTAINERD_ENTRY
    return new


class Containerd:
    def __init__(self, base, runtime, namespace):
        self.base = base
        self.runtime = runtime
        self.namespace = namespace
        self.config = os.path.join(base, "config.toml")
        self.address = os.path.join(base, "containerd.sock")
        self.log = os.path.join(base, "containerd.log")
        self.proc = None
        os.makedirs(os.path.join(base, "cni"), exist_ok=True)
        self._write_config()
        self.entry_name, self.entry = self._loaded_entry()

    def _write_config(self):
        b = self.base
        head = toml_dump({
            "": {"version": 2, "root": os.path.join(b, "root"), "state": os.path.join(b, "state")},
            "grpc": {"address": self.address},
            "ttrpc": {"address": self.address + ".ttrpc"},
            "debug": {"address": os.path.join(b, "debug.sock"), "level": "info"},
            "metrics": {"address": ""},
            'plugins."io.containerd.internal.v1.opt"': {"path": os.path.join(b, "opt")},
            'plugins."%s".cni' % CRI: {"conf_dir": os.path.join(b, "cni")},
            'plugins."%s".containerd.runtimes.runc' % CRI: {"runtime_type": "io.containerd.runc.v2"},
        })
        with open(self.config, "w") as f:
            f.write("# written by tests/integration/engines/containerd.py\n")
            f.write(head)
            f.write("\n# ---- %s, BinaryName replaced ----\n" % CONTAINERD_ENTRY)
            f.write(entry_with_binary(contrib_entry_text(), self.runtime))

    def _loaded_entry(self):
        with open(self.config, "rb") as f:
            doc = tomllib.load(f)
        name, _ = contrib_entry()
        return name, doc["plugins"][CRI]["containerd"]["runtimes"][name]

    # -- the entry, as ctr options --
    @property
    def binary(self):
        return self.entry["options"]["BinaryName"]

    @property
    def runtime_root(self):
        """The shim passes --root <Root>/<namespace> to the runtime."""
        return os.path.join(self.entry["options"]["Root"], self.namespace)

    def run_opts(self):
        opts = ["--runtime", self.entry["runtime_type"], "--runc-binary", self.binary,
                "--runc-root", self.entry["options"]["Root"]]
        if self.entry["options"].get("SystemdCgroup"):
            opts.append("--runc-systemd-cgroup")
        return opts

    # -- the daemon --
    def env(self):
        return {"PATH": ENV_PATH, "HOME": self.base, "LANG": "C.UTF-8", "TMPDIR": os.path.join(self.base, "tmp")}

    def start(self, timeout=30):
        os.makedirs(os.path.join(self.base, "tmp"), exist_ok=True)
        logf = open(self.log, "ab")
        try:
            self.proc = harness.spawn(["containerd", "--config", self.config], stdin=subprocess.DEVNULL,
                                      stdout=logf, stderr=logf, env=self.env(), start_new_session=True)
        finally:
            logf.close()
        deadline = time.monotonic() + timeout
        while True:
            res = self.ctr("version", timeout=10)
            if res.rc == 0:
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                tail = self.log_tail()
                self.stop()
                raise AssertionError("containerd did not come up:\n%s\n--- containerd.log ---\n%s" % (res, tail))
            time.sleep(0.1)

    def ctr(self, *args, timeout=CTR_TIMEOUT, **kw):
        argv = ["ctr", "--address", self.address, "--namespace", self.namespace] + [str(a) for a in args]
        return run_cmd(argv, timeout=timeout, env=self.env(), **kw)

    def log_tail(self, lines=30):
        try:
            with open(self.log, errors="replace") as f:
                return "\n".join(f.read().splitlines()[-lines:])
        except OSError:
            return ""

    def plugin_status(self):
        res = self.ctr("plugins", "ls", timeout=20)
        assert res.rc == 0, res
        status = {}
        for line in res.lines()[1:]:
            f = line.split()
            if len(f) >= 4:
                status["%s.%s" % (f[0], f[1])] = f[-1]
        return status

    # -- tasks and containers --
    def tasks(self):
        """{id: (pid, STATUS)} from `ctr task ls`."""
        res = self.ctr("task", "ls", timeout=20)
        assert res.rc == 0, "ctr task ls failed:\n%s" % res
        out = {}
        for line in res.lines()[1:]:
            f = line.split()
            if len(f) >= 3:
                out[f[0]] = (int(f[1]), f[2])
        return out

    def containers(self):
        res = self.ctr("containers", "ls", "--quiet", timeout=20)
        assert res.rc == 0, "ctr containers ls failed:\n%s" % res
        return res.out.split()

    def wait_task_status(self, cid, want, timeout=15):
        last = {}

        def check():
            last["t"] = self.tasks().get(cid)
            return last["t"] is not None and last["t"][1] == want

        try:
            wait_for(check, timeout=timeout, interval=0.1, what="task %s to be %s" % (cid, want))
        except AssertionError as e:
            raise AssertionError("%s (last: %s)" % (e, last.get("t"))) from None

    def remove(self, cid):
        """Kill and delete the task, delete the container (and its
        snapshot); returns the problems met."""
        problems = []
        if cid in self.tasks():
            self.ctr("task", "kill", "--all", "--signal", "SIGKILL", cid, timeout=20)
            try:
                self.wait_task_status(cid, "STOPPED", timeout=15)
            except AssertionError as e:
                problems.append(str(e))
            res = self.ctr("task", "delete", "--force", cid, timeout=30)
            if res.rc != 0 and cid in self.tasks():
                problems.append("ctr task delete failed:\n%s" % res)
        if cid in self.containers():
            res = self.ctr("containers", "delete", cid, timeout=30)
            if res.rc != 0:
                problems.append("ctr containers delete failed:\n%s" % res)
        return problems

    def shims(self):
        """pids of the shims serving this containerd."""
        out = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if argv and argv[0].endswith(b"containerd-shim-runc-v2") and self.address.encode() in argv:
                if harness.proc_alive(int(pid)):
                    out.append(int(pid))
        return out

    def shim_for(self, cid):
        return [p for p in self.shims() if (b" -id %s " % cid.encode()) in _argv(p) + b" "]

    def teardown(self):
        problems = []
        if self.proc is not None and self.proc.poll() is None:
            for cid in self.containers():
                problems += ["container %s left by a test" % cid] + self.remove(cid)
            for img in self.ctr("images", "ls", "--quiet", timeout=20).out.split():
                res = self.ctr("images", "rm", "--sync", img, timeout=30)
                if res.rc != 0:
                    problems.append("ctr images rm failed:\n%s" % res)
            res = run_cmd(["ctr", "--address", self.address, "namespaces", "remove", self.namespace], timeout=20,
                          env=self.env())
            if res.rc != 0:
                problems.append("ctr namespaces remove failed (something is left in it):\n%s" % res)
        self.stop()
        try:
            wait_for(lambda: not self.shims(), timeout=10, what="shims to exit")
        except AssertionError:
            left = self.shims()
            problems.append("containerd shims still running after containerd stopped: %s" %
                            [(p, _argv(p)) for p in left])
            for p in left:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
        mounts = harness.mounts_under(self.base)
        if mounts:
            problems.append("mounts left under containerd's root/state: %s" % mounts)
            for m in sorted(mounts, key=len, reverse=True):
                harness.umount_lazy(m)
        return problems

    def stop(self):
        p, self.proc = self.proc, None
        if p is None:
            return
        try:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait(timeout=10)
        finally:
            with harness.REAPER.lock:
                harness.REAPER.live.discard(p.pid)


def _argv(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ")
    except OSError:
        return b""
