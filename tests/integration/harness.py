# SPDX-License-Identifier: Apache-2.0
"""Helpers for the bento-runtime integration tests.

Everything that starts a process goes through `spawn()`/`run_cmd()` so that
the background reaper (the test process is a child subreaper) never collects
the exit status of a process a test is still waiting for.  Output always goes
to files, never to pipes: a container keeps the runtime's stdout/stderr open
long after the runtime returned, and a pipe would then never see EOF.
"""

import copy
import ctypes
import errno
import hashlib
import json
import glob
import os
import pwd
import re
import shlex
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time

# ---------------------------------------------------------------------------
# locations

BUILD = os.path.abspath(os.environ.get("BENTO_BUILD", "/work/main/build"))
# BENTO_RUNTIME overrides the binary (a development aid: point the suite at a
# peer runtime to check the tests themselves).
RUNTIME = os.environ.get("BENTO_RUNTIME") or os.path.join(BUILD, "bin", "bento-runtime")
PROBE = os.path.join(BUILD, "tests", "bento-probe")
BUSYBOX = "/bin/busybox"

ROOTLESS_UID = 65534
ROOTLESS_GID = 65534

# Default timeout (seconds) of one runtime invocation.
CMD_TIMEOUT = 30

_libc = ctypes.CDLL(None, use_errno=True)

PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
CLONE_NEWNS = 0x00020000
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2


def _check(ret, what):
    if ret != 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))


def set_child_subreaper():
    _check(_libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl(PR_SET_CHILD_SUBREAPER)")


def is_child_subreaper():
    v = ctypes.c_int(0)
    _check(_libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(v), 0, 0, 0), "prctl(PR_GET_CHILD_SUBREAPER)")
    return v.value != 0


ORIGINAL_MNT_NS = None


def enter_private_mount_namespace():
    """Move this (still single-threaded) process into its own mount namespace
    with private propagation, so nothing a test mounts reaches the host."""
    global ORIGINAL_MNT_NS
    ORIGINAL_MNT_NS = os.stat("/proc/self/ns/mnt").st_ino
    _check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount(/, MS_REC|MS_PRIVATE)")


JOURNAL_KEY_DIR = None  # <passwd home>/.local/state/bento, on a session tmpfs once isolated


def isolate_journal_key():
    """bento keeps the key that signs its approval records under the passwd
    home, which no HOME or XDG_STATE_HOME moves, so every test that approves
    would make or use this host's real key.  Call once, in the session's
    private mount namespace: a fresh tmpfs (0700) takes the place of
    <passwd home>/.local/state/bento, or of its deepest existing ancestor
    with the rest made inside it, and dies with the session."""
    global JOURNAL_KEY_DIR
    home = pwd.getpwuid(os.geteuid()).pw_dir
    rest = [".local", "state", "bento"]
    top = home
    while rest and os.path.isdir(os.path.join(top, rest[0])) and \
            not os.path.islink(os.path.join(top, rest[0])):
        top = os.path.join(top, rest.pop(0))
    _check(_libc.mount(b"tmpfs", os.fsencode(top), b"tmpfs", 0, b"mode=0700"), "mount tmpfs on " + top)
    for part in rest:
        top = os.path.join(top, part)
        os.mkdir(top, 0o700)
    JOURNAL_KEY_DIR = top


def umount_lazy(path):
    return _libc.umount2(os.fsencode(path), MNT_DETACH) == 0


# ---------------------------------------------------------------------------
# process bookkeeping: spawn lock + orphan reaper


class Reaper:
    """Collects zombies that are our children but were not started by us
    (container inits reparented to the subreaper, double-forked helpers).

    Our own subprocess.Popen children are registered under `lock` at spawn
    time and skipped, so their statuses stay for Popen.wait()."""

    def __init__(self):
        self.lock = threading.Lock()
        self.live = set()
        self.statuses = {}  # pid -> wait status of reaped orphans
        self._stop = threading.Event()
        self._thread = None
        self.mypid = os.getpid()

    def start(self):
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="bento-reaper", daemon=True)
            self._thread.start()

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.reap_now()

    def _loop(self):
        while not self._stop.wait(0.05):
            try:
                self.reap_now()
            except Exception:  # never let the reaper die
                pass

    def _zombie_children(self):
        out = [p for p, rest in proc_stats()
               if len(rest) >= 2 and rest[0] == b"Z" and int(rest[1]) == self.mypid]
        return out

    def reap_now(self):
        with self.lock:
            for pid in self._zombie_children():
                if pid in self.live:
                    continue
                try:
                    rpid, status = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    continue
                if rpid == pid:
                    self.statuses[pid] = status

    def exit_code(self, pid, timeout=10.0):
        """Exit code (or -signal) of a reaped orphan, waiting up to timeout."""
        deadline = time.monotonic() + timeout
        while True:
            self.reap_now()
            with self.lock:
                if pid in self.statuses:
                    return os.waitstatus_to_exitcode(self.statuses[pid])
            if time.monotonic() > deadline:
                return None
            time.sleep(0.05)


