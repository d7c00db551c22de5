# SPDX-License-Identifier: Apache-2.0
"""Fixtures for the bento-runtime integration suite.

Run with Debian's interpreter, as root:

    BENTO_BUILD=/abs/build/dir /usr/bin/python3 -m pytest -q tests/integration

The session
  * moves itself into a private mount namespace (rprivate), so a mount a
    buggy runtime leaves behind dies with the test process, and puts a
    tmpfs over the passwd home's .local/state/bento there, so the approval
    journal key tests make is never the host's (harness.isolate_journal_key);
  * becomes a child subreaper and runs a reaper thread: container inits are
    reparented to us after `create`, and their exit statuses are kept;
  * builds one busybox-static rootfs template with the probe at
    /bin/bento-probe; every test gets its own hard-linked copy.

Each test gets a scratch directory with its own `--root`; when it ends every
container it touched is force-deleted and the teardown fails the test if a
state directory, a container process, a mount under a bundle or a cgroup
named after the container is left.
"""

import os
import re
import shutil
import signal
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import REAPER, ROOTLESS_GID, ROOTLESS_UID, Bundle, Runtime  # noqa: E402

DEFAULT_TEST_TIMEOUT = 180

_session = {"private_mntns": None, "base": None, "counter": 0}


def pytest_configure(config):
    config.addinivalue_line("markers", "root: needs to run as root on the host (the default for this suite)")
    config.addinivalue_line("markers", "rootless: runs bento-runtime as uid 65534 with a user namespace")
    config.addinivalue_line("markers", "engines: podman and containerd drive the runtime")
    config.addinivalue_line("markers", "timeout(seconds): per-test wall clock limit (default %d)" %
                            DEFAULT_TEST_TIMEOUT)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("rootless") is None and item.get_closest_marker("root") is None:
            item.add_marker(pytest.mark.root)


def pytest_sessionstart(session):
    if session.config.option.collectonly:
        return
    if os.geteuid() == 0:
        try:
            harness.enter_private_mount_namespace()
            _session["private_mntns"] = True
        except OSError as e:
            _session["private_mntns"] = False
            sys.stderr.write("bento tests: could not enter a private mount namespace (%s); "
                             "continuing in the host's\n" % e)
        if _session["private_mntns"]:
            harness.isolate_journal_key()
    harness.set_child_subreaper()
    REAPER.mypid = os.getpid()
    REAPER.start()


def pytest_sessionfinish(session, exitstatus):
    REAPER.stop()
    base = _session.get("base")
    if base and os.path.isdir(base):
        if harness.mounts_under(base):
            sys.stderr.write("bento tests: not removing %s, mounts remain: %s\n" % (base, harness.mounts_under(base)))
        elif os.environ.get("BENTO_KEEP_TMP"):
            sys.stderr.write("bento tests: scratch kept in %s\n" % base)
        else:
            shutil.rmtree(base, ignore_errors=True)


def pytest_report_header(config):
    return ["bento: BENTO_BUILD=%s runtime=%s probe=%s" % (harness.BUILD, harness.RUNTIME, harness.PROBE)]


# -- a wall-clock limit per test (SIGALRM; the main thread runs the tests) --

class TestTimeout(Exception):
    pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    m = item.get_closest_marker("timeout")
    seconds = int(m.args[0]) if m else DEFAULT_TEST_TIMEOUT

    def on_alarm(signum, frame):
        raise TestTimeout("test exceeded its %ss limit" % seconds)

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


# -- sanitizer reports (make check-debug) --

@pytest.fixture(autouse=True)
def _sanitizer_reports():
    """Under the ASan/UBSan build every report, in any process the test
    started (bento, bento-runtime, the init before its exec, a hook that got
    the options), lands in harness.SANITIZER_LOG_DIR and fails the test,
    even when the test expected that process to fail."""
    d = harness.SANITIZER_LOG_DIR
    before = set(os.listdir(d)) if d else set()
    yield
    if not d:
        return
    new = sorted(set(os.listdir(d)) - before)
    texts = []
    for name in new:
        with open(os.path.join(d, name), errors="replace") as f:
            texts.append("--- %s ---\n%s" % (name, f.read()[-6000:]))
    assert not new, "sanitizer reports:\n" + "\n".join(texts)


# -- session fixtures --

@pytest.fixture(scope="session")
def binaries():
    missing = [p for p in (harness.RUNTIME, harness.PROBE) if not os.access(p, os.X_OK)]
    if missing:
        pytest.fail("not built: %s (BENTO_BUILD=%s; run `make BUILDDIR=... all %s`)" % (
            ", ".join(missing), harness.BUILD, "$(BUILDDIR)/tests/bento-probe"), pytrace=False)
    return harness.RUNTIME, harness.PROBE


