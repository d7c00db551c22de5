# SPDX-License-Identifier: Apache-2.0
"""`bento run` end to end (docs/cli/bento-run.md, docs/cli/bento.md
"EXIT STATUS", docs/manifest.md "ENVIRONMENT"): approval, refusals, the --json stream, the notes printed after a
run, limits, egress refusals, Ctrl-C, and what a run leaves behind.

Every test gets its own world: a scratch HOME (with an SSH key and a
.netrc, so the credential shields have something to hide), XDG_STATE_HOME
(approve's journal), TMPDIR (where the run directory goes) and a project
directory holding the manifest and the script.  bento finds bento-runtime,
bento-exec-gate and bento-egress beside itself in $BENTO_BUILD/bin.

The static probe (tests/probe/probe.c) is copied into the project when a
test needs a raw system call, an allocation or a proxy request.

Network: the egress tests run bento inside a network namespace the test
creates (nsenter --net), joined by a veth pair to a second namespace with a
TCP echo server on 192.0.2.2; the only other destinations named are
198.51.100.7 (no rule: refused before any dial) and 127.0.0.1:9 (a rule the
upstream guard refuses, also before any dial).

The limits a host cannot apply (I2) are produced for real by running bento
as an unprivileged user, to whom no cgroup is delegated on this machine.
"""

import base64
import glob
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

import pytest

import harness
from harness import REAPER, SIGSYS_EXIT, run_cmd, wait_for

BENTO = os.path.join(harness.BUILD, "bin", "bento")

pytestmark = [pytest.mark.timeout(90)]


def prose(text):
    """stderr with the 78-column wrapping undone: continuation lines (the
    "[bento] " prefix or the refusal's 7-space indent) joined with a space."""
    return re.sub(r"\n(?:\[bento\] +|\s{2,})", " ", text)


# ---------------------------------------------------------------------------
# one test's world


class World:
    def __init__(self, test_dir):
        if not os.access(BENTO, os.X_OK):
            pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)
        self.dir = test_dir
        self.home = os.path.join(test_dir, "home")
        self.state = os.path.join(test_dir, "state")
        # short: the exec gate's socket lives in the run directory, and a
        # unix socket address holds 107 bytes (see test_deep_tmpdir)
        self.tmp = tempfile.mkdtemp(prefix="brt.", dir="/tmp")
        self.work = os.path.join(test_dir, "work")
        for d in (self.home, self.state, self.work):
            os.makedirs(d)
        os.makedirs(os.path.join(self.home, ".ssh"), mode=0o700)
        self.write(os.path.join(self.home, ".ssh", "id_rsa"), "not a real key\n", 0o600)
        self.write(os.path.join(self.home, ".netrc"), "machine example.com password x\n", 0o600)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_STATE_HOME": self.state,
                    "TMPDIR": self.tmp, "LANG": "C"}
        self.shm_before = shm_rootfs_dirs()

    def write(self, path, text, mode=0o644):
        path = path if os.path.isabs(path) else os.path.join(self.work, path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(text.encode() if isinstance(text, str) else text)
        os.chmod(path, mode)
        return path

    def manifest(self, text, script=None, name="m.yaml", script_name="s.sh"):
        """Write the manifest (and its script) into the project directory."""
        if script is not None:
            self.write(script_name, script)
        return self.write(name, text)

    def probe(self):
        dest = os.path.join(self.work, "bento-probe")
        if not os.path.exists(dest):
            with open(harness.PROBE, "rb") as src, open(dest, "wb") as out:
                out.write(src.read())
            os.chmod(dest, 0o755)
        return dest

    def bento(self, *args, cwd=None, timeout=60, env=None, wrap=(), input=None):
        e = dict(self.env)
        e.update(env or {})
        return run_cmd(list(wrap or self.wrap) + [BENTO] + [str(a) for a in args], timeout=timeout,
                       env=e, cwd=cwd or self.work, input=input)

    wrap = ()

    def become(self, uid, gid):
        """Run bento as uid:gid from now on (the world's files are handed
        over, so approve can rewrite the manifest)."""
        for top in (self.home, self.state, self.tmp, self.work):
            for dirpath, dirnames, filenames in os.walk(top):
                for n in [dirpath] + [os.path.join(dirpath, f) for f in dirnames + filenames]:
                    os.lchown(n, uid, gid)
        self.wrap = ["setpriv", "--reuid=%d" % uid, "--regid=%d" % gid, "--clear-groups"]

    def approve(self, manifest):
        res = self.bento("approve", "--yes", manifest)
        assert res.rc == 0, res
        return res

    def run(self, manifest, *flags, **kw):
        return self.bento("run", *flags, manifest, **kw)

    def run_dirs(self):
        """The runs' private directories: in /dev/shm (those made since this
        world was), or in TMPDIR when /dev/shm cannot be used."""
        return sorted(glob.glob(os.path.join(self.tmp, "bento-run-*")) +
                      list(shm_rootfs_dirs() - self.shm_before))


@pytest.fixture
def world(test_dir):
    w = World(test_dir)
    yield w
    assert not harness.mounts_under(w.tmp), harness.mounts_under(w.tmp)
    shutil.rmtree(w.tmp, ignore_errors=True)


# ---------------------------------------------------------------------------
# what a run may leave behind


def _mountinfo_unescape(s):
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), s)


def my_cgroup_dirs(private_only=False):
    """This process' cgroup directory in every hierarchy: each v1 controller
    (and name=systemd) and the unified one.  private_only: only those below
    a hierarchy's root (the root is shared with whatever else runs here)."""
    mounts = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            pre, _, post = line.partition(" - ")
            fstype, _, opts = post.split()[:3]
            if fstype in ("cgroup", "cgroup2"):
                mounts.append((fstype, set(opts.split(",")), _mountinfo_unescape(pre.split()[4])))
    dirs = []
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, ctrls, path = line.rstrip("\n").split(":", 2)
            want = set(c for c in ctrls.split(",") if c)
            for fstype, opts, mp in mounts:
                if (not want and fstype == "cgroup2") or (want and fstype == "cgroup" and want <= opts):
                    if private_only and path == "/":
                        continue
                    d = os.path.normpath(mp + path)
                    if os.path.isdir(d) and d not in dirs:
                        dirs.append(d)
    assert dirs or private_only, "no cgroup hierarchy found for this process"
    return dirs


def cgroup_children():
    out = set()
    for d in my_cgroup_dirs():
        for name in os.listdir(d):
            if os.path.isdir(os.path.join(d, name)):
                out.add(os.path.join(d, name))
    return out


def mountinfo():
    with open("/proc/self/mountinfo") as f:
        return sorted(f.read().splitlines())


def processes_mentioning(*fragments):
    """Live processes whose command line mentions one of fragments (the
    test's directory: the script path; its TMPDIR: the run directory,
    --root)."""
    found = []
    me = os.getpid()
    for pid, _ in harness.proc_stats():
        if pid == me or not harness.proc_alive(pid):
            continue
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if any(f in cmd for f in fragments):
            found.append((pid, cmd))
    return found


def tree(path):
    """Every path under path (relative), with its type."""
    out = []
    for dirpath, dirnames, filenames in os.walk(path):
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            out.append((os.path.relpath(p, path), "d" if os.path.isdir(p) else "f"))
    return sorted(out)


def shm_rootfs_dirs():
    """bento run's directories in /dev/shm: the bundle, the root filesystem,
    the runtime's state and the gate's socket (translate/run/dir.c)."""
    return set(glob.glob("/dev/shm/bento-*"))


class Debris:
    """Snapshots before a run, what exists during it, and the check that the
    run removed all of it."""

    def __init__(self, world, watch=()):
        self.w = world
        self.watch = list(watch)
        REAPER.reap_now()
        self.cgroups = cgroup_children()
        self.mounts = mountinfo()
        self.trees = {p: tree(p) if os.path.isdir(p) else None for p in self.watch}
        self.existed = {p: os.path.lexists(p) for p in self.watch}
        self.shm = shm_rootfs_dirs()
        self.run_shm = set()  # the run's own /dev/shm directory, seen while it ran
        assert processes_mentioning(world.dir, world.tmp) == []
        assert world.run_dirs() == []
        self.ids = []
        self.pidns = set()

    def during(self):
        """Record the sandbox while it runs (call once the script has
        started): its container ids and its pid namespace."""
        dirs = wait_for(self.w.run_dirs, timeout=20, what="the run directory")
        # bento-run-XXXXXX or bento-XXXXXX: the sandbox is bento-run-XXXXXX
        self.ids = ["bento-run-" + os.path.basename(d).rsplit("-", 1)[1] for d in dirs]
        self.run_shm |= shm_rootfs_dirs() - self.shm
        mine = harness.ns_inode("self", "pid")
        for pid, _ in processes_mentioning(self.w.dir):
            try:
                ns = harness.ns_inode(pid, "pid")
            except OSError:
                continue
            if ns != mine:
                self.pidns.add(ns)
        assert self.pidns, "the sandbox's processes were not found"
        return self.ids

    def in_sandbox_pidns(self):
        """Live processes in a pid namespace the sandbox had (a `sleep` the
        script started does not mention the test's directory)."""
        left = []
        for pid, _ in harness.proc_stats():
            try:
                if harness.ns_inode(pid, "pid") in self.pidns and harness.proc_alive(pid):
                    left.append((pid, harness._cmdline(pid)))
            except OSError:
                continue
        return left

    def assert_clean(self, created_ok=()):
        REAPER.reap_now()
        problems = []
        # the runtime and the gate are named by their paths in the run's
        # /dev/shm directory (--root, the socket), not by the run directory
        run_shm = self.run_shm | (shm_rootfs_dirs() - self.shm)
        left = processes_mentioning(self.w.dir, self.w.tmp, *run_shm) + self.in_sandbox_pidns()
        if left:
            problems.append("processes: %s" % left)
        if self.w.run_dirs():
            problems.append("run directories: %s" % self.w.run_dirs())
        if shm_rootfs_dirs() - self.shm:
            problems.append("root filesystems: %s" % sorted(shm_rootfs_dirs() - self.shm))
        # A new bento-run-* cgroup is this run's when it carries one of the
        # ids seen while it ran, or sits below a cgroup of this test session
        # of its own; at a hierarchy's root other sessions' runs come and go.
        private = set(my_cgroup_dirs(private_only=True))
        new_cg = sorted(c for c in cgroup_children() - self.cgroups
                        if "bento-run-" in os.path.basename(c) and
                        (any(i in c for i in self.ids) or os.path.dirname(c) in private))
        if new_cg:
            problems.append("cgroups: %s" % new_cg)
        for cid in self.ids:
            named = harness.cgroup_dirs_named(cid)
            if named:
                problems.append("cgroups named %s: %s" % (cid, named))
            if os.path.lexists(os.path.join("/run/bento-runtime", cid)):
                problems.append("state directory /run/bento-runtime/%s" % cid)
        if mountinfo() != self.mounts:
            problems.append("mounts changed:\n  -%s\n  +%s" % (
                sorted(set(self.mounts) - set(mountinfo())), sorted(set(mountinfo()) - set(self.mounts))))
        for p in self.watch:
            if p in created_ok:
                continue
            if not self.existed[p] and os.path.lexists(p):
                problems.append("created %s" % p)
            elif self.trees[p] is not None and tree(p) != self.trees[p]:
                problems.append("%s changed: %s -> %s" % (p, self.trees[p], tree(p)))
        assert not problems, "the run left things behind:\n" + "\n".join(problems)


