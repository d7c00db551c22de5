# SPDX-License-Identifier: Apache-2.0
"""The adversarial suite's host side: worlds, modes, attempts, runs, checks.

An *attempt* is a small Python function that runs inside the sandbox and tries
one forbidden thing, plus host-side checks that the forbidden effect did not
happen (and, where there is one, that the allowed neighbour still works).
Attempts belong to a *group*: the group says what the world looks like (which
grants, which repositories, which limits) and all of its attempts run, one after
the other, in ONE sandbox per *mode*, so the suite costs one run per group and
mode rather than one per attempt.  An attempt marked `solo` gets a world and a
run of its own (it changes the process or the world too much to share).

Modes: `bento run` with `exec: all`, `none` and `none-strict`; and a bundle
from `bento translate` (`exec: all`) run by bento-runtime, runc and crun (crun
inside the cgroup-v1 view that this hybrid host needs, test_translate.py).

Everything below reuses the integration suite's helpers (harness.py for
processes and mounts, test_translate.py for the foreign runtimes,
test_bento_run.py for what a run may leave behind) instead of copying them.
"""

import hashlib
import inspect
import json
import os
import selectors
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import harness
from harness import REAPER, run_cmd
from test_bento_run import mountinfo, processes_mentioning, prose, shm_rootfs_dirs  # noqa: F401
from test_translate import engine_argv, to_yaml

BENTO = os.path.join(harness.BUILD, "bin", "bento")
RUNTIME = harness.RUNTIME
HERE = os.path.dirname(os.path.abspath(__file__))
BOXDIR = os.path.join(HERE, "box")
if BOXDIR not in sys.path:
    sys.path.insert(0, BOXDIR)  # boxlib: the attempt modules name its helpers
PYTHON = "/usr/bin/python3"
REFUSED = 125

# ---------------------------------------------------------------------------
# modes


class Mode:
    def __init__(self, name, kind, exec_mode, engine=None, desc=""):
        self.name = name
        self.kind = kind  # "run" (bento run) or "bundle" (bento translate + a runtime)
        self.exec = exec_mode
        self.engine = engine
        self.desc = desc

    @property
    def can_exec(self):
        return self.exec == "all"

    @property
    def can_fork(self):
        return self.exec != "none-strict"

    def __repr__(self):
        return self.name


MODES = [
    Mode("run-all", "run", "all", desc="bento run, exec: all"),
    Mode("run-none", "run", "none", desc="bento run, exec: none"),
    Mode("run-strict", "run", "none-strict", desc="bento run, exec: none-strict"),
    Mode("rt", "bundle", "all", "bento-runtime", desc="bento translate + bento-runtime run"),
    Mode("runc", "bundle", "all", "runc", desc="bento translate + runc run"),
    Mode("crun", "bundle", "all", "crun", desc="bento translate + crun run (cgroup v1 view)"),
]
MODE = {m.name: m for m in MODES}
MODE_NAMES = [m.name for m in MODES]

# ---------------------------------------------------------------------------
# attempts and groups


class Attempt:
    def __init__(self, fn, group, name, desc, solo=False, refusal_ok=False, killed_ok=False,
                 modes=None, timeout=15, first=False):
        self.fn_name = fn.__name__
        src = textwrap.dedent(inspect.getsource(fn))
        # drop the decorator lines: the box executes the bare function
        lines = src.splitlines()
        while lines and lines[0].lstrip().startswith("@"):
            lines.pop(0)
            while lines and not lines[0].lstrip().startswith(("def ", "@")):
                lines.pop(0)
        self.source = "\n".join(lines) + "\n"
        self.group = group
        self.name = name
        self.desc = desc
        self.solo = solo
        self.refusal_ok = refusal_ok  # a refused run is a pass (the host checks still run)
        self.killed_ok = killed_ok    # a run the kernel killed for a cap is a pass
        self.modes = modes or MODE_NAMES
        self.timeout = timeout
        self.first = first  # run before the group's other attempts (they open descriptors)
        self._checks = []
        self._hosts = []

    def check(self, fn):
        """fn(r, run): assertions on the attempt's in-box result r."""
        self._checks.append(fn)
        return fn

    def host(self, fn):
        """fn(run): assertions on the host after the run."""
        self._hosts.append(fn)
        return fn