REAPER = Reaper()


# The sanitizer build's options (make check-debug): a test that hands a
# process an environment of its own still passes these on, so bento,
# bento-runtime and what bento starts report the same way.
SANITIZER_VARS = ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")
# Where the sanitizers write their reports (log_path=<dir>/report): every
# file that appears there fails the test it appeared in (conftest.py).
SANITIZER_LOG_DIR = os.environ.get("BENTO_SANITIZER_LOG_DIR")
# The sanitizer build runs several times slower: a deadline that bounds a
# load test (not a behaviour) is stretched by this much there.
SANITIZER_SLOWDOWN = 5 if any(v in os.environ for v in SANITIZER_VARS) else 1


def patience(seconds):
    """A wait's deadline for this build (longer under the sanitizers)."""
    return seconds * SANITIZER_SLOWDOWN


def _without_leak_check(options):
    # LeakSanitizer stops the world with ptrace, which a process already
    # traced (strace) cannot do: it would fail every traced run.
    return ":".join([o for o in options.split(":") if o and not o.startswith("detect_leaks=")] +
                    ["detect_leaks=0"])


def sanitizer_env(env, argv=()):
    """env (None: this process') with the sanitizer options added."""
    if not any(v in os.environ for v in SANITIZER_VARS):
        return env
    out = dict(os.environ if env is None else env)
    for v in SANITIZER_VARS:
        if v in os.environ and v not in out:
            out[v] = os.environ[v]
    # strace anywhere in the command line: a wrapper may start it (the
    # observe tests run it under a helper that installs a filter first)
    if any(os.path.basename(str(a)) == "strace" for a in argv) and "ASAN_OPTIONS" in out:
        out["ASAN_OPTIONS"] = _without_leak_check(out["ASAN_OPTIONS"])
    return out


def spawn(argv, **kw):
    """subprocess.Popen registered with the reaper."""
    kw.setdefault("close_fds", True)
    kw["env"] = sanitizer_env(kw.get("env"), argv)
    with REAPER.lock:
        p = subprocess.Popen(argv, **kw)
        REAPER.live.add(p.pid)
    return p


def _forget(p):
    with REAPER.lock:
        REAPER.live.discard(p.pid)


class Result:
    def __init__(self, argv, rc, out, err, elapsed):
        self.argv = argv
        self.rc = rc
        self.out = out
        self.err = err
        self.elapsed = elapsed

    @property
    def ok(self):
        return self.rc == 0

    def json(self):
        try:
            return json.loads(self.out)
        except ValueError as e:
            raise AssertionError("stdout is not JSON (%s):\n%s" % (e, self)) from None

    def lines(self):
        return self.out.splitlines()

    def __str__(self):
        return "$ %s\n-> exit %s after %.2fs\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
            " ".join(self.argv), self.rc, self.elapsed, self.out.rstrip()[-4000:], self.err.rstrip()[-4000:])

    __repr__ = __str__


def _read_text(f):
    f.flush()
    f.seek(0)
    return f.read().decode("utf-8", "replace")


def completed_run(argv, capture_output=True, text=True, timeout=60, env=None, cwd=None,
                  check=False):
    """subprocess.run's interface through spawn(): the suite's reaper thread
    (conftest.py) would otherwise steal the exit status of an unregistered
    child and leave returncode 0."""
    p = spawn(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
              stderr=subprocess.PIPE, text=text, env=env, cwd=cwd)
    try:
        out, err = p.communicate(timeout=timeout)
    finally:
        _forget(p)
    if check and p.returncode != 0:
        raise subprocess.CalledProcessError(p.returncode, argv, out, err)
    return subprocess.CompletedProcess(argv, p.returncode, out, err)