# ---------------------------------------------------------------------------
# B. fingerprint: approval is policy, checked before resolution


def test_b5_relative_grant_runs_from_another_cwd(world):
    """B5: approved with `read: [./data]`, run from another directory with a
    relative manifest path: still approved, and ./data resolves against the
    manifest's directory (the script reads it)."""
    world.write("data/x.txt", "payload-b5\n")
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nread: [./data]\n",
                       script="read line < ./data/x.txt && echo \"got $line\"\n")
    world.approve(m)
    elsewhere = os.path.join(world.dir, "elsewhere")
    os.makedirs(elsewhere)
    res = world.run(os.path.relpath(m, elsewhere), cwd=elsewhere)
    assert res.rc == 0, res
    assert "got payload-b5" in res.out
    assert "not approved" not in res.err and "refusing" not in res.err


def test_deep_tmpdir(world):
    """A TMPDIR too deep for a unix socket address (the exec gate listens
    in the run directory) must not break an exec-blocked run."""
    deep = os.path.join(world.dir, "t" * 60, "tmp")
    os.makedirs(deep)
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="echo ran\nexit 6\n")
    world.approve(m)
    res = world.run(m, env={"TMPDIR": deep})
    assert res.rc == 6, res
    assert res.out == "ran\n"
    assert os.listdir(deep) == []


def shm_is_tmpfs():
    return any(line.split(" - ")[1].split()[0] == "tmpfs"
               for line in open("/proc/self/mountinfo") if line.split()[4] == "/dev/shm")


def without_shm(world):
    """A wrapper that runs bento in a mount namespace of its own whose
    /dev/shm is a directory on the test's (disk) file system, so that the
    run's files go to TMPDIR."""
    disk = os.path.join(world.dir, "not-shm")
    os.makedirs(disk, exist_ok=True)
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            'mount --bind "$0" /dev/shm && exec "$@"', disk]


def tmpdir_inside_a_grant(world, grant):
    """A manifest granting (grant: read or write) a directory that holds
    TMPDIR, whose script says any run directory it can see."""
    # short enough for the exec gate's socket address (see test_deep_tmpdir)
    granted = os.path.join(world.tmp, "g")
    inside = os.path.join(granted, "t")
    os.makedirs(inside)
    script = ('for d in "%s"/* /tmp/bento-run-* /dev/shm/bento-*; do [ -e "$d" ] && echo "SEEN $d"; done\n'
              'exit 0\n') % inside
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n%s: [\"%s\"]\n" % (grant, granted),
                       script=script)
    world.approve(m)
    return m, granted, inside


@pytest.mark.parametrize("grant", ["write", "read"])
def test_run_directory_stays_out_of_the_sandboxs_reach(world, grant):
    """A TMPDIR inside a grant is bind-mounted into the sandbox with it:
    the program could rewrite the runtime's log and state or reach the exec
    gate's socket.  When the run's files cannot go on /dev/shm, bento puts
    its run directory in /tmp then (which the sandbox replaces with its
    own), and says so."""
    m, granted, inside = tmpdir_inside_a_grant(world, grant)
    before = set(glob.glob("/tmp/bento-run-*"))
    res = world.bento("run", m, env={"TMPDIR": inside}, wrap=without_shm(world))
    assert res.rc == 0, res
    assert "SEEN" not in res.out, res
    assert os.listdir(inside) == []
    text = prose(res.err)
    assert 'TMPDIR "%s" lies inside the grant "%s"' % (inside, granted) in text, res
    assert "goes in /tmp instead" in text, res
    assert set(glob.glob("/tmp/bento-run-*")) == before, "the run directory in /tmp was left"


@pytest.mark.skipif(not shm_is_tmpfs(), reason="/dev/shm is not a tmpfs on this host")
@pytest.mark.parametrize("grant", ["write", "read"])
def test_run_with_its_files_on_shm_makes_nothing_in_tmpdir(world, grant):
    """With /dev/shm a tmpfs, the run's files all live there: nothing is
    made in TMPDIR (a disk directory would cost a journaled mkdir and an
    rmdir with a discard every run), so a TMPDIR inside a grant needs no
    detour and no note, and the sandbox sees no run directory anywhere."""
    m, granted, inside = tmpdir_inside_a_grant(world, grant)
    before = set(glob.glob("/tmp/bento-run-*"))
    debris = Debris(world)
    res = world.run(m, env={"TMPDIR": inside})
    assert res.rc == 0, res
    assert "SEEN" not in res.out, res
    assert os.listdir(inside) == []
    assert "TMPDIR" not in res.err, res
    assert set(glob.glob("/tmp/bento-run-*")) == before
    debris.assert_clean()


def test_run_directory_outside_the_grants_is_used_as_it_is(world):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nwrite: [out]\n",
                       script="exit 0\n")
    world.approve(m)
    res = world.run(m)
    assert res.rc == 0, res
    assert "TMPDIR" not in res.err, res


def test_root_filesystem_lives_on_tmpfs_and_goes_away(world):
    """The sandbox's root filesystem (only mount points and the merged-/usr
    links), the bundle and the runtime's state, log and report are in a
    private directory in /dev/shm when that is a tmpfs, so they cost no disk
    writes; it is bento's alone
    (0700, its owner) while the run lasts, holds the mount points the
    runtime made, and is gone afterwards - also after a cancelled run."""
    shm_tmpfs = shm_is_tmpfs()
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nread: [.]\nexec: all\n",
                       script="echo started\nsleep 30\n")
    world.approve(m)
    debris = Debris(world)
    p, out, err = _start(world, m)
    try:
        wait_for(lambda: _said(out, "started"), timeout=20, what="the script")
        debris.during()
        new = sorted(shm_rootfs_dirs() - debris.shm)
        if not shm_tmpfs:  # then the rootfs stays in the bundle
            assert new == [] and os.path.isdir(os.path.join(world.run_dirs()[0], "bundle", "rootfs"))
            return
        assert len(new) == 1, new
        st = os.lstat(new[0])
        assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700, oct(st.st_mode)
        assert st.st_uid == os.getuid()
        assert {"bundle", "rootfs", "state"} <= set(os.listdir(new[0])), os.listdir(new[0])
        assert set(os.listdir(new[0])) <= {"bundle", "rootfs", "state", "runtime.log", "hooks.log",
                                           "report.json", "exec-gate.sock", "egress.jsonl"}, \
            os.listdir(new[0])
        made = set(os.listdir(os.path.join(new[0], "rootfs")))
        assert {"proc", "dev", "tmp", "usr"} <= made, made
        assert os.listdir(os.path.join(new[0], "state"))  # the runtime's record
        with open(os.path.join(world.dir, "run.err")) as f:
            assert "rootfs" not in f.read()
    finally:
        _stop(p)
    assert p.returncode == 125, _read(err)
    debris.assert_clean()


def test_b6_changed_script_stays_approved(world):
    """B6: the approval covers the policy, not the script's code."""
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="echo first\n")
    world.approve(m)
    world.write("s.sh", "echo second; exit 4\n")
    res = world.run(m)
    assert res.rc == 4, res
    assert res.out == "second\n"
    assert "refusing" not in res.err


# ---------------------------------------------------------------------------
# C. approval lifecycle


def test_c4_edited_after_approval_is_refused(world):
    os.makedirs(os.path.join(world.work, "more"))
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="echo ran; exit 5\n")
    world.approve(m)
    with open(m, "a") as f:
        f.write("read: [./more]\n")
    res = world.run(m)
    assert res.rc == 125, res
    assert res.out == ""
    assert "ran" not in res.out
    assert "permissions changed since it was approved" in prose(res.err)
    assert prose(res.err).startswith("bento: refusing to run: ")
    res = world.run(m, "--allow-unapproved")
    assert res.rc == 5, res
    assert res.out == "ran\n"