REGISTRY = {}
GROUPS = {}


class Group:
    """What a world looks like for the attempts of one group.

    write/read: grants added to the base `read: ["~"]`, `write: [./work]`
    (relative to the project directory); setup(world): host-side preparation
    before the manifest is approved or translated; limits: a `limits:` map."""

    def __init__(self, name, desc, write=(), read=(), limits=None, setup=None, env=(), pty=False):
        self.pty = pty  # stdin: a pty that a host session holds as its controlling terminal
        self.name = name
        self.desc = desc
        self.write = list(write)
        self.read = list(read)
        self.limits = limits
        self.setup = setup
        self.env = list(env)
        GROUPS[name] = self


def attempt(group, name, desc, **kw):
    def deco(fn):
        assert name not in REGISTRY, "attempt %s defined twice" % name
        assert group in GROUPS, "unknown group %s" % group
        a = Attempt(fn, group, name, desc, **kw)
        REGISTRY[name] = a
        return a
    return deco


# ---------------------------------------------------------------------------
# result helpers for the checks


def ok(x):
    return isinstance(x, dict) and x.get("ok") is True


def denied(x, *errnos):
    """The in-box call failed (with one of errnos, when given)."""
    if not isinstance(x, dict) or x.get("ok") is not False:
        return False
    return not errnos or x.get("errno") in errnos


def assert_denied(x, *errnos, what=""):
    assert denied(x, *errnos), "%s: expected a refusal%s, got %r" % (
        what or "call", (" (%s)" % "/".join(errnos)) if errnos else "", x)


def assert_ok(x, what=""):
    assert ok(x), "%s: the allowed thing should work, got %r" % (what or "call", x)


def no_secret(run, x):
    text = json.dumps(x)
    assert run.world.marker not in text and run.world.env_marker not in text, \
        "a secret reached the box: %s" % text[:600]


# ---------------------------------------------------------------------------
# host-side services the attempts aim at (one set per session)


