# SPDX-License-Identifier: Apache-2.0
"""Privilege bits made inside the box (issue 14): when root runs bento, uid 0
in the box is uid 0 on the host, so a setuid, setgid or file-capability file
left in a write grant would give any local user root.  The seccomp filter
`bento translate` writes refuses every call that could make one (the chmod
family, creating opens, creat, mknod, mkdir, every xattr write (ENOTSUP), openat2
(ENOSYS), io_uring), while ordinary modes keep working.

Every test runs bento as root (the case that matters), has a Python script
inside the box try each way through a write grant, and then walks the grant
on the host: no entry may carry S_ISUID or S_ISGID, nor an xattr the box set.
They run under `bento run` in each exec mode (bento-runtime, the exec gate
for none and none-strict), and a translated bundle under bento-runtime,
runc and crun (crun in a private mount namespace without the cgroup2 mount,
which crun 1.8.1 refuses on this host's hybrid layout)."""

import json
import os
import shutil
import stat
import tempfile

import pytest

import harness
from harness import run_cmd
from test_translate import engine_argv

BENTO = os.path.join(harness.BUILD, "bin", "bento")
GATE = os.path.join(harness.BUILD, "bin", "bento-exec-gate")

pytestmark = [pytest.mark.timeout(90)]

PRIV_BITS = stat.S_ISUID | stat.S_ISGID