def test_c6_unapproved_is_refused_human_and_json(world):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="echo ran\n")
    res = world.run(m)
    assert res.rc == 125, res
    assert res.out == ""
    text = prose(res.err)
    assert text.startswith("bento: refusing to run: the manifest is not approved; "), res
    assert "bento approve" in text and "--allow-unapproved" in text

    res = world.run(m, "--json")
    assert res.rc == 125, res
    lines = res.out.splitlines()
    assert len(lines) == 1, res
    ev = json.loads(lines[0])
    assert list(ev) == ["event", "reason", "report"], ev
    assert ev["event"] == "refusal"
    assert ev["reason"].startswith("refusing to run: the manifest is not approved; "), ev
    assert "bento approve" in ev["reason"] and "--allow-unapproved" in ev["reason"]
    assert ev["report"] == {"layers": [], "fully_enforced": False}
    assert json.dumps(ev["report"], separators=(",", ":")) in lines[0]  # compact

    res = world.run(m, "--allow-unapproved")
    assert res.rc == 0, res
    assert res.out == "ran\n"


# ---------------------------------------------------------------------------
# D. the run CLI contract


def test_d1_target_exit_code_passes_through(world):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="exit 7\n")
    world.approve(m)
    assert world.run(m).rc == 7


def test_d2_strict_and_allow_degraded_are_opposites(world):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="exit 0\n")
    world.approve(m)
    res = world.run(m, "--strict", "--allow-degraded")
    assert res.rc == 125, res
    assert "--strict and --allow-degraded are opposites" in prose(res.err)
    res = world.run(m, "--json", "--strict", "--allow-degraded")
    assert res.rc == 125, res
    ev = json.loads(res.out)
    assert ev["event"] == "refusal"
    assert "--strict and --allow-degraded are opposites" in ev["reason"]
    assert ev["report"] == {"layers": [], "fully_enforced": False}


def test_d3_bad_env_flags(world):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nenv: [ALLOWED]\n", script="echo ran\n")
    world.approve(m)
    for flag, words in (("NOTAPAIR", "want NAME=VALUE"), ("=v", "want NAME=VALUE"),
                        ("OTHER=v", "not in the manifest's env allowlist")):
        res = world.run(m, "--env", flag)
        assert res.rc == 125, res
        assert words in prose(res.err), res
        assert "ran" not in res.out
        res = world.run(m, "--json", "--env", flag)
        assert res.rc == 125, res
        ev = json.loads(res.out)
        assert ev["event"] == "refusal" and words in ev["reason"], ev
        assert ev["report"] == {"layers": [], "fully_enforced": False}
    # step 3 comes before the manifest is read (and its approval checked)
    res = world.run(world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", name="unapproved.yaml"),
                    "--env", "NOTAPAIR")
    assert res.rc == 125, res
    assert "want NAME=VALUE" in res.err and "not approved" not in res.err


def test_d4_d5_env_allowlist(world):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nenv: [FOO]\n",
                       script="echo \"FOO=${FOO-unset}\"\necho \"BAR=${BAR-unset}\"\n")
    world.approve(m)
    res = world.run(m, env={"BAR": "leaked"})
    assert res.rc == 0, res
    assert "[bento] note: env FOO is allowed by the manifest but not set on this host;" in res.err
    assert res.out == "FOO=unset\nBAR=unset\n"
    res = world.run(m, "--env", "FOO=bar")
    assert res.rc == 0, res
    assert res.out == "FOO=bar\nBAR=unset\n"
    assert "not set on this host" not in res.err


def test_env_flag_with_an_equals_sign(world):
    """--env=NAME=VALUE is --env NAME=VALUE (bundle/argv.c): the value, up
    to its own '=', reaches the target; a name outside the allowlist is
    still refused in that spelling."""
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nenv: [HOME, FOO]\n",
                       script="echo \"HOME=$HOME\"\necho \"FOO=${FOO-unset}\"\n")
    world.approve(m)
    res = world.run(m, "--env=HOME=x", "--env=FOO=a=b")
    assert res.rc == 0, res
    assert res.out == "HOME=x\nFOO=a=b\n", res
    res = world.bento("run", m, "--env=OTHER=v")
    assert res.rc == 125 and "not in the manifest's env allowlist" in prose(res.err), res
    assert "HOME=" not in res.out


def events(res):
    return [json.loads(line) for line in res.out.splitlines()]


def test_d6_json_event_stream(world):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n",
                       script="printf 'hi\\n'\necho err >&2\nexit 3\n")
    world.approve(m)
    res = world.run(m, "--json")
    assert res.rc == 3, res
    evs = events(res)
    assert {"event": "stdout", "data": "aGkK"} in evs
    assert {"event": "stderr", "data": "ZXJyCg=="} in evs
    last = evs[-1]
    assert last["event"] == "verdict" and last["exit_code"] == 3
    assert last["egress_connections"] == 0
    assert "signal" not in last
    layers = {l["layer"]: l for l in last["report"]["layers"]}
    assert layers["filesystem"]["state"] == "enforced" and layers["filesystem"]["tier"] == "core"
    assert "exec-block" in layers
    assert last["report"]["fully_enforced"] is True
    assert all(e["event"] in ("stdout", "stderr") for e in evs[:-1])
    # compact: one object per line, no whitespace between tokens
    for line in res.out.splitlines():
        assert line == json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False), line
    # the human notes are not printed in JSON mode
    assert "[bento]" not in res.err


def test_json_stream_that_cannot_be_written(world):
    """docs/cli/bento-run.md, "JSON OUTPUT": stdout failing part way (a full device; a reader that went
    away) is reported on stderr and ends in 125 whatever the target's code,
    and the run is still cleaned up (no SIGPIPE death mid-run)."""
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n",
                       script="i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done\nexit 3\n")
    world.approve(m)
    debris = Debris(world)
    with open("/dev/full", "wb") as full:
        p = harness.spawn([BENTO, "run", "--json", m], stdin=subprocess.DEVNULL, stdout=full,
                          stderr=subprocess.PIPE, env=world.env, cwd=world.work)
        _, err = p.communicate(timeout=60)
    harness._forget(p)
    assert p.returncode == 125, err
    assert b"[bento] the JSON event stream could not be written (No space left on device), so " \
           b"what is on stdout is truncated - the outcome is not reported there." in err
    debris.assert_clean()

    rfd, wfd = os.pipe()
    os.close(rfd)  # nobody will ever read
    try:
        p = harness.spawn([BENTO, "run", "--json", m], stdin=subprocess.DEVNULL, stdout=wfd,
                          stderr=subprocess.PIPE, env=world.env, cwd=world.work)
    finally:
        os.close(wfd)
    _, err = p.communicate(timeout=60)
    harness._forget(p)
    assert p.returncode == 125, (p.returncode, err)
    assert b"could not be written (Broken pipe)" in err
    debris.assert_clean()


def test_stdin_passes_through_but_not_under_json(world):
    """docs/cli/bento-run.md, "WHAT RUN DOES, IN ORDER": stdin is the caller's; under --json the target gets none."""
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n",
                       script="if read x; then echo \"got:$x\"; else echo eof; fi\n")
    world.approve(m)
    res = world.run(m, input="secret-line\n")
    assert res.rc == 0, res
    assert res.out == "got:secret-line\n"
    res = world.run(m, "--json", input="secret-line\n")
    assert res.rc == 0, res
    out = b"".join(base64.b64decode(e["data"]) for e in events(res) if e["event"] == "stdout")
    assert out == b"eof\n"


def test_a_script_given_instead_of_a_manifest(world):
    """docs/cli/bento-run.md: a script passed by mistake is named as such, with the
    manifest beside it suggested when there is one."""
    world.write("tool.sh", "#!/bin/sh\necho hi\n", 0o755)
    res = world.run("tool.sh")
    assert res.rc == 125, res
    assert "tool.sh looks like a script, not a manifest." in prose(res.err)
    assert res.out == ""
    world.write("tool.sh.manifest.yaml", "entrypoint: ./tool.sh\ninterpreter: sh\n")
    res = world.run("tool.sh", "--json")
    assert res.rc == 125, res
    ev = json.loads(res.out)
    assert ev["event"] == "refusal"
    assert ev["reason"] == "tool.sh looks like a script, not a manifest. Did you mean tool.sh.manifest.yaml?"


def test_d7_json_carries_raw_bytes(world):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="printf '\\377\\376'\n")
    world.approve(m)
    res = world.run(m, "--json")
    assert res.rc == 0, res
    out = b"".join(base64.b64decode(e["data"]) for e in events(res) if e["event"] == "stdout")
    assert out == b"\xff\xfe"
    assert events(res)[-1]["event"] == "verdict"


def test_d8_json_usage_error_is_a_refusal_event(world):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="echo ran\n")
    res = world.run(m, "--json", "--bogus")
    assert res.rc == 125, res
    lines = res.out.splitlines()
    assert len(lines) == 1, res
    ev = json.loads(lines[0])
    assert ev["event"] == "refusal" and ev["reason"]
    assert ev["report"] == {"layers": [], "fully_enforced": False}