class ListenerHub:
    """Host sockets (TCP on loopback, unix paths, abstract names) that count
    the connections they accept: a count above 0 is a box that got out."""

    def __init__(self):
        self.sel = selectors.DefaultSelector()
        self.counts = {}
        self.socks = []
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="adv-listeners", daemon=True)
        self.thread.start()

    def _add(self, s, label):
        s.listen(16)
        s.setblocking(False)
        with self.lock:
            self.counts[label] = 0
            self.socks.append(s)
            self.sel.register(s, selectors.EVENT_READ, label)

    def tcp(self, family, host, label):
        s = socket.socket(family, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((host, 0))
        self._add(s, label)
        return s.getsockname()[1]

    def unix(self, path, label, abstract=False):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(("\0" + path) if abstract else path)
        self._add(s, label)

    def _loop(self):
        while not self._stop.is_set():
            with self.lock:
                have = bool(self.socks)
            if not have:
                time.sleep(0.05)
                continue
            for key, _ in self.sel.select(timeout=0.05):
                try:
                    c, _ = key.fileobj.accept()
                    c.close()
                    with self.lock:
                        self.counts[key.data] += 1
                except OSError:
                    pass

    def count(self, label):
        time.sleep(0.1)  # let the loop take what is queued
        with self.lock:
            return self.counts.get(label, 0)

    def close(self):
        self._stop.set()
        self.thread.join(timeout=2)
        for s in self.socks:
            s.close()


class HostBait:
    """Session-wide things on the host a box must not reach: a canary
    process, a key in root's user keyring, a SysV shared memory segment, a
    POSIX message queue, a file in the host's /dev/shm, loopback listeners,
    an abstract unix socket."""

    def __init__(self, base, token, marker):
        import ctypes
        self.token = token
        self.marker = marker
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        self.hub = ListenerHub()
        self.tcp4 = self.hub.tcp(socket.AF_INET, "127.0.0.1", "tcp4")
        self.tcp6 = self.hub.tcp(socket.AF_INET6, "::1", "tcp6")
        self.abstract = "bento-adv-" + token
        self.hub.unix(self.abstract, "abstract", abstract=True)
        # SSH_AUTH_SOCK lives in the host's /tmp, as ssh-agent puts it
        self.agent_dir = tempfile.mkdtemp(prefix="adv-agent.", dir="/tmp")
        self.agent = os.path.join(self.agent_dir, "agent.sock")
        self.hub.unix(self.agent, "ssh-agent")
        self.canary = harness.spawn(["sleep", "3600"], stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.canary_start = harness.proc_start_time(self.canary.pid)
        self.shm_file = "/dev/shm/bento-adv-host-" + token
        with open(self.shm_file, "w") as f:
            f.write(marker + " in the host's /dev/shm\n")
        self.key_desc = "bento-adv-" + token
        payload = (marker + " in root's user keyring").encode()
        self.key_id = self.libc.syscall(248, b"user", self.key_desc.encode(), payload, len(payload),
                                        ctypes.c_long(-4))  # add_key(..., KEY_SPEC_USER_KEYRING)
        self.sysv_key = int(token[:7], 16) | 0x10000000
        self.shm_id = self.libc.shmget(self.sysv_key, 4096, 0o1000 | 0o600)  # IPC_CREAT
        if self.shm_id >= 0:
            self.libc.shmat.restype = ctypes.c_void_p
            addr = self.libc.shmat(self.shm_id, None, 0)
            data = (marker + " in a SysV segment").encode()
            ctypes.memmove(addr, data, len(data))
            self.libc.shmdt(ctypes.c_void_p(addr))
        self.mq_name = "/bento-adv-" + token
        self.libc.mq_open.restype = ctypes.c_int
        self.mq = self.libc.mq_open(self.mq_name.encode(), os.O_CREAT | os.O_RDWR, 0o600, None)

    def canary_alive(self):
        return harness.proc_alive(self.canary.pid, self.canary_start)

    def ctx(self):
        return {"tcp4": self.tcp4, "tcp6": self.tcp6, "abstract": self.abstract, "agent": self.agent,
                "canary": self.canary.pid, "host_pid": os.getpid(), "shm_file": self.shm_file,
                "key_desc": self.key_desc, "sysv_key": self.sysv_key, "mq_name": self.mq_name}

    def close(self):
        self.hub.close()
        try:
            self.canary.kill()
            self.canary.wait(timeout=5)
        except OSError:
            pass
        harness._forget(self.canary)
        shutil.rmtree(self.agent_dir, ignore_errors=True)
        for p in [self.shm_file] + [os.path.join("/dev/shm", n) for n in os.listdir("/dev/shm")
                                    if self.token in n]:
            try:
                os.unlink(p)
            except OSError:
                pass
        if self.key_id > 0:
            self.libc.syscall(250, 21, self.key_id)  # keyctl(KEYCTL_INVALIDATE)
        if self.shm_id >= 0:
            self.libc.shmctl(self.shm_id, 0, None)  # IPC_RMID
        if self.mq >= 0:
            self.libc.mq_close(self.mq)
            self.libc.mq_unlink(self.mq_name.encode())


# ---------------------------------------------------------------------------
# a world: a fake HOME full of secrets, a project, grants


SECRET_FILES = [
    ".ssh/id_ed25519", ".ssh/id_rsa", ".aws/credentials", ".gnupg/private-keys-v1.d/key.key",
    ".config/gh/hosts.yml", ".bash_history", ".zsh_history", ".python_history",
    ".local/share/keyrings/login.keyring", ".netrc", ".git-credentials", ".docker/config.json",
    ".kube/config", ".config/gcloud/credentials.db", ".npmrc", ".pgpass",
]
PLAIN_FILES = {
    ".bashrc": "# the user's bashrc\nexport PS1='$ '\n",
    ".profile": "# the user's profile\n",
    ".gitconfig": "[user]\n\tname = user\n",
    ".local/bin/tool": "#!/bin/sh\necho tool\n",
    "notes.txt": "plain notes the box may read\n",
}


def tree_state(top, skip=()):
    """(relative path, kind, mode, size, digest or link target) of everything
    under top, not following links; skip: absolute paths not to descend."""
    out = []
    skip = set(skip)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skip]
        for n in sorted(dirnames + filenames):
            p = os.path.join(dirpath, n)
            if p in skip:
                continue
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                extra = "-> " + os.readlink(p)
            elif stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    extra = hashlib.sha256(f.read()).hexdigest()[:16]
            else:
                extra = ""
            out.append((os.path.relpath(p, top), stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode),
                        st.st_ino, extra))
    return sorted(out)