# Run inside the box: argv[1] is the write grant.  Prints one JSON object,
# operation -> "OK" or the errno name.  Raw calls go through syscall(2) so
# that the call the filter sees is the one named, whatever libc prefers.
BOX = r'''
import ctypes, errno, json, os, stat, sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
OUT = sys.argv[1]
AT_FDCWD = -100
res = {"uid": os.getuid()}


def attempt(key, fn):
    try:
        fn()
        res[key] = "OK"
    except OSError as e:
        res[key] = errno.errorcode.get(e.errno, str(e.errno))


def raw(nr, *args):
    def call():
        conv = [ctypes.c_char_p(a.encode()) if isinstance(a, str) else ctypes.c_long(a) for a in args]
        if libc.syscall(ctypes.c_long(nr), *conv) < 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
    return call


def p(name):
    return os.path.join(OUT, name)


os.close(os.open(p("f"), os.O_CREAT | os.O_WRONLY, 0o644))
attempt("chmod u+s", lambda: os.chmod(p("f"), 0o4755))
attempt("chmod g+s", lambda: os.chmod(p("f"), 0o2755))
attempt("chmod(2) u+s", raw(90, p("f"), 0o4755))
attempt("fchmodat(2) u+s", raw(268, AT_FDCWD, p("f"), 0o4755))
attempt("fchmodat2(2) g+s", raw(452, AT_FDCWD, p("f"), 0o2755, 0))
fd = os.open(p("f"), os.O_RDONLY)
attempt("fchmod u+s", lambda: os.fchmod(fd, 0o4755))
attempt("fchmod g+s", lambda: os.fchmod(fd, 0o6755))
attempt("fchmod 0755", lambda: os.fchmod(fd, 0o755))
os.close(fd)
attempt("open(2) O_CREAT 04755", raw(2, p("o1"), os.O_CREAT | os.O_WRONLY, 0o4755))
attempt("openat O_CREAT 04755", lambda: os.close(os.open(p("o2"), os.O_CREAT | os.O_WRONLY, 0o4755)))
attempt("openat O_CREAT 02755", lambda: os.close(os.open(p("o3"), os.O_CREAT | os.O_WRONLY, 0o2755)))
attempt("openat O_TMPFILE 04755", lambda: os.close(os.open(OUT, os.O_TMPFILE | os.O_WRONLY, 0o4755)))
attempt("open(2) O_TMPFILE 02755", raw(2, OUT, os.O_TMPFILE | os.O_WRONLY, 0o2755))
attempt("creat(2) 04755", raw(85, p("c1"), 0o4755))
attempt("mknodat S_IFREG|04755", lambda: os.mknod(p("n1"), stat.S_IFREG | 0o4755))
attempt("mknod(2) S_IFREG|02755", raw(133, p("n2"), stat.S_IFREG | 0o2755, 0))
attempt("mkdir 02755", lambda: os.mkdir(p("d1"), 0o2755))
attempt("mkdir(2) 04755", raw(83, p("d2"), 0o4755))
attempt("mkdirat(2) 02755", raw(258, AT_FDCWD, p("d3"), 0o2755))
os.mkdir(p("dir"), 0o755)
attempt("chmod g+s dir", lambda: os.chmod(p("dir"), 0o2755))
cap = b"\x01\x00\x00\x02" + b"\x00" * 16  # VFS_CAP_REVISION_2, no bits
attempt("setxattr security.capability", lambda: os.setxattr(p("f"), "security.capability", cap))
# setxattrat(dfd, path, at_flags, name, &struct xattr_args {value, size, flags}, 16): a
# libseccomp that does not know it leaves it to the kernel's CAP_SETFCAP check
capbuf = ctypes.create_string_buffer(cap, len(cap))
xargs = (ctypes.c_uint64 * 2)(ctypes.addressof(capbuf), len(cap))
attempt("setxattrat(2) security.capability",
        raw(463, AT_FDCWD, p("f"), 0, "security.capability", ctypes.addressof(xargs), 16))
attempt("setxattr user.*", lambda: os.setxattr(p("f"), "user.bento", b"1"))
attempt("lsetxattr user.*", lambda: os.setxattr(p("f"), "user.bento", b"1", follow_symlinks=False))
fd = os.open(p("f"), os.O_RDONLY)
attempt("fsetxattr user.*", lambda: os.setxattr(fd, "user.bento", b"1"))
os.close(fd)
how = ctypes.create_string_buffer(24)  # struct open_how {flags, mode, resolve}: all zero
attempt("openat2", raw(437, AT_FDCWD, p("f"), ctypes.addressof(how), 24))
params = ctypes.create_string_buffer(120)
attempt("io_uring_setup", raw(425, 1, ctypes.addressof(params)))
# what must keep working
attempt("chmod 0700", lambda: os.chmod(p("f"), 0o700))
attempt("openat O_CREAT 0644", lambda: os.close(os.open(p("ok-file"), os.O_CREAT | os.O_WRONLY, 0o644)))
attempt("creat(2) 0755", raw(85, p("ok-creat"), 0o755))
attempt("openat existing, mode slot 06755", raw(257, AT_FDCWD, p("ok-file"), os.O_RDONLY, 0o6755))
attempt("mkdir 0755", lambda: os.mkdir(p("ok-dir"), 0o755))
attempt("mknodat S_IFREG|0644", lambda: os.mknod(p("ok-node"), stat.S_IFREG | 0o644))
attempt("chmod 01777 dir", lambda: os.chmod(p("ok-dir"), 0o1777))
print(json.dumps(res))
'''

# xattr writes fail as on a file system without xattrs (ENOTSUP, alias
# EOPNOTSUPP), on which cp -p and cp -a fall back to chmod.  setxattrat is
# unknown to Debian 12's libseccomp (2.5.4), so the runtimes skip its rule:
# there the kernel's CAP_SETFCAP check refuses it (EPERM).
XATTR = ["setxattr security.capability", "setxattr user.*", "lsetxattr user.*", "fsetxattr user.*"]
XATTRAT = "setxattrat(2) security.capability"
ALLOWED = ["fchmod 0755", "chmod 0700", "openat O_CREAT 0644", "creat(2) 0755", "openat existing, mode slot 06755",
           "mkdir 0755", "mknodat S_IFREG|0644", "chmod 01777 dir"]
ENOSYS = ["openat2"]
EXPECTED_MODES = {"f": 0o100700, "ok-file": 0o100644, "ok-creat": 0o100755, "dir": 0o40755, "ok-dir": 0o41777,
                  "ok-node": 0o100644}