def run_cmd(argv, timeout=CMD_TIMEOUT, env=None, stdin=None, input=None, cwd=None, pass_fds=(),
            out_path=None, err_path=None):
    """Run argv to completion with stdout/stderr in files.

    out_path/err_path: named files (appended) that outlive the call, for
    processes (containers) that keep writing after the command returned.
    On timeout the whole process group is killed and the result has rc None."""
    argv = [str(a) for a in argv]
    out = open(out_path, "a+b") if out_path else tempfile.TemporaryFile()
    err = open(err_path, "a+b") if err_path else tempfile.TemporaryFile()
    out_start = out.seek(0, os.SEEK_END)
    err_start = err.seek(0, os.SEEK_END)
    stdin_pipe = None
    if input is not None:
        # a real pipe, filled and closed before the child starts
        data = input.encode() if isinstance(input, str) else input
        assert len(data) < 60000, "input must fit in a pipe buffer"
        rfd, wfd = os.pipe()
        os.write(wfd, data)
        os.close(wfd)
        stdin = stdin_pipe = rfd
    elif stdin is None:
        stdin = subprocess.DEVNULL
    t0 = time.monotonic()
    p = spawn(argv, stdin=stdin, stdout=out, stderr=err, env=env, cwd=cwd, pass_fds=pass_fds,
              start_new_session=True)
    try:
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait(timeout=10)
            rc = None
    finally:
        _forget(p)
        if stdin_pipe is not None:
            os.close(stdin_pipe)
    elapsed = time.monotonic() - t0
    out.seek(out_start)
    err.seek(err_start)
    o = out.read().decode("utf-8", "replace")
    e = err.read().decode("utf-8", "replace")
    out.close()
    err.close()
    res = Result(argv, rc, o, e, elapsed)
    if rc is None:
        res.err += "\n[harness] TIMEOUT after %ss: process group killed" % timeout
    return res


# ---------------------------------------------------------------------------
# /proc helpers


def proc_start_time(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            data = f.read()
    except OSError:
        return None
    return int(data[data.rfind(b")") + 2:].split()[19])


def proc_state(pid):
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2:].split()[0].decode()


def proc_alive(pid, start_time=None):
    """True when pid exists, is not a zombie, and (if given) started when recorded."""
    st = proc_state(pid)
    if st is None or st in ("Z", "X"):
        return False
    if start_time is not None and proc_start_time(pid) != start_time:
        return False
    return True