def privileged_files(top):
    """Every entry under top with S_ISUID or S_ISGID, or a security.capability xattr."""
    found = []
    for dirpath, dirnames, filenames in os.walk(top):
        for n in [dirpath] + [os.path.join(dirpath, x) for x in dirnames + filenames]:
            try:
                st = os.lstat(n)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                continue
            if st.st_mode & (stat.S_ISUID | stat.S_ISGID):
                found.append("%s mode %o" % (n, st.st_mode))
            try:
                if "security.capability" in os.listxattr(n, follow_symlinks=False):
                    found.append("%s has security.capability" % n)
            except OSError:
                pass
    return sorted(set(found))


def git(*args, cwd=None):
    """git for inspecting a repository the box could have written: no
    fsmonitor, no hooks, no pager, no system or global configuration, and
    never a command that runs either (config and rev-parse only)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0",
           "GIT_OPTIONAL_LOCKS": "0"}
    return harness.completed_run(["git", "-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null"] +
                                 list(args), cwd=cwd, env=env, timeout=20)


# git configuration keys that make git (or a tool driving it) run a command
DANGEROUS_GIT_KEYS = ("core.fsmonitor", "core.hookspath", "core.sshcommand", "core.pager", "core.editor",
                      "core.askpass", "core.gitproxy", "diff.external", "sequence.editor", "gpg.program",
                      "credential.helper", "include.path", "uploadpack.packobjectshook", "pager.",
                      "filter.", "alias.", "includeif.", "difftool.", "mergetool.", "merge.", "diff.")


def git_config_list(repo):
    """Every key git would read for repo (with includes), as seen from the
    repository's own files: `git config --list --local --includes`."""
    r = git("-C", repo, "config", "--list", "--includes", "--show-origin")
    return r.stdout.splitlines() if r.returncode == 0 else ["<git config failed: %s>" % r.stderr.strip()]