@pytest.fixture(scope="session")
def session_dir():
    base = tempfile.mkdtemp(prefix="bento-it.", dir=os.environ.get("BENTO_TEST_TMPDIR", "/tmp"))
    os.chmod(base, 0o755)  # the rootless user must be able to reach bundles
    _session["base"] = base
    return base


@pytest.fixture(scope="session")
def rootfs_template(binaries, session_dir):
    assert os.path.exists(harness.BUSYBOX), "%s missing: apt-get install busybox-static" % harness.BUSYBOX
    dest = os.path.join(session_dir, "rootfs-template")
    harness.build_rootfs_template(dest, harness.PROBE)
    return dest


@pytest.fixture(scope="session")
def private_mount_namespace():
    return _session["private_mntns"]


@pytest.fixture(scope="session")
def host_abis(binaries):
    """What this host's kernel does with each foreign system call ABI (i386's
    int $0x80, x32), asked once, by the probe on the host outside any sandbox:
    a kernel without ia32 emulation faults int $0x80 before any seccomp filter
    sees it (harness.ForeignAbi)."""
    return harness.probe_foreign_abis()


# -- per-test fixtures --

@pytest.fixture(autouse=True)
def _privilege_check(request):
    if request.node.get_closest_marker("root") is not None:
        assert os.geteuid() == 0, "this suite's root tests must run as root (CI runs as root)"
    yield


@pytest.fixture
def test_dir(request, session_dir):
    _session["counter"] += 1
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)[:60]
    d = os.path.join(session_dir, "%03d-%s" % (_session["counter"], name))
    os.makedirs(d)
    os.chmod(d, 0o755)
    yield d
    if not harness.mounts_under(d) and not os.environ.get("BENTO_KEEP_TMP"):
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def rt(binaries, test_dir):
    """The runtime as root with a scratch --root."""
    root = os.path.join(test_dir, "root")
    scratch = os.path.join(test_dir, "scratch")
    os.makedirs(root)
    os.makedirs(scratch)
    runtime = Runtime(root=root, scratch=scratch)
    yield runtime
    problems = runtime.cleanup()
    assert not problems, "debris left behind:\n" + "\n".join(problems)


@pytest.fixture
def bundle(test_dir, rootfs_template):
    """Factory: bundle(*args) -> Bundle with the default config (root, not
    rootless); args default to the probe's `facts`."""
    n = [0]

    def make(*args, rootless=False):
        n[0] += 1
        b = Bundle(os.path.join(test_dir, "bundle%d" % n[0]), rootfs_template,
                   args or ["/bin/bento-probe", "facts"], rootless=rootless)
        return b

    return make


# -- rootless --

@pytest.fixture(scope="session")
def rootless_supported(binaries):
    """This machine supports unprivileged user namespaces; if that breaks,
    the rootless tests must fail, not skip."""
    res = harness.run_cmd(["setpriv", "--reuid=%d" % ROOTLESS_UID, "--regid=%d" % ROOTLESS_GID, "--clear-groups",
                           "unshare", "-Ur", "true"], timeout=20)
    assert res.rc == 0, "unprivileged user namespaces do not work here:\n%s" % res
    return True


@pytest.fixture
def xdg_runtime_dir(test_dir):
    d = os.path.join(test_dir, "xdg")
    os.makedirs(d)
    os.chown(d, ROOTLESS_UID, ROOTLESS_GID)
    os.chmod(d, 0o700)
    return d


@pytest.fixture
def rrt(rootless_supported, test_dir, xdg_runtime_dir):
    """The runtime as uid 65534 with XDG_RUNTIME_DIR set and no --root (so
    the default $XDG_RUNTIME_DIR/bento-runtime is used)."""
    scratch = os.path.join(test_dir, "rscratch")
    os.makedirs(scratch)
    os.chown(scratch, ROOTLESS_UID, ROOTLESS_GID)
    runtime = Runtime(root=os.path.join(xdg_runtime_dir, "bento-runtime"), scratch=scratch, rootless=True,
                      xdg_runtime_dir=xdg_runtime_dir, use_root_option=False)
    yield runtime
    problems = runtime.cleanup()
    assert not problems, "debris left behind:\n" + "\n".join(problems)


@pytest.fixture
def rbundle(test_dir, rootfs_template):
    """Factory for rootless bundles (user namespace, 0 -> 65534, size 1)."""
    n = [0]

    def make(*args, owner=None):
        n[0] += 1
        b = Bundle(os.path.join(test_dir, "rbundle%d" % n[0]), rootfs_template,
                   args or ["/bin/bento-probe", "facts"], rootless=True)
        if owner is not None:
            b.chown_all(*owner)
        return b

    return make