def expected():
    """Every operation of BOX but the allowed ones fails: EPERM, or ENOSYS
    for openat2.  The box runs as uid 0: the case the filter is for."""
    ops = [line.split('"')[1] for line in BOX.splitlines() if line.startswith("attempt(")]
    want = {op: "OK" if op in ALLOWED else "ENOSYS" if op in ENOSYS else "ENOTSUP" if op in XATTR else "EPERM"
            for op in ops}
    want["uid"] = 0
    return want


def assert_no_privilege_bits(grant):
    """On the host: nothing under grant is setuid or setgid, and nothing
    carries an xattr the box tried to set.  Walked with lstat, never
    following a link the box could have planted."""
    seen = []
    for dirpath, dirnames, filenames in os.walk(grant):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            seen.append(name)
            assert not st.st_mode & PRIV_BITS, "%s has mode %o" % (path, st.st_mode)
            if not stat.S_ISLNK(st.st_mode):
                names = os.listxattr(path, follow_symlinks=False)
                assert "security.capability" not in names and "user.bento" not in names, (path, names)
    return seen


def check_box(res, grant):
    assert res.rc == 0, res
    got = json.loads(res.out.strip().splitlines()[-1])
    assert got.get(XATTRAT) in ("EPERM", "ENOTSUP"), res
    got[XATTRAT] = "EPERM"
    assert got == expected(), res
    assert_no_privilege_bits(grant)
    for name, mode in EXPECTED_MODES.items():
        st = os.lstat(os.path.join(grant, name))
        assert st.st_mode == mode and st.st_uid == 0, "%s: mode %o uid %d" % (name, st.st_mode, st.st_uid)
    # nothing the refused calls named came into being
    assert sorted(os.listdir(grant)) == sorted(EXPECTED_MODES), os.listdir(grant)