def proc_status(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return out


def proc_stats():
    """(pid, fields after the command name) for every process in /proc:
    fields[0] is the state letter, [1] the parent pid, [2] the process group."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                data = f.read()
        except OSError:
            continue
        yield int(name), data[data.rfind(b")") + 2:].split()


def proc_children(pid):
    return [p for p, rest in proc_stats() if len(rest) >= 2 and int(rest[1]) == pid]


def ns_inode(pid, kind):
    return os.stat("/proc/%s/ns/%s" % (pid, kind)).st_ino


def wait_for(pred, timeout=10.0, interval=0.05, what="condition"):
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %ss waiting for %s" % (timeout, what))
        time.sleep(interval)


def _unescape_mountinfo(s):
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), s)


def host_mounts():
    """Mount points of this process' mount namespace."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            out.append(_unescape_mountinfo(fields[4]))
    return out


def mounts_under(path):
    path = os.path.realpath(path).rstrip("/")
    return [m for m in host_mounts() if m == path or m.startswith(path + "/")]


def bento_run_dirs(tmpdir):
    """bento run's private directories: /dev/shm/bento-* (all of them: take
    a set before and compare), and TMPDIR's bento-run-* when /dev/shm could
    not be used or for the Landlock-only tier's scratch."""
    return set(glob.glob("/dev/shm/bento-*")) | set(glob.glob(os.path.join(tmpdir, "bento-run-*")))


def cgroup_dirs_named(fragment, exact=False):
    """Every cgroup directory (any hierarchy) whose name contains fragment
    (or is exactly it)."""
    found = []
    base = "/sys/fs/cgroup"
    try:
        tops = os.listdir(base)
    except OSError:
        return found
    for top in tops:
        root = os.path.join(base, top)
        if not os.path.isdir(root) or os.path.islink(root):
            continue
        for dirpath, dirnames, _ in os.walk(root):
            if dirpath.count("/") - root.count("/") > 8:
                dirnames[:] = []
                continue
            for d in dirnames:
                if (d == fragment) if exact else (fragment in d):
                    found.append(os.path.join(dirpath, d))
    return found


def remove_cgroup_tree(path):
    for dirpath, dirnames, _ in sorted(os.walk(path), key=lambda t: -t[0].count("/")):
        try:
            os.rmdir(dirpath)
        except OSError:
            pass


# ---------------------------------------------------------------------------
# capabilities


CAP_NAMES = [
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
    "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE",
    "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
    "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT",
    "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME",
    "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL",
    "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
    "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
]


def cap_names(hexmask):
    v = int(hexmask, 16)
    return {CAP_NAMES[i] if i < len(CAP_NAMES) else "CAP_%d" % i for i in range(64) if v >> i & 1}


# ---------------------------------------------------------------------------
# rootfs and bundles

APPLETS = ["sh", "ash", "true", "false", "echo", "cat", "ls", "id", "env", "sleep", "mount", "umount",
           "hostname", "touch", "mkdir", "rm", "ps", "stat", "readlink", "wc", "grep", "kill", "test",
           "[", "printf", "head", "tail", "pwd", "uname", "ln", "chmod", "dd", "ip", "ifconfig", "wait"]


def build_rootfs_template(dest, probe):
    """A busybox-static root with the probe at /bin/bento-probe, readable by anyone."""
    os.makedirs(dest)
    os.chmod(dest, 0o755)
    for d in ("bin", "sbin", "usr", "usr/bin", "usr/sbin", "etc", "proc", "sys", "dev", "tmp", "root",
              "mnt", "run", "var", "home"):
        os.makedirs(os.path.join(dest, d), exist_ok=True)
        os.chmod(os.path.join(dest, d), 0o755)
    os.chmod(os.path.join(dest, "tmp"), 0o1777)
    shutil.copy2(BUSYBOX, os.path.join(dest, "bin", "busybox"))
    shutil.copy2(probe, os.path.join(dest, "bin", "bento-probe"))
    os.chmod(os.path.join(dest, "bin", "busybox"), 0o755)
    os.chmod(os.path.join(dest, "bin", "bento-probe"), 0o755)
    for a in APPLETS:
        p = os.path.join(dest, "bin", a)
        if not os.path.lexists(p):
            os.symlink("busybox", p)
    files = {
        "etc/passwd": "root:x:0:0:root:/root:/bin/sh\nuser:x:1000:1000:user:/home:/bin/sh\n"
                      "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n",
        "etc/group": "root:x:0:\ntty:x:5:\nuser:x:1000:\nnogroup:x:65534:\n",
        "etc/hosts": "127.0.0.1 localhost\n",
        "etc/hostname": "rootfs-template\n",
    }
    for rel, text in files.items():
        with open(os.path.join(dest, rel), "w") as f:
            f.write(text)
        os.chmod(os.path.join(dest, rel), 0o644)


def clone_rootfs(template, dest):
    """Per-test copy: big binaries hard-linked, everything else copied."""

    def copy(src, dst):
        if os.path.basename(src) in ("busybox", "bento-probe"):
            os.link(src, dst)
        else:
            shutil.copy2(src, dst)

    shutil.copytree(template, dest, symlinks=True, copy_function=copy)
    os.chmod(dest, 0o755)


MASKED_PATHS = ["/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
                "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware", "/sys/fs/selinux",
                "/sys/dev/block"]
READONLY_PATHS = ["/proc/asound", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]
DEFAULT_CAPS = ["CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE"]
DEFAULT_ENV = ["PATH=/bin:/sbin:/usr/bin:/usr/sbin", "TERM=xterm"]
DEFAULT_HOSTNAME = "bento-test"


def default_config(args, rootless=False):
    devpts_opts = ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]
    if not rootless:
        devpts_opts.append("gid=5")
    cfg = {
        "ociVersion": "1.0.2",
        "root": {"path": "rootfs", "readonly": True},
        "process": {
            "terminal": False,
            "args": list(args),
            "cwd": "/",
            "env": list(DEFAULT_ENV),
            "user": {"uid": 0, "gid": 0},
            "noNewPrivileges": True,
            "capabilities": {
                "bounding": list(DEFAULT_CAPS),
                "effective": list(DEFAULT_CAPS),
                "permitted": list(DEFAULT_CAPS),
                "inheritable": [],
                "ambient": [],
            },
        },
        "hostname": DEFAULT_HOSTNAME,
        "mounts": [
            {"destination": "/proc", "type": "proc", "source": "proc"},
            {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
             "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
            {"destination": "/dev/pts", "type": "devpts", "source": "devpts", "options": devpts_opts},
            {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
             "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
            {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
             "options": ["nosuid", "noexec", "nodev"]},
            {"destination": "/sys", "type": "sysfs", "source": "sysfs",
             "options": ["nosuid", "noexec", "nodev", "ro"]},
        ],
        "linux": {
            "namespaces": [{"type": t} for t in ("pid", "network", "ipc", "uts", "mount")],
            "maskedPaths": list(MASKED_PATHS),
            "readonlyPaths": list(READONLY_PATHS),
        },
    }
    if rootless:
        cfg["linux"]["namespaces"].append({"type": "user"})
        cfg["linux"]["uidMappings"] = [{"containerID": 0, "hostID": ROOTLESS_UID, "size": 1}]
        cfg["linux"]["gidMappings"] = [{"containerID": 0, "hostID": ROOTLESS_GID, "size": 1}]
    return cfg


STEP_MARK = "@@bento-step-rc="


class Step:
    """Output and exit code of one probe subcommand run by Bundle.script()."""

    def __init__(self, cmd, text, rc):
        self.cmd = cmd
        self.text = text
        self.rc = rc

    def json(self):
        try:
            return json.loads(self.text)
        except ValueError as e:
            raise AssertionError("probe %s: output is not JSON (%s): %r" % (self.cmd, e, self.text)) from None

    @property
    def line(self):
        return self.text.strip()

    def __repr__(self):
        return "<probe %s -> rc %s: %r>" % (" ".join(map(str, self.cmd)), self.rc, self.text[:300])


def parse_steps(cmds, out):
    steps, buf = [], []
    for line in out.splitlines():
        if line.startswith(STEP_MARK):
            i = len(steps)
            steps.append(Step(cmds[i] if i < len(cmds) else "?", "\n".join(buf), int(line[len(STEP_MARK):])))
            buf = []
        else:
            buf.append(line)
    return steps


class Bundle:
    """A bundle directory: rootfs/ (own copy) and config.json written from
    `self.config` (a dict the test edits) right before the runtime reads it."""

    def __init__(self, path, rootfs_template, args, rootless=False):
        self.path = path
        os.makedirs(path)
        os.chmod(path, 0o755)
        self.rootfs = os.path.join(path, "rootfs")
        clone_rootfs(rootfs_template, self.rootfs)
        self.config = default_config(args, rootless=rootless)
        self._raw = None
        self.owner = None

    # -- config editing --
    @property
    def process(self):
        return self.config["process"]

    @property
    def linux(self):
        return self.config.setdefault("linux", {})

    def set_args(self, *args):
        self.process["args"] = [str(a) for a in args]

    def probe(self, *args):
        self.set_args("/bin/bento-probe", *args)

    def script(self, *cmds):
        """Run several probe subcommands in one container through busybox sh;
        each one's output is followed by a marker line with its exit code."""
        parts = []
        for c in cmds:
            parts.append("/bin/bento-probe %s; echo \"%s$?\"" % (" ".join(shlex.quote(str(a)) for a in c),
                                                                  STEP_MARK))
        self.set_args("/bin/sh", "-c", "; ".join(parts))

    def namespaces(self):
        return [n["type"] for n in self.linux.get("namespaces", [])]

    def drop_ns(self, kind):
        self.linux["namespaces"] = [n for n in self.linux.get("namespaces", []) if n["type"] != kind]

    def set_ns(self, kind, path=None):
        self.drop_ns(kind)
        entry = {"type": kind}
        if path is not None:
            entry["path"] = path
        self.linux["namespaces"].append(entry)

    def add_mount(self, destination, type=None, source=None, options=None):
        m = {"destination": destination}
        if type is not None:
            m["type"] = type
        if source is not None:
            m["source"] = source
        if options is not None:
            m["options"] = list(options)
        self.config.setdefault("mounts", []).append(m)
        return m

    def chown_all(self, uid, gid):
        """Give the whole bundle to uid:gid.  The hard-linked binaries are
        replaced by copies first so the shared template keeps its owner."""
        for name in ("busybox", "bento-probe"):
            p = os.path.join(self.rootfs, "bin", name)
            tmp = p + ".copy"
            shutil.copy2(p, tmp)
            os.replace(tmp, p)
        for dirpath, dirnames, filenames in os.walk(self.path):
            os.lchown(dirpath, uid, gid)
            for f in dirnames + filenames:
                os.lchown(os.path.join(dirpath, f), uid, gid)
        self.owner = (uid, gid)

    def write_raw(self, data):
        """Use these exact bytes as config.json (for malformed-config tests)."""
        self._raw = data.encode() if isinstance(data, str) else data
        self.save()

    def save(self):
        p = os.path.join(self.path, "config.json")
        data = self._raw if self._raw is not None else json.dumps(self.config, indent=2).encode()
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, 0o644)
        if self.owner is not None:
            os.chown(p, *self.owner)

    def config_on_disk(self):
        with open(os.path.join(self.path, "config.json"), "rb") as f:
            return f.read()


# ---------------------------------------------------------------------------
# the runtime under test


RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
ID_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_+.-]*$")