@pytest.mark.parametrize("spelling", ["--run-id ID", "--run-id=ID"])
def test_d10_run_id(world, spelling):
    def flag(rid):
        return spelling.replace("ID", rid).split(" ")

    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="echo ran\n")
    world.approve(m)
    res = world.run(m, *flag("bad-id!"))
    assert res.rc == 125, res
    assert "must be 1-64 characters of letters, digits, or underscore" in prose(res.err)
    res = world.run(m, *flag("job_1"))
    assert res.rc == 125, res
    assert "sets no resource limits" in prose(res.err)
    assert res.out == ""


def test_i4_run_id_names_the_sandbox_cgroup(world):
    """A valid --run-id on a manifest with limits (given as --run-id=ID):
    the sandbox's cgroup is named after it while it runs, and gone
    afterwards."""
    rid = "job_" + os.urandom(4).hex()
    os.makedirs(os.path.join(world.work, "ws"))
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nwrite: [./ws]\n"
                       "limits: {pids: 32}\n",
                       script="echo started\ni=0; while [ ! -e ws/go ] && [ $i -lt 300 ]; do "
                              "sleep 0.1; i=$((i+1)); done\n")
    world.approve(m)
    p, out, err = _start(world, m, "--run-id=" + rid)
    try:
        wait_for(lambda: _said(out, "started"), timeout=30, what="the script to start")
        named = harness.cgroup_dirs_named("bento-run-" + rid)
        assert named, "no cgroup named after the run id"
        assert any("/pids/" in d for d in named), named
        world.write(os.path.join(world.work, "ws", "go"), "")
        rc = p.wait(timeout=30)
    finally:
        _stop(p)
    assert rc == 0, _read(err)
    assert harness.cgroup_dirs_named("bento-run-" + rid) == []


def _sandbox_cgroups(world, limits):
    """The cgroup lines (hierarchy:controllers:path, as this process sees
    them) of a running target's shell, and of bento's caller, for a
    manifest with the given limits: block."""
    os.makedirs(os.path.join(world.work, "ws"), exist_ok=True)
    if os.path.exists(os.path.join(world.work, "ws", "go")):
        os.unlink(os.path.join(world.work, "ws", "go"))
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nwrite: [./ws]\n" + limits,
                       script="echo started\ni=0; while [ ! -e ws/go ] && [ $i -lt 300 ]; do "
                              "sleep 0.1; i=$((i+1)); done\n")
    world.approve(m)
    script = os.path.join(world.work, "s.sh")
    p, out, err = _start(world, m)
    try:
        wait_for(lambda: _said(out, "started"), timeout=30, what="the script to start")
        shells = [pid for pid, cmd in processes_mentioning(script) if cmd.startswith("/usr/bin/dash")
                  or cmd.startswith("sh ") or "/sh " in cmd]
        assert shells, processes_mentioning(script)
        with open("/proc/%d/cgroup" % shells[0]) as f:
            target = sorted(f.read().splitlines())
        world.write(os.path.join(world.work, "ws", "go"), "")
        rc = p.wait(timeout=30)
    finally:
        _stop(p)
    assert rc == 0, _read(err)
    with open("/proc/self/cgroup") as f:
        caller = sorted(f.read().splitlines())
    return target, caller


def test_a_run_without_limits_gets_no_cgroup_of_its_own(world):
    """Nothing to cap: bento-runtime is asked for no cgroup (--cgroup-manager
    disabled), so the target stays in its caller's cgroups (the PID
    namespace is what holds the sandbox together); with a limit it gets one
    of its own, and nothing is left of it afterwards."""
    before = cgroup_children()
    target, caller = _sandbox_cgroups(world, "")
    assert target == caller, (target, caller)
    target, caller = _sandbox_cgroups(world, "limits: {pids: 32}\n")
    pids = [line for line in target if ":pids:" in line or line.startswith("0::")]
    assert pids and all(line not in caller for line in pids), (target, caller)
    assert cgroup_children() - before == set()


def test_a_runtime_failure_on_a_capable_host_is_not_called_a_refusal(world, tmp_path):
    """Admission leaves the namespaces to bento-runtime (docs/cli/bento-run.md,
    "ADMISSION").  When bento-runtime fails before the target starts and the
    full probe finds the host able, the run is not refused in the host's
    name: bento-runtime's own failure is reported, and nothing is left."""
    wrapper = tmp_path / "failing-runtime"
    wrapper.write_text("#!/bin/sh\n"
                       "for a; do [ \"$a\" = run ] && exit 1; done\n"
                       "exec %s \"$@\"\n" % os.path.join(harness.BUILD, "bin", "bento-runtime"))
    wrapper.chmod(0o755)
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="echo ran\n")
    world.approve(m)
    res = world.bento("run", m, env={"BENTO_RUNTIME": str(wrapper)})
    assert res.rc == 125, res
    assert "ran" not in res.out
    assert "refusing to run" not in res.err, res
    assert "bento-runtime" in res.err, res
    assert world.run_dirs() == []
    res = world.bento("run", "--json", m, env={"BENTO_RUNTIME": str(wrapper)})
    assert res.rc == 125, res
    events = [json.loads(line) for line in res.out.splitlines()]
    assert [e["event"] for e in events] == ["failed"], events


def test_d11_d12_usage(world):
    res = world.bento("run")
    assert res.rc == 125, res
    assert "run needs a manifest path" in res.err
    assert "usage: bento run" in res.err
    res = world.bento("nosuchcmd")
    assert res.rc == 125, res
    assert "Run `bento --help` to see the commands." in res.err


def test_d13_write_grant_that_is_a_file(world):
    world.write("out", "i am a file\n")
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nwrite: [./out]\n", script="echo ran\n")
    res = world.run(m, "--allow-unapproved")  # approve itself refuses this grant
    assert res.rc == 125, res
    assert 'write grant "%s/out" is a file; grant its parent directory instead' % world.work in prose(res.err)
    assert res.out == ""


# ---------------------------------------------------------------------------
# I. limits


def test_i1_memory_hog_is_killed_and_the_limits_named(world):
    world.probe()
    m = world.manifest("entrypoint: ./bento-probe\nargs: [hog, \"512\"]\nexec: none-strict\n"
                       "limits: {memory: 32M, pids: 32}\n")
    world.approve(m)
    res = world.run(m, timeout=60)
    assert res.rc == 137, res
    assert "OK 512" not in res.out
    text = prose(res.err)
    assert "signal 9 (SIGKILL)" in text, res
    assert "the manifest declares limits (memory 32M, pids 32)" in text, res
    assert "exceeding one kills the run" in text, res

    res = world.run(m, "--json", timeout=60)
    assert res.rc == 137, res
    v = events(res)[-1]
    assert v["event"] == "verdict" and v["exit_code"] == 137 and v["signal"] == 9
    layers = {l["layer"]: l["state"] for l in v["report"]["layers"]}
    assert layers["limits-memory"] == "enforced" and layers["limits-pids"] == "enforced"


def test_i2_limits_this_host_cannot_apply(world, rootless_supported):
    """I2, for real: as an unprivileged user no cgroup is delegated here, so
    a memory limit cannot be applied.  Default: refused with both ways out;
    --strict: refused, only dropping `limits:` offered; --allow-degraded:
    runs unbounded (the target's own code) and says what was not enforced."""
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nlimits: {memory: 64M}\n",
                       script="echo ran\nexit 4\n")
    # Approved before becoming nobody: its passwd home (/nonexistent) has no
    # room for the journal key, so nobody's own approve cannot record.
    world.approve(m)
    world.become(harness.ROOTLESS_UID, harness.ROOTLESS_GID)
    res = world.run(m)
    assert res.rc == 125, res
    text = prose(res.err)
    assert "the manifest requests resource limits this host cannot enforce; running unbounded " \
           "could exhaust host resources" in text, res
    assert "limits-memory (unavailable):" in text
    assert "pass --allow-degraded and the script runs unbounded, or drop `limits:`" in text
    assert res.out == ""

    res = world.run(m, "--strict")
    assert res.rc == 125, res
    text = prose(res.err)
    assert "strict mode requires every layer to be fully enforced" in text, res
    assert "drop `limits:`" in text and "pass --allow-degraded" not in text

    res = world.run(m, "--allow-degraded")
    assert res.rc == 4, res  # not a shortfall: the posture waived the cap
    assert res.out == "ran\n"
    text = prose(res.err)
    assert "this host does not enforce everything your policy asked for:" in text
    assert "limits-memory (hardening tier): unavailable" in text
    assert "withheld" not in text

    res = world.run(m, "--allow-degraded", "--json")
    assert res.rc == 4, res
    v = events(res)[-1]
    assert v["exit_code"] == 4 and "posture_shortfall" not in v, v
    layers = {l["layer"]: l["state"] for l in v["report"]["layers"]}
    assert layers["limits-memory"] == "unavailable" and v["report"]["fully_enforced"] is False
    assert world.run_dirs() == []


def test_pids_limit_stops_a_fork_bomb(world):
    world.probe()
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nread: [./bento-probe]\n"
                       "limits: {pids: 16}\n",
                       script="./bento-probe forks 200\n")
    world.approve(m)
    res = world.run(m, timeout=60)
    assert res.rc == 0, res
    got = json.loads(res.out.strip().splitlines()[-1])
    # sh and the probe count too: at most 16 tasks in the sandbox
    assert 0 < got["forked"] <= 14, got
    assert got["errno"] == "EAGAIN", got


# ---------------------------------------------------------------------------
# the notes after a run (docs/cli/bento-run.md, "OUTPUT", docs/manifest.md, "ENVIRONMENT")


def test_note_exec_hint_after_126(world):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="ls /\n")
    world.approve(m)
    res = world.run(m)
    assert res.rc == 126, res
    text = prose(res.err)
    assert "exit 126 is the shell's \"could not execute\" code" in text
    assert "This manifest runs under exec: none" in text
    assert "Set `exec: all`" in text
    assert "denials look like" not in text  # no legend after the exec hint