def make_git_repo(path, with_hooks=True, with_config=True):
    """A repository made by hand (no `git init`: no sample hooks to run)."""
    g = os.path.join(path, ".git")
    for d in ("objects/info", "objects/pack", "refs/heads", "refs/tags", "info"):
        os.makedirs(os.path.join(g, d), exist_ok=True)
    with open(os.path.join(g, "HEAD"), "w") as f:
        f.write("ref: refs/heads/main\n")
    if with_config:
        with open(os.path.join(g, "config"), "w") as f:
            f.write("[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n")
    if with_hooks:
        os.makedirs(os.path.join(g, "hooks"), exist_ok=True)
        with open(os.path.join(g, "hooks", "pre-commit.sample"), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")


class World:
    def __init__(self, base, session, group, mode, label):
        self.session = session
        self.group = group
        self.mode = mode
        self.dir = os.path.join(base, label)
        self.token = session.token
        self.marker = session.marker
        self.env_marker = session.env_marker
        self.home = os.path.join(self.dir, "home")
        self.proj = os.path.join(self.home, "proj")
        self.work = os.path.join(self.proj, "work")
        self.boxdir = os.path.join(self.proj, "box")
        self.state = os.path.join(self.dir, "state")
        self.xdg_run = os.path.join(self.home, ".xdg-run")
        self.tmp = tempfile.mkdtemp(prefix="adv.", dir="/tmp")
        for d in (self.home, self.work, self.boxdir, self.state, self.xdg_run):
            os.makedirs(d, exist_ok=True)
        for rel in SECRET_FILES:
            self.put(os.path.join(self.home, rel), "%s %s\n" % (self.marker, rel), 0o600)
        for rel, text in PLAIN_FILES.items():
            self.put(os.path.join(self.home, rel), text, 0o755 if "bin/" in rel else 0o644)
        os.chmod(os.path.join(self.home, ".ssh"), 0o700)
        # host service sockets the shields must hide
        for path, label in ((os.path.join(self.home, ".ssh", "agent.sock"), "home-agent"),
                            (os.path.join(self.home, ".gnupg", "S.gpg-agent"), "gpg-agent"),
                            (os.path.join(self.xdg_run, "bus"), "session-bus")):
            session.bait.hub.unix(path, "%s:%s" % (label, self.dir))
        for f in ("bento-adv.py",):
            shutil.copy(os.path.join(BOXDIR, "runner.py"), os.path.join(self.work, f))
        shutil.copy(os.path.join(BOXDIR, "boxlib.py"), os.path.join(self.boxdir, "boxlib.py"))
        self.entrypoint = os.path.join(self.work, "bento-adv.py")
        self.entry_digest = self.digest(self.entrypoint)
        self.bundle_n = 0

    def put(self, path, text, mode=0o644):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def p(self, rel):
        """A path in the project directory."""
        return os.path.join(self.proj, rel)

    @staticmethod
    def digest(path):
        try:
            with open(path, "rb") as f:
                return hashlib.sha256(f.read()).hexdigest()
        except OSError as e:
            return "<%s>" % e.strerror

    def env(self):
        return {
            "PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_STATE_HOME": self.state,
            "TMPDIR": self.tmp, "LANG": "C.UTF-8", "XDG_RUNTIME_DIR": self.xdg_run,
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=%s/bus" % self.xdg_run,
            "SSH_AUTH_SOCK": self.session.bait.agent,
            # secrets in the environment that no manifest lists
            "AWS_SECRET_ACCESS_KEY": self.env_marker, "GITHUB_TOKEN": self.env_marker,
            "BENTO_ADV_TOKEN": self.env_marker,
        }

    def write_grants(self):
        return ["./work"] + self.group.write

    def manifest(self, exec_mode, name="m.yaml", extra=None):
        doc = {"entrypoint": "./work/bento-adv.py", "interpreter": "python3",
               "args": [os.path.join(self.boxdir, "plan.json")], "read": ["~"] + self.group.read,
               "write": self.write_grants(), "exec": exec_mode}
        if self.group.env:
            doc["env"] = self.group.env
        if self.group.limits:
            doc["limits"] = self.group.limits
        doc.update(extra or {})
        path = os.path.join(self.proj, name)
        with open(path, "w") as f:
            f.write(to_yaml(doc))
        return path

    def bento(self, *args, timeout=60, env=None, stdin=None):
        e = self.env()
        e.update(env or {})
        return run_cmd([BENTO] + [str(a) for a in args], env=e, cwd=self.proj, timeout=timeout, stdin=stdin)

    def grant_paths(self):
        return [os.path.normpath(os.path.join(self.proj, g)) for g in self.write_grants()]

    def write_plan(self, attempts, mode):
        ctx = {"home": self.home, "proj": self.proj, "work": self.work, "box": self.boxdir,
               "marker": self.marker, "token": self.token, "mode": mode.name, "exec": mode.exec,
               "state": self.state, "xdg_run": self.xdg_run}
        ctx.update(self.session.bait.ctx())
        plan = {"ctx": ctx, "attempts": [{"name": a.name, "func": a.fn_name, "source": a.source,
                                          "timeout": a.timeout} for a in attempts]}
        with open(os.path.join(self.boxdir, "plan.json"), "w") as f:
            json.dump(plan, f)


# ---------------------------------------------------------------------------
# one sandbox run of a group's attempts


class Run:
    def __init__(self, world, mode, attempts):
        self.world = world
        self.mode = mode
        self.attempts = attempts
        self.res = None
        self.results = {}
        self.problems = []  # what the run left on the host (hygiene)
        self.refused = False
        self.leftover = []
        self.pty_input = b""

    def result(self, name):
        return self.results.get(name)

    def describe(self):
        return "%s under %s (%s)" % (self.world.group.name, self.mode.name, self.mode.desc)


def parse_results(out):
    results = {}
    for line in out.splitlines():
        if line.startswith("@@ADV "):
            try:
                doc = json.loads(line[6:])
            except ValueError:
                continue
            results[doc["name"]] = doc["r"]
    return results


def leftover_processes(world):
    """Processes still alive that a box started: they name the world, run
    with their working directory in it, or sit in a pid namespace that
    holds such a process."""
    REAPER.reap_now()
    found = dict(processes_mentioning(world.dir, world.tmp))
    for pid, _ in harness.proc_stats():
        if pid in found or pid == os.getpid() or not harness.proc_alive(pid):
            continue
        try:
            cwd = os.readlink("/proc/%d/cwd" % pid)
        except OSError:
            continue
        if cwd.startswith(world.dir + "/") or cwd == world.dir:
            found[pid] = harness._cmdline(pid)
    return sorted(found.items())


def kill_all(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    REAPER.reap_now()


class HostTerminal:
    """A pty whose slave is the controlling terminal of a host session (a
    sleeping process that is its session leader), as a user's shell holds
    the terminal bento runs in.  close() returns what reached the terminal's
    input queue (what a TIOCSTI would have pushed for the shell to read)."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        name = os.ttyname(self.slave)
        self.holder = harness.spawn([PYTHON, "-c", "import os, time\nos.setsid()\n"
                                     "fd = os.open(%r, os.O_RDWR)\ntime.sleep(120)\n" % name],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
        harness.wait_for(lambda: self._is_ctty(name), timeout=10, what="the terminal's host session")

    def _is_ctty(self, name):
        try:
            with open("/proc/%d/stat" % self.holder.pid, "rb") as f:
                data = f.read()
            tty_nr = int(data[data.rfind(b")") + 2:].split()[4])
        except (OSError, ValueError, IndexError):
            return False
        return tty_nr == os.stat(name).st_rdev

    def close(self):
        import termios
        os.set_blocking(self.slave, False)
        attrs = termios.tcgetattr(self.slave)
        attrs[3] &= ~termios.ICANON  # read what is queued without waiting for a newline
        termios.tcsetattr(self.slave, termios.TCSANOW, attrs)
        try:
            data = os.read(self.slave, 4096)
        except BlockingIOError:
            data = b""
        self.holder.kill()
        self.holder.wait(timeout=5)
        harness._forget(self.holder)
        os.close(self.master)
        os.close(self.slave)
        return data


class Session:
    """Session-wide state: the bait, the worlds, and the runs (cached per
    group and mode, so each attempt's test only reads its result)."""

    def __init__(self, base):
        self.base = os.path.join(base, "adv")
        os.makedirs(self.base, exist_ok=True)
        self.token = os.urandom(6).hex()
        self.marker = "BENTO-ADV-SECRET-" + self.token
        self.env_marker = "BENTO-ADV-ENVSECRET-" + self.token
        self.bait = HostBait(self.base, self.token, self.marker)
        self.runs = {}
        self.n = 0
        self.worlds = []
        self.cleanup_mounts = []

    def close(self):
        for m in self.cleanup_mounts:
            harness.umount_lazy(m)
        for w in self.worlds:
            shutil.rmtree(w.tmp, ignore_errors=True)
        self.bait.close()

    def new_world(self, group, mode, label):
        self.n += 1
        w = World(self.base, self, group, mode, "%03d-%s" % (self.n, label))
        self.worlds.append(w)
        if group.setup:
            group.setup(w)
        return w

    def run_for(self, a, mode_name):
        mode = MODE[mode_name]
        if a.solo:
            key = (a.name, mode_name)
            attempts = [a]
        else:
            key = (a.group, mode_name)
            attempts = sorted((x for x in REGISTRY.values() if x.group == a.group and not x.solo and
                               mode_name in x.modes), key=lambda x: not x.first)
        if key not in self.runs:
            g = GROUPS[a.group]
            w = self.new_world(g, mode, "%s-%s" % (key[0], mode_name))
            self.runs[key] = execute(w, mode, attempts)
        return self.runs[key]


def execute(w, mode, attempts, timeout=90):
    """Approve or translate the world's manifest, run the box, collect the
    results and every host-side problem the run left."""
    run = Run(w, mode, attempts)
    w.write_plan(attempts, mode)
    m = w.manifest(mode.exec)
    skip = set(w.grant_paths()) | {w.boxdir}
    mounts_before = mountinfo()
    shm_before = shm_rootfs_dirs()
    tty = HostTerminal() if w.group.pty else None
    stdin = tty.slave if tty else None
    if mode.kind == "run":
        r = w.bento("approve", "--yes", m)
        assert r.rc == 0, "approve failed:\n%s" % r
        before = tree_state(w.home, skip)
        run.res = w.bento("run", m, timeout=timeout, stdin=stdin)
        run.refused = run.res.rc == REFUSED and "@@ADV" not in run.res.out
    else:
        w.bundle_n += 1
        bdir = os.path.join(w.dir, "bundle%d" % w.bundle_n)
        r = w.bento("translate", m, "-o", bdir)
        if r.rc == REFUSED:
            run.res = r
            run.refused = True
            before = tree_state(w.home, skip)
        else:
            assert r.rc == 0, "translate failed:\n%s" % r
            before = tree_state(w.home, skip)
            run.res = run_bundle(w, mode, bdir, timeout, stdin=stdin)
    if tty:
        run.pty_input = tty.close()
    run.results = parse_results(run.res.out)
    # what the run left on the host
    left = leftover_processes(w)
    if left:
        run.leftover = left
        run.problems.append("processes left behind: %s" % left)
        kill_all([p for p, _ in left])
    after = tree_state(w.home, skip)
    if after != before:
        gone = sorted(set(before) - set(after))
        new = sorted(set(after) - set(before))
        run.problems.append("the home outside the write grants changed:\n  - %s\n  + %s" % (gone, new))
    priv = privileged_files(w.dir)
    if priv:
        run.problems.append("setuid/setgid/capability files on the host: %s" % priv)
    for text in (run.res.out, run.res.err):
        if w.marker in text or w.env_marker in text:
            run.problems.append("a secret marker appeared in the run's output")
            break
    if w.digest(w.entrypoint) != w.entry_digest:
        run.problems.append("the entrypoint was rewritten on the host")
    if mountinfo() != mounts_before:
        new = sorted(set(mountinfo()) - set(mounts_before))
        run.problems.append("mounts changed after the run: %s" % new)
        for line in new:
            harness.umount_lazy(harness._unescape_mountinfo(line.split()[4]))
    shm_new = shm_rootfs_dirs() - shm_before
    shm_mine = [d for d in shm_new if w.dir in d]
    if shm_mine:
        run.problems.append("/dev/shm directories left: %s" % shm_mine)
    stray = [n for n in os.listdir("/dev/shm") if w.token in n and
             os.path.join("/dev/shm", n) != w.session.bait.shm_file]
    if stray:
        run.problems.append("files the box put in the host's /dev/shm: %s" % stray)
        for n in stray:
            try:
                os.unlink(os.path.join("/dev/shm", n))
            except OSError:
                pass
    if not w.session.bait.canary_alive():
        run.problems.append("the host canary process was killed")
    if os.path.lexists(os.path.join(w.tmp, "pwned")) or [x for x in os.listdir("/tmp") if w.token in x]:
        run.problems.append("the box wrote into the host's /tmp")
    return run


def run_bundle(w, mode, bdir, timeout, stdin=None):
    """Run a translated bundle under bento-runtime, runc or crun; delete it
    and check that nothing of the container is left."""
    cid = "suite-adv-%s-%d" % (os.urandom(3).hex(), w.bundle_n)
    state = os.path.join(w.dir, "%s-state" % mode.name)
    os.makedirs(state, exist_ok=True)
    env = w.env()
    if mode.engine == "bento-runtime":
        argv = [RUNTIME, "--root", state]
    else:
        argv = engine_argv(mode.engine, state)
    res = run_cmd(argv + ["run", "--bundle", bdir, cid], env=env, timeout=timeout, cwd=w.proj, stdin=stdin)
    res.cid = cid
    d = run_cmd(argv + ["delete", "--force", cid], env=env, timeout=20)
    res.delete = d
    for c in harness.cgroup_dirs_named(cid, exact=True):
        harness.remove_cgroup_tree(c)
        res.err += "\n[adv] cgroup left: %s" % c
    for m in sorted(harness.mounts_under(bdir), key=len, reverse=True):
        harness.umount_lazy(m)
        res.err += "\n[adv] mount left: %s" % m
    return res


def judge(a, run):
    """Every check of attempt a on its run; raises AssertionError."""
    r = run.result(a.name)
    if r is None:
        if run.refused and a.refusal_ok:
            pass
        elif a.killed_ok and run.res.rc is not None and run.res.rc >= 128:
            pass
        else:
            raise AssertionError("attempt %s produced no result (%s):\n%s" % (
                a.name, "run refused" if run.refused else "box output", run.res))
    elif "crash" in r:
        raise AssertionError("attempt %s crashed in the box: %s" % (a.name, r["crash"]))
    else:
        for fn in a._checks:
            fn(r, run)
        no_secret(run, r)
    for fn in a._hosts:
        fn(run)