class Project:
    """A scratch HOME, state directory, TMPDIR and project with a write grant
    `out`; bento is run as root with its helpers beside it."""

    def __init__(self, test_dir):
        if not os.access(BENTO, os.X_OK):
            pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)
        self.home = os.path.join(test_dir, "home")
        self.state = os.path.join(test_dir, "state")
        self.work = os.path.join(test_dir, "work")
        self.out = os.path.join(self.work, "out")
        # short: the exec gate's socket lives in the run directory
        self.tmp = tempfile.mkdtemp(prefix="bpb.", dir="/tmp")
        for d in (self.home, self.state, self.out):
            os.makedirs(d)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": self.home, "XDG_STATE_HOME": self.state,
                    "TMPDIR": self.tmp, "LANG": "C"}

    def manifest(self, exec_mode, entrypoint="box.py", script=BOX, interpreter="python3", args=None):
        with open(os.path.join(self.work, entrypoint), "w") as f:
            f.write(script)
        args = [self.out] if args is None else args
        text = ("entrypoint: ./%s\ninterpreter: %s\nexec: %s\nwrite: [./out]\nargs: %s\n"
                % (entrypoint, interpreter, exec_mode, json.dumps(args)))
        path = os.path.join(self.work, "m.yaml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def bento(self, *args, timeout=60):
        return run_cmd([BENTO] + [str(a) for a in args], env=self.env, cwd=self.work, timeout=timeout)


@pytest.fixture
def project(test_dir):
    assert os.geteuid() == 0, "these tests are about a root caller"
    p = Project(test_dir)
    yield p
    left = harness.mounts_under(p.tmp) + harness.mounts_under(test_dir)
    shutil.rmtree(p.tmp, ignore_errors=True)
    assert not left, left


def test_the_host_check_sees_bits_and_xattrs(test_dir):
    """assert_no_privilege_bits is what every test below relies on: it
    fails on a setuid file, a setgid directory and a user.* xattr."""
    for make in (lambda p: (open(p, "w").close(), os.chmod(p, 0o4755)),
                 lambda p: (os.mkdir(p), os.chmod(p, 0o2755)),
                 lambda p: (open(p, "w").close(), os.setxattr(p, "user.bento", b"1"))):
        d = tempfile.mkdtemp(dir=test_dir)
        make(os.path.join(d, "x"))
        with pytest.raises(AssertionError):
            assert_no_privilege_bits(d)


# ---------------------------------------------------------------------------
# bento run, in every exec mode


@pytest.mark.parametrize("mode", ["all", "none", "none-strict"])
def test_bento_run_refuses_privilege_bits(project, mode):
    m = project.manifest(mode)
    res = project.bento("run", "--allow-unapproved", m)
    check_box(res, project.out)


def test_copies_that_preserve_modes_lose_the_bits(project):
    """cp -p, cp -a and install -m of a setuid program fail to set the bit
    (and say so); the copy itself is made, without it.  cp -p of an ordinary
    executable keeps its mode and succeeds: its ACL write fails with
    ENOTSUP, and cp falls back to fchmod."""
    src = os.path.join(project.out, "tool")
    with open(src, "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(src, 0o750)
    script = ('cp -p /usr/bin/su out/su-p; echo "cp-p $?"\n'
              'cp -a /usr/bin/su out/su-a; echo "cp-a $?"\n'
              'install -m 4755 /usr/bin/true out/installed; echo "install $?"\n'
              'cp -p out/tool out/tool-copy; echo "cp-plain $?"\n')
    m = project.manifest("all", entrypoint="copy.sh", script=script, interpreter="sh", args=[])
    assert os.stat("/usr/bin/su").st_mode & stat.S_ISUID, "the test needs a setuid /usr/bin/su"
    res = project.bento("run", "--allow-unapproved", m)
    assert res.rc == 0, res
    codes = dict(line.split() for line in res.out.splitlines())
    assert codes == {"cp-p": "1", "cp-a": "1", "install": "1", "cp-plain": "0"}, res
    assert "Operation not permitted" in res.err, res
    assert sorted(assert_no_privilege_bits(project.out)) == ["installed", "su-a", "su-p", "tool", "tool-copy"]
    assert stat.S_IMODE(os.lstat(os.path.join(project.out, "tool-copy")).st_mode) == 0o750


# ---------------------------------------------------------------------------
# a translated bundle under each runtime

def runtime_argv(runtime, state, *args):
    if runtime == "bento-runtime":
        return [harness.RUNTIME, "--root", state] + list(args)
    # runc as it is; crun in test_translate's cgroup v1 view (it refuses
    # the hybrid layout)
    return engine_argv(runtime, state, *args)


@pytest.mark.parametrize("runtime,mode", [("bento-runtime", "all"), ("runc", "all"), ("crun", "all"),
                                          ("runc", "none")])
def test_translated_bundle_refuses_privilege_bits(project, test_dir, runtime, mode):
    if runtime != "bento-runtime" and not shutil.which(runtime):
        pytest.fail("%s is not installed (apt-get install %s)" % (runtime, runtime), pytrace=False)
    bundle = os.path.join(project.tmp, "b")
    res = project.bento("translate", project.manifest(mode), "-o", bundle)
    assert res.rc == 0, res
    state = os.path.join(test_dir, "state-" + runtime)
    cid = "seccomp-pb-%s" % os.urandom(4).hex()
    argv = runtime_argv(runtime, state, "run", "--bundle", bundle, cid)
    if mode != "all":
        argv = [GATE, "--socket", os.path.join(bundle, "exec-gate.sock"), "--"] + argv
    try:
        res = run_cmd(argv, timeout=60)
    finally:
        run_cmd(runtime_argv(runtime, state, "delete", "--force", cid), timeout=20)
        left = harness.cgroup_dirs_named(cid, exact=True)
        for c in left:
            harness.remove_cgroup_tree(c)
    assert not left, "%s left cgroups: %s" % (runtime, left)
    check_box(res, project.out)