def test_note_path_after_127(world):
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\n", script="no_such_tool_b3nto\n")
    world.approve(m)
    res = world.run(m)
    assert res.rc == 127, res
    text = prose(res.err)
    assert "/usr/bin:/bin" in text
    assert "add PATH to `env:`" in text and "`read:`" in text and "absolute path" in text
    # PATH passed through: the note is not printed
    m2 = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nenv: [PATH]\n", name="m2.yaml")
    world.approve(m2)
    res = world.run(m2)
    assert res.rc == 127, res
    assert "PATH in the sandbox" not in prose(res.err)


def test_note_path_shadow(world):
    """Item 5: PATH passed through with a host directory the box does not
    carry; a command there that /usr/bin also has resolves to /usr/bin's
    copy inside.  Granting the directory removes the note."""
    tools = os.path.join(world.work, "tools")
    world.write(os.path.join(tools, "cat"), "#!/bin/sh\necho host-cat\n", 0o755)
    world.write(os.path.join(tools, "only-here"), "#!/bin/sh\n", 0o755)
    env = {"PATH": tools + ":/usr/bin:/bin"}
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nenv: [PATH]\n",
                       script="cat /dev/null && echo box-cat\n")
    world.approve(m)
    res = world.run(m, env=env)
    assert res.rc == 0, res
    assert res.out == "box-cat\n"  # inside, cat was /usr/bin/cat
    text = prose(res.err)
    assert "note: PATH is passed through, but the box does not carry every directory on it" in text
    assert '[bento]   "cat" resolves to "/usr/bin/cat" in the box, not "%s/cat"' % tools in res.err
    assert "only-here" not in res.err  # nothing in the box to resolve to instead
    assert '[bento]   "%s"' % tools in res.err
    res = world.run(m, "--json", env=env)
    assert res.rc == 0, res
    assert events(res)[-1]["shadowed_path_dirs"] == [tools]

    m2 = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nenv: [PATH]\nread: [./tools]\n",
                        name="m2.yaml")
    world.approve(m2)
    res = world.run(m2, env=env)
    assert res.rc == 0, res
    assert res.out == "host-cat\nbox-cat\n"  # the granted copy ran
    assert "PATH is passed through" not in prose(res.err)
    # PATH not passed: the box's PATH is its own, nothing to report
    m3 = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\n", name="m3.yaml")
    world.approve(m3)
    res = world.run(m3, env=env)
    assert res.rc == 0, res
    assert "PATH is passed through" not in prose(res.err)


def test_note_home_after_failure_with_grants_under_home(world):
    proj = os.path.join(world.home, "proj")
    world.write(os.path.join(proj, "data.txt"), "secret-free\n")
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nread: [~/proj]\n",
                       script="read line < ~/proj/data.txt || exit 1\necho \"$line\"\n")
    world.approve(m)
    res = world.run(m)
    assert res.rc == 1, res
    text = prose(res.err)
    assert "HOME inside the sandbox is /tmp" in text, res
    assert world.home in text
    assert "add HOME to `env:`" in text
    # with HOME passed, the same grant works and no note
    m2 = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nread: [~/proj]\nenv: [HOME]\n", name="m2.yaml")
    world.approve(m2)
    res = world.run(m2)
    assert res.rc == 0, res
    assert res.out == "secret-free\n"
    assert "HOME inside the sandbox" not in prose(res.err)


def test_note_sigsys_from_a_foreign_abi_syscall(world, host_abis):
    world.probe()
    # getpid through each foreign entry: int 0x80 with eax=20 (i386), and the
    # x32 number; where the host's kernel lets the call reach its system call
    # entry, the filter kills the process (harness.ForeignAbi)
    for abi in host_abis.values():
        args = ", ".join('"%s"' % w for w in abi.call.split())
        m = world.manifest("entrypoint: ./bento-probe\nargs: [%s]\n" % args, name="%s.yaml" % abi.abi)
        world.approve(m)
        res = world.run(m)
        assert res.rc == abi.fate, (abi, res)
        assert "OK" not in res.out, (abi, res)  # the call never returned a pid
        text = prose(res.err)
        assert "declares limits" not in text
        if abi.fate == SIGSYS_EXIT:
            assert "killed by signal 31 (SIGSYS)" in text
            assert "foreign-architecture (32-bit or x32)" in text
            assert "EPERM" in text
            continue
        # no such entry in this kernel (no ia32 emulation): int 0x80 faults
        # before any filter sees it, and the note must not blame a filter
        sig = abi.fate - 128
        assert "killed by signal %d (SIG%s); bento reports it as exit %d" % (
            sig, signal.Signals(sig).name[3:], abi.fate) in text, (abi, res)
        assert "foreign-architecture" not in text and "filter" not in text, (abi, res)


def test_note_sigterm_names_the_signal_without_blaming_limits(world):
    # The script is the sandbox's PID 1, which cannot die of its own
    # SIGTERM; a child can, and the shell reports it as 143 (probable).
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nlimits: {pids: 64, memory: 64M}\n",
                       script="sh -c 'kill -TERM $$'\nexit $?\n")
    world.approve(m)
    res = world.run(m)
    assert res.rc == 143, res
    text = prose(res.err)
    assert "signal 15 (SIGTERM)" in text, res
    assert "exit 143" in text
    assert "declares limits" not in text
    assert "denials look like" not in text


def test_note_generic_hint_then_the_legend(world):
    """A failure no other note explains: the grant summary, where to look,
    and the legend under the "if it was a denial" header."""
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nread: [./data]\n",
                       script="read x < /etc/passwd || exit 3\n")
    os.makedirs(os.path.join(world.work, "data"))
    world.approve(m)
    res = world.run(m)
    assert res.rc == 3, res
    assert "/etc/passwd" in res.out + res.err  # the script's own error
    text = prose(res.err)
    assert "the script exited 3." in text
    assert "1 read and 0 write path(s) granted, no network: rules, and exec: none" in text
    assert "if the script's error was a denial, this is what denials look like:" in text
    assert '"No such file or directory" -' in text
    assert text.index("the script exited 3.") < text.index("if the script's error was a denial")


def test_pre_run_notes(world):
    """docs/cli/bento-run.md, "NOTES": a read grant naming nothing, a write grant spelled like a file
    and an allowlisted name that is unset, all before the target starts."""
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nread: [./missing]\n"
                       "write: [./out/log.txt]\nenv: [BENTO_TEST_UNSET]\n",
                       script="echo target-started >&2\n")
    world.approve(m)
    res = world.run(m)
    assert res.rc == 0, res
    text = prose(res.err)
    start = text.index("target-started")
    for note in ('note: the read grant "./missing" names nothing on this host',
                 'note: the write grant "./out/log.txt" is spelled like a file',
                 "note: env BENTO_TEST_UNSET is allowed by the manifest but not set"):
        assert "[bento] " + note in res.err, res
        assert note in text, res
        assert text.index(note) < start, "note printed after the target started:\n%s" % res.err
    assert os.path.isdir(os.path.join(world.work, "out", "log.txt"))
    res = world.run(m, "--json")
    assert res.rc == 0, res
    assert events(res)[-1]["missing_read_grants"] == [os.path.join(world.work, "missing")]


def test_note_denial_legend_after_exit_0(world):
    os.makedirs(os.path.join(world.work, "out"))
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nwrite: [./out]\n",
                       script="echo fine > out/f\n")
    world.approve(m)
    res = world.run(m)
    assert res.rc == 0, res
    text = prose(res.err)
    assert "denials are reported by the script itself and do not change its exit code" in text
    assert '"Read-only file system" - a path outside the `write:` grants' in text
    assert '"No such file or directory" -' in text
    assert '"Network is unreachable" - the manifest grants no `network:` rules' in text
    assert '"Operation not permitted" - on a command: exec: none' in text
    assert "sandbox engaged:" in text  # shields in the write grant and the home
    assert "the script exited" not in text


# ---------------------------------------------------------------------------
# egress: a namespace with a test host


ECHO_SERVER = r"""
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("192.0.2.2", 7777))
s.listen(16)
s.settimeout(0.5)
open(sys.argv[1], "w").write("up")
end = time.monotonic() + 80
while time.monotonic() < end:
    try:
        c, _ = s.accept()
    except OSError:
        continue
    c.settimeout(5)
    try:
        c.sendall(c.recv(4096))
    except OSError:
        pass
    c.close()
"""


class EgressNet:
    """Namespace H (bento runs here, 192.0.2.1) and S (echo on 192.0.2.2:7777)."""

    def __init__(self, test_dir):
        tag = os.urandom(3).hex()
        self.h, self.s = "bento-rh-" + tag, "bento-rs-" + tag
        self.dir = test_dir
        self.made = []
        self.server = None

    def ip(self, *args):
        res = run_cmd(["ip"] + list(args), timeout=20)
        assert res.rc == 0, res

    def up(self):
        for ns in (self.h, self.s):
            self.ip("netns", "add", ns)
            self.made.append(ns)
            self.ip("-n", ns, "link", "set", "lo", "up")
        vh, vs = "brh" + self.h[-6:], "brs" + self.s[-6:]
        self.ip("link", "add", vh, "netns", self.h, "type", "veth", "peer", "name", vs, "netns", self.s)
        self.ip("-n", self.h, "addr", "add", "192.0.2.1/24", "dev", vh)
        self.ip("-n", self.s, "addr", "add", "192.0.2.2/24", "dev", vs)
        self.ip("-n", self.h, "link", "set", vh, "up")
        self.ip("-n", self.s, "link", "set", vs, "up")
        ready = os.path.join(self.dir, "echo.up")
        self.server = harness.spawn(["ip", "netns", "exec", self.s, sys.executable, "-c", ECHO_SERVER, ready],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True)
        wait_for(lambda: os.path.exists(ready), timeout=15, what="the echo server")
        return self

    def wrap(self):
        return ["nsenter", "--net=/run/netns/" + self.h, "--"]

    def down(self):
        if self.server is not None:
            try:
                os.killpg(self.server.pid, signal.SIGKILL)
            except OSError:
                pass
            self.server.wait(timeout=10)
            harness._forget(self.server)
        for ns in reversed(self.made):
            run_cmd(["ip", "netns", "del", ns], timeout=20)
        assert not [ns for ns in self.made if os.path.exists("/run/netns/" + ns)]


