# SPDX-License-Identifier: Apache-2.0
"""podman with a store of its own.

Everything podman keeps lives under one scratch directory (--root with the
vfs storage driver, so no overlay mounts; volumes; the events file; an empty
hooks directory) or under a directory in the test's private /run (--runroot,
whose path podman wants shorter than 50 characters, and tmp_dir with the
exit files, attach sockets and file locks, used instead of
/dev/shm/libpod_lock).  The configuration is CONTAINERS_CONF (podman then reads no other
containers.conf): contrib's containers.conf.d snippet, with the runtime path
replaced by the binary under test, merged with what this machine and these
tests need (cgroupfs, no network, rlimits this host can grant).
"""

import os
import re
import resource
import tomllib

import harness
from harness import run_cmd

from . import ENV_PATH, PODMAN_CONF_SNIPPET, toml_dump

PODMAN_TIMEOUT = 90


def host_ulimits():
    """nofile/nproc values the host can grant: podman (root) asks for
    1048576 of each, which fails without CAP_SYS_RESOURCE (this VM), and
    podman lowers its own RLIMIT_NPROC to 32768 as it starts."""
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    nproc = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    if nofile == resource.RLIM_INFINITY or nofile > 1048576:
        nofile = 1048576
    if nproc == resource.RLIM_INFINITY or nproc > 32768:
        nproc = 32768
    return ["nofile=%d:%d" % (nofile, nofile), "nproc=%d:%d" % (nproc, nproc)]


def contrib_snippet():
    with open(PODMAN_CONF_SNIPPET, "rb") as f:
        return tomllib.load(f)


class Podman:
    def __init__(self, base, rundir, runtime, cgroup_parent):
        self.base = base
        self.runtime = runtime
        self.cgroup_parent = cgroup_parent
        self.conf = os.path.join(base, "containers.conf")
        self.storage_conf = os.path.join(base, "storage.conf")
        self.root = os.path.join(base, "root")
        self.runroot = os.path.join(rundir, "runroot")
        self.tmp = os.path.join(rundir, "tmp")
        self.home = os.path.join(base, "home")
        for d in (self.root, self.runroot, self.tmp, self.home, os.path.join(base, "hooks.d"),
                  os.path.join(base, "networks")):
            os.makedirs(d, exist_ok=True)
        self.runtime_name = self._write_config()

    # -- configuration --
    def _write_config(self):
        snippet = contrib_snippet()
        engine = dict(snippet["engine"])
        runtimes = dict(engine.pop("runtimes"))
        assert len(runtimes) == 1, "the contrib snippet should define exactly one runtime: %s" % runtimes
        name = next(iter(runtimes))
        runtimes[name] = [self.runtime]
        b = self.base
        engine.update({
            "cgroup_manager": "cgroupfs",
            "events_logger": "file",
            "events_logfile_path": os.path.join(b, "events.log"),
            "lock_type": "file",
            "tmp_dir": self.tmp,
            "static_dir": os.path.join(b, "root", "libpod"),
            "volume_path": os.path.join(b, "volumes"),
            "image_copy_tmp_dir": self.tmp,
            "hooks_dir": [os.path.join(b, "hooks.d")],
            "conmon_env_vars": ["PATH=" + ENV_PATH, "CONTAINERS_CONF=" + self.conf,
                                "CONTAINERS_STORAGE_CONF=" + self.storage_conf],
        })
        tables = {
            "containers": {
                "default_ulimits": host_ulimits(),
                "netns": "none",
                "log_driver": "k8s-file",
            },
            "engine": engine,
            "engine.runtimes": runtimes,
            "network": {"network_config_dir": os.path.join(b, "networks")},
        }
        with open(self.conf, "w") as f:
            f.write("# written by tests/integration/engines/podman.py from %s\n" % PODMAN_CONF_SNIPPET)
            f.write(toml_dump(tables))
        with open(self.storage_conf, "w") as f:
            f.write(toml_dump({"storage": {"driver": "vfs", "graphroot": self.root, "runroot": self.runroot}}))
        return name

    def env(self):
        return {
            "PATH": ENV_PATH,
            "HOME": self.home,
            "TMPDIR": self.tmp,
            "LANG": "C.UTF-8",
            "CONTAINERS_CONF": self.conf,
            "CONTAINERS_STORAGE_CONF": self.storage_conf,
        }

    def argv(self, *args, runtime=None):
        return ["podman", "--root", self.root, "--runroot", self.runroot, "--storage-driver", "vfs",
                "--cgroup-manager", "cgroupfs", "--events-backend", "file", "--tmpdir", self.tmp,
                "--runtime", runtime or self.runtime] + [str(a) for a in args]

    def __call__(self, *args, timeout=PODMAN_TIMEOUT, runtime=None, **kw):
        return run_cmd(self.argv(*args, runtime=runtime), timeout=timeout, env=self.env(), **kw)

    def run_opts(self):
        """Options every `podman run` of the tests gets."""
        return ["--network", "none", "--cgroup-parent", self.cgroup_parent]

    # -- state of the store --
    def container_ids(self):
        res = self("ps", "-a", "--no-trunc", "--format", "{{.ID}}", timeout=30)
        assert res.rc == 0, "podman ps failed:\n%s" % res
        return res.out.split()

    def inspect(self, name, fmt):
        res = self("inspect", "--type", "container", "--format", fmt, name, timeout=30)
        assert res.rc == 0, "podman inspect failed:\n%s" % res
        return res.out.strip()

    def remove_all(self):
        ids = self.container_ids()
        if ids:
            res = self("rm", "--force", "--time", "0", *ids, timeout=60)
            if res.rc != 0:
                return ["podman rm -f failed:\n%s" % res]
        return []

    def teardown(self):
        """Remove every container and image; return the debris found."""
        problems = self.remove_all()
        left = self.container_ids()
        if left:
            problems.append("podman containers left: %s" % left)
        res = self("rmi", "--all", "--force", timeout=60)
        if res.rc != 0:
            problems.append("podman rmi failed:\n%s" % res)
        mounts = harness.mounts_under(self.base)
        if mounts:
            problems.append("mounts left under podman's store: %s" % mounts)
            for m in sorted(mounts, key=len, reverse=True):
                harness.umount_lazy(m)
        return problems


def libpod_cgroup_name(cid):
    return "libpod-" + cid


def valid_cid(cid):
    return re.fullmatch(r"[0-9a-f]{64}", cid or "") is not None