class Runtime:
    """Runs bento-runtime with a scratch --root; remembers every container id
    and pid a test touched so the teardown can prove nothing is left."""

    def __init__(self, root, scratch, rootless=False, xdg_runtime_dir=None, use_root_option=True):
        self.binary = RUNTIME
        self.root = root
        self.scratch = scratch
        self.rootless = rootless
        self.xdg = xdg_runtime_dir
        self.use_root_option = use_root_option
        # argv put between setpriv and the runtime (rootless only), e.g.
        # `unshare -Ur` or an nsenter into a user namespace
        self.enter = []
        self.ids = []
        self.pids = {}  # cid -> (pid, start_time)
        self.bundles = []
        self._n = 0

    # -- plumbing --
    def env(self):
        env = {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "LANG": "C.UTF-8",
            # Never meant to reach a container: tests check it does not leak.
            "BENTO_HOST_ONLY_VARIABLE": "leak-check",
        }
        if self.rootless:
            env["HOME"] = self.xdg
            env["USER"] = "nobody"
            if self.xdg:
                env["XDG_RUNTIME_DIR"] = self.xdg
        else:
            env["HOME"] = "/root"
        # under check-debug: part of the environment the runtime is given
        # (hooks without an env of their own see it too)
        return sanitizer_env(env)

    def argv(self, args, global_opts=()):
        argv = []
        if self.rootless:
            argv += ["setpriv", "--reuid=%d" % ROOTLESS_UID, "--regid=%d" % ROOTLESS_GID, "--clear-groups"]
            argv += self.enter
        argv.append(self.binary)
        if self.use_root_option and self.root:
            argv += ["--root", self.root]
        argv += list(global_opts)
        argv += [str(a) for a in args]
        return argv

    def cmd(self, *args, global_opts=(), timeout=CMD_TIMEOUT, fd3=None, **kw):
        """Run the runtime.  fd3: a file opened read-only as fd 3 of the
        runtime process (for --preserve-fds and fd-leak tests)."""
        argv = self.argv(args, global_opts)
        if fd3 is not None:
            argv = ["/bin/sh", "-c", 'exec 3<"$0"; exec "$@"', fd3] + argv
        return run_cmd(argv, timeout=timeout, env=kw.pop("env", None) or self.env(), **kw)

    def new_id(self, prefix="c"):
        self._n += 1
        cid = "%s%s-%d" % (prefix, os.urandom(4).hex(), self._n)
        return cid

    def _remember(self, cid):
        if cid not in self.ids:
            self.ids.append(cid)

    def _scratch_name(self, cid):
        # ids under test may hold '/' or be empty: never use them raw as file names
        if ID_SAFE.match(cid) and len(cid) < 200:
            return cid
        return "id-" + hashlib.sha256(cid.encode()).hexdigest()[:16]

    def out_path(self, cid):
        return os.path.join(self.scratch, "%s.out" % self._scratch_name(cid))

    def err_path(self, cid):
        return os.path.join(self.scratch, "%s.err" % self._scratch_name(cid))

    def container_output(self, cid):
        try:
            with open(self.out_path(cid), "rb") as f:
                return f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def _record_pid(self, cid, pid):
        st = proc_start_time(pid)
        self.pids[cid] = (pid, st)

    # -- verbs --
    def create(self, bundle, cid, *opts, pid_file=True, cwd=None, bundle_opt=True, stdin=None, pass_fds=(),
               global_opts=(), timeout=CMD_TIMEOUT, fd3=None):
        if bundle is not None:
            bundle.save()
            if bundle not in self.bundles:
                self.bundles.append(bundle)
        self._remember(cid)
        args = ["create"]
        if bundle is not None and bundle_opt:
            args += ["--bundle", bundle.path]
        pf = None
        if pid_file:
            pf = os.path.join(self.scratch, "%s.pid" % self._scratch_name(cid))
            args += ["--pid-file", pf]
        args += list(opts)
        args.append(cid)
        res = self.cmd(*args, global_opts=global_opts, timeout=timeout, cwd=cwd, stdin=stdin, pass_fds=pass_fds,
                       fd3=fd3, out_path=self.out_path(cid), err_path=self.err_path(cid))
        res.pid = None
        if res.rc == 0 and pf:
            try:
                with open(pf) as f:
                    res.pid = int(f.read().strip())
                self._record_pid(cid, res.pid)
            except (OSError, ValueError):
                res.pid = None
        return res

    def create_ok(self, bundle, cid=None, *opts, **kw):
        cid = cid or self.new_id()
        res = self.create(bundle, cid, *opts, **kw)
        assert res.rc == 0, "create failed:\n%s" % res
        assert res.pid and res.pid > 0, "create did not write a usable pid file:\n%s" % res
        return cid, res.pid

    def start(self, cid, **kw):
        return self.cmd("start", cid, out_path=self.out_path(cid) + ".start", **kw)

    def start_ok(self, cid):
        res = self.start(cid)
        assert res.rc == 0, "start failed:\n%s" % res
        return res

    def state(self, cid, **kw):
        return self.cmd("state", cid, **kw)

    def state_json(self, cid):
        res = self.state(cid)
        assert res.rc == 0, "state failed:\n%s" % res
        return res.json()

    def status(self, cid):
        return self.state_json(cid)["status"]

    def kill(self, cid, *sig, all=False, **kw):
        args = ["kill"] + (["--all"] if all else []) + [cid] + list(sig)
        return self.cmd(*args, **kw)

    def delete(self, cid, force=False, **kw):
        args = ["delete"] + (["--force"] if force else []) + [cid]
        return self.cmd(*args, **kw)

    def terminate_and_delete(self, cid, pid):
        """SIGTERM a running container's init (which must die of it), then
        delete it: its state directory must be gone."""
        assert self.kill(cid, "TERM").rc == 0
        assert REAPER.exit_code(pid) == 143
        self.wait_status(cid, "stopped")
        res = self.delete(cid)
        assert res.rc == 0, res
        assert not os.path.exists(self.state_dir(cid)), self.state_dir(cid)

    def run(self, bundle, cid=None, *opts, timeout=CMD_TIMEOUT, stdin=None, input=None, pass_fds=(),
            global_opts=(), fd3=None):
        cid = cid or self.new_id()
        bundle.save()
        if bundle not in self.bundles:
            self.bundles.append(bundle)
        self._remember(cid)
        res = self.cmd("run", "--bundle", bundle.path, *opts, cid, global_opts=global_opts, timeout=timeout,
                       stdin=stdin, input=input, pass_fds=pass_fds, fd3=fd3,
                       out_path=self.out_path(cid), err_path=self.err_path(cid))
        res.cid = cid
        return res

    def run_probe(self, bundle, *probe_args, expect_rc=0, **kw):
        """Run the probe in a fresh container and return its stdout as JSON
        (or text when it is not JSON)."""
        bundle.probe(*probe_args)
        res = self.run(bundle, **kw)
        if expect_rc is not None:
            assert res.rc == expect_rc, "expected exit %s:\n%s" % (expect_rc, res)
        return res

    def run_script(self, bundle, *cmds, expect_rc=0, **kw):
        """Run probe subcommands in one container; returns one Step per command."""
        bundle.script(*cmds)
        res = self.run(bundle, **kw)
        if expect_rc is not None:
            assert res.rc == expect_rc, "expected exit %s:\n%s" % (expect_rc, res)
        steps = parse_steps(cmds, res.out)
        assert len(steps) == len(cmds), "expected %d probe outputs, got %d:\n%s" % (len(cmds), len(steps), res)
        return steps

    def spawn_run(self, bundle, cid, *opts):
        """`run` in the background; returns the Popen (registered)."""
        bundle.save()
        if bundle not in self.bundles:
            self.bundles.append(bundle)
        self._remember(cid)
        out = open(self.out_path(cid), "ab")
        err = open(self.err_path(cid), "ab")
        try:
            p = spawn(self.argv(["run", "--bundle", bundle.path] + list(opts) + [cid]), stdin=subprocess.DEVNULL,
                      stdout=out, stderr=err, env=self.env(), start_new_session=True)
        finally:
            out.close()
            err.close()
        return p

    def finish_spawned(self, p, timeout=CMD_TIMEOUT):
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait(timeout=10)
            rc = None
        finally:
            _forget(p)
        return rc

    def wait_status(self, cid, want, timeout=10.0):
        last = {}

        def check():
            res = self.state(cid)
            last["res"] = res
            if res.rc != 0:
                return False
            try:
                return res.json().get("status") == want
            except AssertionError:
                return False

        try:
            wait_for(check, timeout=timeout, interval=0.05, what="status %r of %s" % (want, cid))
        except AssertionError as e:
            raise AssertionError("%s; last state call:\n%s" % (e, last.get("res"))) from None

    def state_dir(self, cid):
        return os.path.join(self.root, cid)

    def wait_pid_gone(self, pid, start_time=None, timeout=10.0):
        try:
            wait_for(lambda: (REAPER.reap_now(), not proc_alive(pid, start_time))[1], timeout=timeout,
                     what="pid %d to exit" % pid)
            return True
        except AssertionError:
            return False

    # -- teardown --
    def cleanup(self):
        """Force-delete everything this test made; return the list of debris
        that the runtime itself should not have left behind."""
        problems = []
        for cid in self.ids:
            res = self.delete(cid, force=True, timeout=20)
            if res.rc != 0:
                problems.append("teardown `delete --force %s` failed:\n%s" % (cid, res))
        for cid in self.ids:
            d = self.state_dir(cid)
            if os.path.lexists(d):
                problems.append("state directory %s still exists after delete --force" % d)
                shutil.rmtree(d, ignore_errors=True)
        for cid, (pid, st) in self.pids.items():
            if not self.wait_pid_gone(pid, st, timeout=10):
                problems.append("container %s: pid %d (%s) still alive after delete --force" %
                                (cid, pid, _cmdline(pid)))
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
                self.wait_pid_gone(pid, st, timeout=5)
        for b in self.bundles:
            left = mounts_under(b.path)
            if left:
                problems.append("mounts left under bundle %s: %s" % (b.path, left))
                for m in sorted(left, key=len, reverse=True):
                    umount_lazy(m)
        for cid in self.ids:
            cg = cgroup_dirs_named(cid)
            if cg:
                problems.append("cgroups left for %s: %s" % (cid, cg))
                for c in cg:
                    remove_cgroup_tree(c)
        return problems