@pytest.fixture
def net(test_dir):
    n = EgressNet(test_dir)
    try:
        yield n.up()
    finally:
        n.down()


EGRESS_MANIFEST = """\
entrypoint: ./s.sh
interpreter: sh
exec: all
read: [./bento-probe]
network:
  - {host: 192.0.2.2, port: "7777"}
"""


def test_egress_refusals_are_named_after_the_run(world, net):
    world.probe()
    m = world.manifest(EGRESS_MANIFEST, script=(
        "./bento-probe proxy-connect 192.0.2.2:7777 granted-data\n"
        "./bento-probe proxy-connect 198.51.100.7:443\n"
        "./bento-probe proxy-connect 192.0.2.2:7778\n"
        "exit 2\n"))
    world.approve(m)
    res = world.run(m, wrap=net.wrap())
    assert res.rc == 2, res
    replies = [json.loads(line) for line in res.out.splitlines()]
    assert replies[0] == {"status": 200, "echo": "granted-data"}  # the control: the rule works
    assert [r["status"] for r in replies[1:]] == [403, 403]
    text = prose(res.err)
    assert "the egress allowlist refused these destinations" in text
    assert '[bento]   "198.51.100.7" port "443"' in res.err
    assert '[bento]   "192.0.2.2" port "7778"' in res.err
    assert "192.0.2.2\" port \"7777" not in res.err
    # the refusals explain the failure; no generic hint, no legend
    assert "proxy settings" not in text and "denials look like" not in text
    assert "the script exited 2" not in text

    res = world.run(m, "--json", wrap=net.wrap())
    assert res.rc == 2, res
    v = events(res)[-1]
    assert v["event"] == "verdict" and v["exit_code"] == 2
    assert v["egress_denied"] == [{"host": "192.0.2.2", "port": "7778"}, {"host": "198.51.100.7", "port": "443"}]
    assert v["egress_connections"] == 3
    layers = {l["layer"]: l["state"] for l in v["report"]["layers"]}
    assert layers["network"] == "enforced"


def test_notes_untunneled_and_guard_blocked(world, net):
    """Items 9 and 12: plain http:// through the proxy (400), and a rule for
    loopback that the upstream guard refuses anyway."""
    world.probe()
    m = world.manifest(EGRESS_MANIFEST + "  - {host: 127.0.0.1, port: \"9\"}\n", script=(
        "./bento-probe proxy-raw 'GET http://192.0.2.2:7777/ HTTP/1.1\\r\\nHost: 192.0.2.2\\r\\n\\r\\n'\n"
        "./bento-probe proxy-connect 127.0.0.1:9\n"
        "exit 0\n"))
    world.approve(m)
    res = world.run(m, wrap=net.wrap())
    assert res.rc == 0, res
    replies = [json.loads(line) for line in res.out.splitlines()]
    assert replies[0]["response"].startswith("HTTP/1.1 400"), replies
    # the guard's refusal: the words of any unreachable destination
    assert replies[1]["status"] == 502, replies
    assert replies[1]["body"] == "bento could not reach 127.0.0.1:9\n", replies
    text = prose(res.err)
    assert "addressed as plain http:// through the proxy, without CONNECT" in text, res
    assert '[bento]   "192.0.2.2" port "7777"' in res.err
    assert "The script got a 400 (not a 403)" in text
    assert "the egress guard refused these allowed destinations" in text
    assert '[bento]   "127.0.0.1" port "9"' in res.err
    assert "loopback and metadata addresses are never reachable" in text
    # docs/cli/bento-run.md, "OUTPUT": no legend after the egress warnings, even on exit 0
    assert "denials are reported by the script itself" not in text

    res = world.run(m, "--json", wrap=net.wrap())
    assert res.rc == 0, res
    v = events(res)[-1]
    assert v["untunneled"] == [{"host": "192.0.2.2", "port": "7777"}], v
    assert v["guard_blocked"] == [{"host": "127.0.0.1", "port": "9"}], v
    assert "egress_denied" not in v


def test_note_egress_hint_when_the_proxy_is_ignored(world, net):
    world.probe()
    m = world.manifest(EGRESS_MANIFEST, script="./bento-probe tcp-connect 192.0.2.2 7777 || exit 1\n")
    world.approve(m)
    res = world.run(m, wrap=net.wrap())
    assert res.rc == 1, res
    assert res.out.strip() in ("ENETUNREACH", "EHOSTUNREACH"), res  # the fence: no route out
    text = prose(res.err)
    assert "HTTP_PROXY" in text and "ignores the proxy settings" in text, res
    assert "the script exited 1" not in text


# ---------------------------------------------------------------------------
# interruption and cleanup


def _shield_world(world, script, limits=True):
    """A write grant whose shielded subpaths (.git/hooks, .envrc, ...) do not
    exist yet, so the sandbox has to create mount points for them."""
    ws = os.path.join(world.work, "ws")
    os.makedirs(ws)
    world.write(os.path.join(ws, "keep.txt"), "kept\n")
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nwrite: [./ws]\n" +
                       ("limits: {memory: 64M, pids: 64}\n" if limits else ""), script=script)
    world.approve(m)
    return m, ws


def _start(world, m, *flags, wrap=()):
    out = os.path.join(world.dir, "run.out")
    err = os.path.join(world.dir, "run.err")
    env = dict(world.env)
    p = harness.spawn(list(wrap) + [BENTO, "run"] + list(flags) + [m], stdin=subprocess.DEVNULL,
                      stdout=open(out, "wb"), stderr=open(err, "wb"), env=env, cwd=world.work,
                      start_new_session=True)
    return p, out, err


def _stop(p):
    """After a failed check: let bento clean up (SIGTERM cancels the run),
    and only if it does not, kill its group (which would leave the sandbox's
    cgroup behind)."""
    if p.poll() is None:
        os.kill(p.pid, signal.SIGTERM)
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)
    harness._forget(p)


def _read(path):
    with open(path, errors="replace") as f:
        return f.read()


def _said(path, word):
    """word is in the target's stdout so far, human or --json (chunks are
    whatever a read returned, so decode them before looking)."""
    text = _read(path)
    if not text.startswith('{"event"'):
        return word in text
    data = b""
    for line in text.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue  # a line still being written
        if ev.get("event") == "stdout":
            data += base64.b64decode(ev["data"])
    return word.encode() in data


def _observe_running(world, debris, ws, out):
    wait_for(lambda: _said(out, "started"), timeout=30, what="the script to start")
    ids = debris.during()
    assert len(ids) == 1, ids
    # the checks below would catch something: it all exists now
    assert processes_mentioning(world.dir, world.tmp), "no sandbox process found while it runs"
    assert debris.in_sandbox_pidns(), "the pid namespace scan sees nothing while it runs"
    assert harness.cgroup_dirs_named(ids[0]), "no cgroup for the running sandbox"
    made = [p for p, _ in tree(ws)]
    # shield mount points on the host: a missing .git is one scratch mount
    # as a whole, so nothing is made beneath it
    assert ".git" in made and ".git/hooks" not in made, made


def test_sigint_cancels_and_leaves_nothing(world):
    m, ws = _shield_world(world, "echo started\nwhile :; do sleep 1; done\n")
    debris = Debris(world, watch=[ws, os.path.join(ws, ".git"), os.path.join(ws, ".envrc")])
    p, out, err = _start(world, m)
    try:
        _observe_running(world, debris, ws, out)
        os.kill(p.pid, signal.SIGINT)
        rc = p.wait(timeout=30)
    finally:
        _stop(p)
    assert rc == 125, _read(err)
    assert "the run was cancelled before the target finished" in _read(err)
    debris.assert_clean()


def test_a_killed_bento_leaves_its_directories_to_the_next_run(world):
    """docs/cli/bento-run.md, "FILES": a `bento` killed with SIGKILL cannot
    remove its run directory or its /dev/shm twin. They stay while its
    sandbox lives (bento-runtime holds the run's claim), a run in between
    leaves them, and the first run after the sandbox is gone removes them."""
    m, ws = _shield_world(world, "echo started\n"
                          "i=0; while [ ! -e ws/go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\n"
                          "echo done > ws/done\n", limits=False)
    quick = world.manifest("entrypoint: ./q.sh\ninterpreter: sh\n", script="echo quick\n",
                           name="q.yaml", script_name="q.sh")
    world.approve(quick)
    debris = Debris(world, watch=[ws])
    p, out, err = _start(world, m)
    try:
        wait_for(lambda: _said(out, "started"), timeout=30, what="the script to start")
        debris.during()
        run_dirs, shm = world.run_dirs(), sorted(debris.run_shm)
        assert len(run_dirs) == 1 and len(shm) == 1, (run_dirs, shm)
        p.kill()
        p.wait(timeout=20)
        res = world.run(quick)
        assert res.rc == 0 and "quick" in res.out, res
        assert all(os.path.isdir(d) for d in run_dirs + shm), "a run removed a live sandbox's directories"
        assert os.path.exists(os.path.join(shm[0], "state")), "the live runtime's state was removed"
        world.write(os.path.join(ws, "go"), "")
        wait_for(lambda: os.path.exists(os.path.join(ws, "done")), timeout=30, what="the sandbox to end")
        wait_for(lambda: not processes_mentioning(*shm), timeout=30, what="bento-runtime to end")
        # nobody holds the claim now, and nobody has removed the directories
        assert all(os.path.isdir(d) for d in run_dirs + shm)
        res = world.run(m)
        assert res.rc == 0, res
    finally:
        _stop(p)
    assert not any(os.path.lexists(d) for d in run_dirs + shm), "the killed run's directories are left"
    os.unlink(os.path.join(ws, "go"))
    os.unlink(os.path.join(ws, "done"))
    debris.assert_clean()