def _cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return "?"


def assert_nothing_left(rt, cid, bundle=None, pids_before=None):
    """After a failed create: no state dir, no new child process, no mount."""
    d = rt.state_dir(cid)
    assert not os.path.lexists(d), "failed create left its state directory %s: %s" % (
        d, os.listdir(d) if os.path.isdir(d) else "")
    if bundle is not None:
        assert mounts_under(bundle.path) == [], "failed create left mounts: %s" % mounts_under(bundle.path)
    if pids_before is not None:
        REAPER.reap_now()
        new = [p for p in proc_children(os.getpid()) if p not in pids_before and proc_alive(p)]
        # anything still alive that we did not start is a leaked container init
        with REAPER.lock:
            new = [p for p in new if p not in REAPER.live]
        assert new == [], "failed create left processes: %s" % [(p, _cmdline(p)) for p in new]
    res = rt.state(cid)
    assert res.rc != 0, "state of a container whose create failed should fail:\n%s" % res
    assert cgroup_dirs_named(cid) == [], "failed create left cgroups: %s" % cgroup_dirs_named(cid)


def expect_create_failure(rt, bundle, *opts, cid=None, message=(), global_opts=()):
    """create must fail, say why, and leave nothing behind."""
    cid = cid or rt.new_id()
    REAPER.reap_now()
    before = set(proc_children(os.getpid()))
    res = rt.create(bundle, cid, *opts, global_opts=global_opts)
    assert res.rc not in (0, None), "create should have failed:\n%s" % res
    assert res.err.strip(), "create failed without a message on stderr:\n%s" % res
    for m in ([message] if isinstance(message, str) else message):
        assert m.lower() in res.err.lower(), "stderr should mention %r:\n%s" % (m, res)
    REAPER.reap_now()
    assert_nothing_left(rt, cid, bundle, before)
    return res