def test_a_bento_killed_before_the_runtimes_go_leaves_no_runtime(world, tmp_path):
    """bento-runtime is started while bento still writes the bundle, and waits
    for its go (bento-runtime(1), run --wait-fd), which comes once the exec
    gate is up.  A bento SIGKILLed before the go leaves no runtime waiting
    and no container made: the runtime reads end-of-file and ends; the next
    run removes the directories."""
    real = os.path.join(harness.BUILD, "bin", "bento-exec-gate")
    started = tmp_path / "gate-started"
    slow = tmp_path / "slow-gate"
    slow.write_text("#!/bin/sh\n: > %s\nsleep 60\nexec %s \"$@\"\n" % (started, real))
    slow.chmod(0o755)
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="echo ran\n")
    world.approve(m)
    world.env["BENTO_EXEC_GATE"] = str(slow)
    try:
        p, out, err = _start(world, m)
    finally:
        del world.env["BENTO_EXEC_GATE"]
    try:
        wait_for(lambda: started.exists(), timeout=30, what="the exec gate to start")
        run_dirs = world.run_dirs()
        assert len(run_dirs) == 1, run_dirs
        # the runtime is there, waiting: started before the gate was ready
        waiting = "run --bundle"  # bento-runtime's run, the one with --wait-fd
        wait_for(lambda: [c for _, c in processes_mentioning(waiting) if "--wait-fd" in c],
                 timeout=30, what="bento-runtime waiting for its go")
        p.kill()
        p.wait(timeout=20)
        wait_for(lambda: not [c for _, c in processes_mentioning(waiting) if "--wait-fd" in c],
                 timeout=30, what="the waiting bento-runtime to end")
        assert not _said(out, "ran")
        state = [d for d in glob.glob("/dev/shm/bento-*/state/*") if os.path.isdir(d)]
        assert not state, "a container was made without the go: %s" % state
        res = world.run(m)
        assert res.rc == 0 and "ran" in res.out, res
    finally:
        _stop(p)
        # the gate runs in a process group of its own: its sleep goes with it
        for pid, _ in processes_mentioning(str(slow)):
            try:
                os.killpg(os.getpgid(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_for(lambda: not processes_mentioning(str(slow), "sleep 60"), timeout=10,
                 what="the slow gate and its sleep to go")
    assert not any(os.path.lexists(d) for d in run_dirs), "the killed run's directories are left"


def test_sigterm_json_ends_with_failed_event(world):
    m, ws = _shield_world(world, "echo started\nwhile :; do sleep 1; done\n", limits=False)
    debris = Debris(world, watch=[ws])
    p, out, err = _start(world, m, "--json")
    try:
        wait_for(lambda: _said(out, "started"), timeout=30, what="the script to start")
        debris.during()
        os.kill(p.pid, signal.SIGTERM)
        rc = p.wait(timeout=30)
    finally:
        _stop(p)
    assert rc == 125
    last = json.loads(_read(out).splitlines()[-1])
    assert last["event"] == "failed", last
    assert "cancelled" in last["reason"]
    assert "report" in last
    debris.assert_clean()


def test_normal_run_leaves_nothing(world):
    m, ws = _shield_world(world, (
        "echo started\n"
        "i=0; while [ ! -e ws/go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done\n"
        "echo done > ws/result\n"))
    watch = [os.path.join(ws, ".git"), os.path.join(ws, ".envrc"), os.path.join(ws, ".vscode")]
    debris = Debris(world, watch=watch)
    p, out, err = _start(world, m)
    try:
        _observe_running(world, debris, ws, out)
        world.write(os.path.join(ws, "go"), "")
        rc = p.wait(timeout=30)
    finally:
        _stop(p)
    assert rc == 0, _read(err)
    assert _read(os.path.join(ws, "result")) == "done\n"
    assert sorted(os.listdir(ws)) == ["go", "keep.txt", "result"]
    debris.assert_clean()


def test_refused_run_leaves_nothing(world):
    """A refusal after resolution (a write grant on a credential store) must
    not create the other, missing write grant."""
    newdir = os.path.join(world.work, "newout")
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nwrite: [./newout, ~/.ssh]\n", script="echo ran\n")
    debris = Debris(world, watch=[newdir, os.path.join(world.home, ".ssh")])
    res = world.run(m, "--allow-unapproved")
    assert res.rc == 125, res
    assert "refusing to run" in res.err
    assert res.out == ""
    assert not os.path.exists(newdir)
    assert os.listdir(world.tmp) == []  # no run directory was ever made
    debris.assert_clean()


# ---------------------------------------------------------------------------
# exit codes: 124


def _run_with_proxy_killed(world, net, *flags):
    """Start a run whose script tunnels once, waits, and tunnels again; kill
    the egress daemon in between (a guarantee lapsing mid-run)."""
    p, out, err = _start(world, world.m, *flags, wrap=net.wrap())
    try:
        wait_for(lambda: _said(out, "started"), timeout=30, what="the script to start")
        # its report lies in the run's private directory: on /dev/shm when
        # that is a tmpfs, else in the run directory
        daemons = [pid for pid, cmd in processes_mentioning("bento-egress")
                   if world.tmp in cmd or "/dev/shm/bento-" in cmd]
        assert daemons, "no egress daemon found: %s" % processes_mentioning("bento-egress")
        for pid in daemons:
            os.kill(pid, signal.SIGKILL)
        world.write(os.path.join(world.work, "ws", "go"), "")
        rc = p.wait(timeout=40)
    finally:
        _stop(p)
    os.unlink(os.path.join(world.work, "ws", "go"))
    return rc, _read(out), _read(err)


def test_posture_shortfall_when_the_proxy_dies_mid_run(world, net):
    """docs/cli/bento-run.md, "EXIT STATUS": the egress proxy the run was admitted on stops serving while the
    target runs: the target's own code (0) is withheld, exit 124."""
    world.probe()
    os.makedirs(os.path.join(world.work, "ws"))
    world.m = world.manifest(EGRESS_MANIFEST + "write: [./ws]\n", script=(
        "./bento-probe proxy-connect 192.0.2.2:7777 before\n"
        "echo started\n"
        "i=0; while [ ! -e ws/go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done\n"
        "./bento-probe proxy-connect 192.0.2.2:7777 after\n"
        "exit 0\n"))
    world.approve(world.m)
    rc, out, err = _run_with_proxy_killed(world, net)
    assert rc == 124, err
    assert '{"status":200,"echo":"before"}' in out
    assert "ECONNREFUSED" in out  # the lapse was real: the second tunnel failed
    text = prose(err)
    assert "network (core tier): degraded" in text, err
    assert "stopped serving mid-run" in text
    assert "its exit code is withheld (exit 124)" in text

    rc, out, err = _run_with_proxy_killed(world, net, "--json")
    assert rc == 124, err
    v = [json.loads(line) for line in out.splitlines()][-1]
    assert v["event"] == "verdict" and v["exit_code"] == 124 and v["posture_shortfall"] is True, v
    net_layer = [l for l in v["report"]["layers"] if l["layer"] == "network"][0]
    assert net_layer["state"] == "degraded" and "stopped serving mid-run" in net_layer["detail"]
    assert v["report"]["fully_enforced"] is False

    # the control: the same run without the kill is not a shortfall
    world.write(os.path.join(world.work, "ws", "go"), "")
    res = world.run(world.m, wrap=net.wrap())
    assert res.rc == 0, res
    assert res.out.count('"status":200') == 2
    assert "withheld" not in res.err


def test_exit_codes_target_refusal(world):
    """The target's own code (including 0 and 255) passes through; bento's
    refusal is 125 even when the script would have exited 125 or 124."""
    for code in (0, 1, 124, 255):
        m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", script="exit %d\n" % code,
                           name="m%d.yaml" % code)
        world.approve(m)
        res = world.run(m)
        assert res.rc == code, res
        assert "this host does not enforce" not in res.err  # not a shortfall


# ---------------------------------------------------------------------------
# docs/validate.md, "The credential-alias scan": a second name for a credential inside a grant, and --accept-alias


def test_alias_of_a_credential_is_refused_unless_its_tree_is_acknowledged(world):
    aws = os.path.join(world.home, ".aws")
    backup = os.path.join(world.home, "backup")
    os.makedirs(aws)
    os.makedirs(backup)
    cred = world.write(os.path.join(aws, "credentials"), "secret-key\n", 0o600)
    alias = os.path.join(backup, "creds.bak")
    os.link(cred, alias)
    m = world.manifest('entrypoint: ./s.sh\ninterpreter: sh\nread: ["~/backup"]\n',
                       script='while read -r l; do echo "got $l"; done < "$1"\n')
    with open(m, "a") as f:
        f.write('args: ["%s"]\n' % alias)
    world.approve(m)

    # refused, naming the alias and the tree to acknowledge; the target never ran
    res = world.run(m)
    assert res.rc == 125, res
    err = prose(res.err)
    assert "a readable path is a second name for a shielded credential" in err, res
    assert '"%s" aliases "%s"' % (alias, cred) in err, res
    assert "--accept-alias %s" % backup in err, res
    assert "got" not in res.out, res
    assert world.run_dirs() == []

    # acknowledged: the run goes ahead, the alias is readable and listed
    res = world.run(m, "--accept-alias", backup)
    assert res.rc == 0, res
    assert "got secret-key" in res.out, res
    assert "WARNING: these paths were readable as second names of shielded credentials" in \
        prose(res.err), res
    res = world.run(m, "--json", "--accept-alias", backup)
    assert res.rc == 0, res
    verdict = json.loads(res.out.strip().splitlines()[-1])
    assert verdict["accepted_aliases"] == [{"path": alias, "credential": cred}], verdict

    # a tree holding the credential store itself cannot be acknowledged
    res = world.run(m, "--accept-alias", world.home)
    assert res.rc == 125, res
    assert "--accept-alias %s would accept every alias of a credential" % world.home in \
        prose(res.err), res


WP_REFUSAL = "a writable path is a second name for a file the shields keep read-only"


def _appending_manifest(world, grant_field, grant, target, name="m.yaml"):
    """A manifest whose script appends to target and says whether it could."""
    m = world.manifest('entrypoint: ./s.sh\ninterpreter: sh\n%s: ["%s"]\nargs: ["%s"]\n'
                       % (grant_field, grant, target), name=name,
                       script='if echo pwned >> "$1"; then echo wrote; else echo refused; fi\n'
                              'while read -r l; do echo "got $l"; done < "$1"\n')
    world.approve(m)
    return m


def test_hard_link_to_a_write_protected_file_in_a_write_grant_is_refused(world):
    bashrc = world.write(os.path.join(world.home, ".bashrc"), "original\n")
    out = os.path.join(world.work, "out")
    os.makedirs(out)
    alias = os.path.join(out, "bashrc")
    os.link(bashrc, alias)
    m = _appending_manifest(world, "write", out, alias)

    # refused before the target starts: what, where, and what to do
    res = world.run(m)
    assert res.rc == 125, res
    err = prose(res.err)
    assert WP_REFUSAL in err, res
    assert '"%s" aliases "%s"' % (alias, bashrc) in err, res
    assert "Remove the alias" in err and "--accept-alias %s" % out in err, res
    assert "wrote" not in res.out and "refused" not in res.out, res
    assert open(bashrc).read() == "original\n"
    assert world.run_dirs() == []

    # validate notes it (never fails) and lists it apart from credential aliases
    res = world.bento("validate", "--json", m)
    assert res.rc == 0, res
    report = json.loads(res.out)
    assert report["write_protected_aliases"] == [{"path": alias, "protected": bashrc}], report
    assert "credential_aliases" not in report, report
    res = world.bento("validate", m)
    assert "which the shields keep read-only, inside a write grant" in prose(res.out), res

    # acknowledged: the run goes ahead and lists the alias (the box can then
    # change the file through it: that is what acknowledging means)
    res = world.run(m, "--json", "--accept-alias", out)
    assert res.rc == 0, res
    verdict = json.loads(res.out.strip().splitlines()[-1])
    assert verdict["accepted_aliases"] == [{"path": alias, "protected": bashrc}], verdict
    assert open(bashrc).read() == "original\npwned\n"

    # a copy instead of the link: the run goes ahead, and the box changes
    # only the copy
    world.write(bashrc, "original\n")
    os.unlink(alias)
    shutil.copyfile(bashrc, alias)
    res = world.run(m)
    assert res.rc == 0, res
    assert "wrote" in res.out, res
    assert open(bashrc).read() == "original\n"
    assert open(alias).read() == "original\npwned\n"


def test_hard_link_to_a_write_protected_file_in_a_read_grant_runs_read_only(world):
    """Inside a read grant the second name is read-only like the rest, and
    the file is one the shields show anyway: no refusal, and no write."""
    bashrc = world.write(os.path.join(world.home, ".bashrc"), "original\n")
    ro = os.path.join(world.work, "ro")
    os.makedirs(ro)
    alias = os.path.join(ro, "bashrc")
    os.link(bashrc, alias)
    m = _appending_manifest(world, "read", ro, alias)
    res = world.run(m)
    assert res.rc == 0, res
    assert WP_REFUSAL not in prose(res.err), res
    assert "refused" in res.out and "got original" in res.out, res
    assert open(bashrc).read() == "original\n"


def test_hard_link_to_a_workspace_shield_is_refused(world):
    """.git/config and .git/hooks/* are read-only in a write grant on a
    checkout; a second name for them elsewhere in the grant is refused."""
    repo = os.path.join(world.work, "repo")
    config = world.write(os.path.join(repo, ".git", "config"), "[core]\n")
    hook = world.write(os.path.join(repo, ".git", "hooks", "pre-commit"), "#!/bin/sh\n", 0o755)
    os.link(config, os.path.join(repo, "config-copy"))
    os.link(hook, os.path.join(repo, "hook-copy"))
    m = _appending_manifest(world, "write", repo, os.path.join(repo, "hook-copy"))
    res = world.run(m)
    assert res.rc == 125, res
    err = prose(res.err)
    assert '"%s/config-copy" aliases "%s"' % (repo, config) in err, res
    assert '"%s/hook-copy" aliases "%s"' % (repo, hook) in err, res
    assert open(hook).read() == "#!/bin/sh\n"

    for n in ("config-copy", "hook-copy"):
        os.unlink(os.path.join(repo, n))
    m = _appending_manifest(world, "write", repo, os.path.join(repo, "new"), name="m2.yaml")
    res = world.run(m)
    assert res.rc == 0 and "wrote" in res.out, res


def test_bind_mount_of_the_home_in_a_write_grant_is_refused(world):
    """A bind mount of a directory above a read-only shield (here the home
    itself) shows the shielded files under unshielded, writable names."""
    bashrc = world.write(os.path.join(world.home, ".bashrc"), "original\n")
    out = os.path.join(world.work, "out")
    view = os.path.join(out, "h")
    os.makedirs(view)
    subprocess.run(["mount", "--bind", world.home, view], check=True)
    try:
        m = _appending_manifest(world, "write", out, os.path.join(view, ".bashrc"))
        res = world.run(m)
        assert res.rc == 125, res
        err = prose(res.err)
        assert WP_REFUSAL in err, res
        assert '"%s" aliases "%s"' % (view, world.home) in err, res
        assert open(bashrc).read() == "original\n"
    finally:
        subprocess.run(["umount", view], check=True)
    res = world.run(m)
    assert res.rc == 0, res
    assert open(bashrc).read() == "original\n"


# ---------------------------------------------------------------------------
# the box's /tmp is memory, and capped (threat-model.md; limits.tmp)

TMP_SCRIPT = r'''
import os
st = os.statvfs("/tmp")
print("SIZE", st.f_blocks * st.f_frsize)
try:
    with open("/tmp/fill", "wb") as f:
        for _ in range(int(os.environ.get("FILL_MB", "0") or 0) or 0):
            f.write(b"\0" * (1 << 20))
    print("FILLED")
except OSError as e:
    print("REFUSED", e.errno)
'''


def _tmp_run(world, limits=""):
    m = world.manifest("entrypoint: ./t.py\ninterpreter: /usr/bin/python3\nexec: all\n" + limits,
                       script=TMP_SCRIPT, script_name="t.py")
    world.approve(m)
    res = world.run(m)
    assert res.rc == 0, res
    return res.out


def test_tmp_has_a_default_cap(world):
    out = _tmp_run(world)
    assert "SIZE %d" % (1 << 30) in out, out


def test_limits_tmp_sets_the_cap_and_a_write_past_it_fails(world):
    out = _tmp_run(world, "limits: {tmp: 8M}\n")
    assert "SIZE %d" % (8 << 20) in out, out
    m = world.manifest("entrypoint: ./t.py\ninterpreter: /usr/bin/python3\nexec: all\n"
                       "env: [FILL_MB]\nlimits: {tmp: 8M}\n", script=TMP_SCRIPT, script_name="t.py")
    world.approve(m)
    res = world.run(m, env=dict(world.env, FILL_MB="9"))
    assert res.rc == 0, res
    assert "REFUSED 28" in res.out, res  # ENOSPC
    res = world.run(m, env=dict(world.env, FILL_MB="4"))
    assert "FILLED" in res.out, res


def test_limits_tmp_is_checked_like_a_size(world):
    for value, words in (("8m", "uppercase"), ("1T", "invalid size"), ("100", "less than one page")):
        m = world.manifest("entrypoint: ./t.py\ninterpreter: /usr/bin/python3\nlimits: {tmp: %s}\n" % value,
                           script=TMP_SCRIPT, script_name="t.py")
        res = world.bento("validate", m)
        assert res.rc != 0, res
        text = " ".join(res.err.split()) + " ".join(res.out.split())
        assert "limits.tmp" in text and words in text, (value, res)
        assert "m.yaml:3:15:" in text, res  # file:line:col of the value