def errno_name(e):
    return errno.errorcode.get(e, str(e))


def file_mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def deepcopy(x):
    return copy.deepcopy(x)


# ---------------------------------------------------------------------------
# what this host's kernel does with a foreign system call ABI

SIGSYS_EXIT = 128 + signal.SIGSYS

# getpid through each foreign entry of an x86_64 kernel, as probe arguments:
# i386 (int $0x80, number 20) and x32 (the x86_64 number, 39, with bit 30)
FOREIGN_CALLS = {"i386": "int80 20", "x32": "syscall 0x40000027"}


class ForeignAbi:
    """The host's answer to one foreign call, made by the probe directly on
    the host, outside any sandbox.

    A call the host answers (OK, or an errno such as x32's ENOSYS on a kernel
    built without CONFIG_X86_X32_ABI) went through the kernel's system call
    entry, where seccomp runs before the kernel looks at the number: inside a
    sandbox the filter's bad-architecture action kills it (SIGSYS).  A call
    the host answers with a signal never reached that entry (no ia32
    emulation: `int $0x80` is a general protection fault, SIGSEGV), so no
    filter can see it; inside it ends the same way, and still never runs."""

    def __init__(self, abi, res):
        self.abi = abi
        self.call = FOREIGN_CALLS[abi]
        self.host = res
        line = res.out.strip()
        if res.rc == 0 and line == "OK":
            self.host_answer = "runs"
        elif res.rc == 1 and re.fullmatch(r"E[A-Z0-9]+", line):
            self.host_answer = line
        elif res.rc is not None and res.rc < 0 and line == "":
            self.host_answer = signal.Signals(-res.rc).name
        else:
            raise AssertionError("the host probe of the %s ABI said something unexpected:\n%s" % (abi, res))

    @property
    def reaches_syscall_entry(self):
        return self.host.rc >= 0

    @property
    def fate(self):
        """The exit status of a sandboxed process that makes this call."""
        return SIGSYS_EXIT if self.reaches_syscall_entry else 128 - self.host.rc

    def __repr__(self):
        return "<%s %s: %s on the host>" % (self.abi, self.call, self.host_answer)


def probe_foreign_abis():
    """{abi: ForeignAbi} for this host; conftest.py's host_abis fixture runs it
    once per session."""
    return {abi: ForeignAbi(abi, run_cmd([PROBE] + call.split(), timeout=20))
            for abi, call in FOREIGN_CALLS.items()}
