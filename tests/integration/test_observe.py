# SPDX-License-Identifier: Apache-2.0
"""bento-observe, the tracer of `bento profile` (docs/hooks/bento-observe.md,
docs/profile.md "The report"), run directly on the host with --report-fd
on a file, against a C target of our own (observe/target.c, one subcommand
per behaviour) and small shell commands.

Each test checks the report (what the observer saw) and, where it matters,
what the target itself saw (the call still worked, or was refused):
reads, writes and absent probes, relative paths after chdir and with a
dirfd, execs, threads, fork/vfork/clone3 children, execve from a
non-leader thread, the target's own ptrace (EPERM) and seccomp filters,
PATH_MAX paths, invalid UTF-8, unreadable path pointers, the x32 and ia32
ABIs, AF_UNIX sockets, SIGSYS deaths, exit status and signals, the
tracer killed (the target dies with it), and that the observer never opens
what the target names (a FIFO does not block it; strace of the tracer
shows no open of a target path).

Every test that runs the observer through observe() runs twice: with the
notification transport (the default: SECCOMP_RET_USER_NOTIF and a
listener) and with --ptrace-only (SECCOMP_RET_TRACE stops, what the
observer falls back to where it cannot have a listener).
"""

import collections
import os
import re
import signal
import subprocess
import tempfile
import time

import pytest

import harness

OBSERVE = os.path.join(harness.BUILD, "bin", "bento-observe")
SHIM = os.path.join(harness.BUILD, "lib", "bento", "bento-observe-shim.so")
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "observe", "target.c")
# target.c includes the observer library's header, which names bundle/ headers bare
BUNDLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bundle")


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("observe-bin") / "target")
    subprocess.run(["cc", "-O2", "-pthread", "-I", BUNDLE, "-o", out, SRC], check=True)
    return out


@pytest.fixture
def data(tmp_path):
    d = tmp_path / "d"
    (d / "sub").mkdir(parents=True)
    (d / "in").write_text("x\n")
    (d / "sub" / "f").write_text("")
    return str(d)


TRANSPORT = []  # the options of the transport the current test runs with


@pytest.fixture(autouse=True, params=["notify", "ptrace-only"])
def transport(request):
    TRANSPORT[:] = ["--ptrace-only"] if request.param == "ptrace-only" else []
    yield request.param
    TRANSPORT[:] = []


def observe(argv, timeout=30, cwd=None, options=(), prefix=()):
    """Run argv under bento-observe; returns (result, report lines as word lists)."""
    with tempfile.TemporaryFile() as rep:
        fd = rep.fileno()
        res = harness.run_cmd(list(prefix) + [OBSERVE, "--report-fd", str(fd)] + TRANSPORT +
                              list(options) + ["--"] + list(argv), timeout=timeout,
                              pass_fds=(fd,), cwd=cwd)
        rep.seek(0)
        text = rep.read().decode("ascii")
    lines = text.split("\n")
    assert lines[-1] == "", "the report ends with a newline: %r" % text[-200:]
    return res, [line.split(" ") for line in lines[:-1]]


def check_shape(rep):
    """The report's grammar: first line, the end line last and only there."""
    assert rep[0] == ["observe", "1"]
    assert rep[-1][0] == "end" and rep[-1][1] in ("exit", "signal"), rep[-1]
    for words in rep[1:-1]:
        assert words[0] in ("read", "write", "probe", "chdir", "exec", "unix", "dropped",
                            "sigsys"), words
        assert all(w and re.fullmatch(r"[\x21-\x7e]+", w) for w in words), words
        if words[0] in ("read", "probe"):
            assert len(words) == 3 and words[1] in ("ok", "absent", "error", "unwatched"), words
        elif words[0] in ("write", "chdir", "exec"):
            assert len(words) == 3 and words[1] in ("ok", "absent", "error"), words
        if words[0] in ("read", "write", "probe", "chdir", "exec"):
            assert words[2].startswith("/"), words


def has(rep, *words):
    return list(words) in rep


def run_ok(argv, **kw):
    res, rep = observe(argv, **kw)
    check_shape(rep)
    return res, rep


# -- files ---------------------------------------------------------------------


def test_reads_writes_probes_and_relative_paths(target, data):
    res, rep = run_ok([target, "files", data])
    assert res.rc == 0, res
    assert "read-in 1" in res.out and "stat-missing -1" in res.out
    assert "fstat-dirfd 0" in res.out
    assert has(rep, "read", "ok", target) and has(rep, "exec", "ok", target)
    assert has(rep, "read", "ok", data + "/in")
    assert has(rep, "write", "ok", data + "/out")
    assert has(rep, "probe", "absent", data + "/missing")
    assert has(rep, "write", "ok", data + "/newdir")
    # rename: both names; link: source read, destination write; symlink: the link
    assert has(rep, "write", "ok", data + "/renamed")
    assert has(rep, "write", "ok", data + "/hardlink")
    assert has(rep, "write", "ok", data + "/symlink")
    assert not has(rep, "read", "ok", "in")  # the symlink's target is not a path accessed
    # relative to the cwd after chdir, to a dirfd, the dirfd itself, fchdir
    assert has(rep, "chdir", "ok", data)
    assert rep.index(["chdir", "ok", data]) < rep.index(["read", "ok", data + "/sub/f"])
    assert has(rep, "read", "ok", data + "/sub")
    # fstatat(dfd, "", AT_EMPTY_PATH) names the open directory: no stop, no line
    assert not has(rep, "probe", "ok", data + "/sub")
    assert has(rep, "chdir", "ok", data + "/sub")  # fchdir
    assert has(rep, "probe", "ok", data + "/sub/f")  # access("f") after fchdir
    assert rep[-1] == ["end", "exit", "0"]


def test_no_result_under_reports_reads_at_once(data, tmp_path):
    """--no-result-under DIR: reads and probes of clean paths in DIR come
    without their result ("unwatched"), each line once; a path with "..", a
    write, and anything outside DIR are still waited for."""
    other = tmp_path / "other"
    other.write_text("o\n")
    name = os.path.basename(data)
    script = ("cat %s/in; cat %s/missing; cat %s/../%s/in; test -e %s/sub; echo w > %s/w; "
              "cat %s; cat %s/in; true") % (data, data, data, name, data, data, other, data)
    res, rep = run_ok(["sh", "-c", script], options=["--no-result-under", data])
    assert res.rc == 0, res
    assert res.out.count("x\n") == 3 and "o\n" in res.out  # the reads still worked
    # read twice, and the line says the same each time: written once
    assert rep.count(["read", "unwatched", data + "/in"]) == 1, rep
    assert has(rep, "read", "unwatched", data + "/missing")  # no stop, so no "absent"
    assert has(rep, "read", "ok", "%s/../%s/in" % (data, name))  # not clean: waited
    assert has(rep, "write", "ok", data + "/w")  # writes are always waited for
    assert has(rep, "read", "ok", str(other))  # outside the tree
    assert not any(w[1] == "unwatched" for w in rep if w[0] in ("read", "probe")
                   and not w[2].startswith(data + "/"))


def test_a_path_search_reports_every_try(data):
    res, rep = run_ok(["sh", "-c", "cd %s && cat in nothere; true" % data])
    assert res.rc == 0
    assert has(rep, "chdir", "ok", data)
    assert has(rep, "read", "ok", data + "/in")
    assert has(rep, "read", "absent", data + "/nothere")
    execs = [w for w in rep if w[0] == "exec"]
    assert ["exec", "ok", "/usr/bin/sh"] in execs or ["exec", "ok", "/bin/sh"] in execs


def test_invalid_utf8_is_encoded(target, data):
    res, rep = run_ok([target, "utf8", data])
    assert res.rc == 0
    assert has(rep, "write", "ok", data + "/bad-%FF%FE%20name")
    assert os.path.exists(os.fsdecode(os.fsencode(data) + b"/bad-\xff\xfe name"))


def test_path_max_and_longer(target, data):
    res, rep = run_ok([target, "long", data])
    assert "max -1 ENOENT" in res.out and "over -1 ENAMETOOLONG" in res.out
    longest = [w for w in rep if w[:2] == ["read", "absent"] and w[2].startswith(data + "/xx")]
    assert len(longest) == 1 and len(longest[0][2]) == 4095, [len(w[2]) for w in longest]
    assert has(rep, "dropped", "openat", "unreadable-path")


def test_unreadable_path_pointers_are_dropped(target, data):
    res, rep = run_ok([target, "memory", data])
    assert "unmapped -1 EFAULT" in res.out
    assert "runs-off -1 ENAMETOOLONG" in res.out or "runs-off -1 EFAULT" in res.out
    assert rep.count(["dropped", "openat", "unreadable-path"]) == 2
    # a string that ends at the last byte of its page is read whole
    assert has(rep, "read", "absent", data + "/edg")


def test_fifo_is_not_opened_by_the_observer(target, data):
    os.mkfifo(data + "/fifo")
    res, rep = run_ok([target, "fifo", data], timeout=20)
    assert res.rc == 0, res
    # ENXIO: nobody had it open for reading, the observer neither
    assert "fifo -1 ENXIO" in res.out
    assert has(rep, "write", "error", data + "/fifo")


def test_a_blocking_open_is_not_interrupted_for_ever(data):
    """A call whose result is reported gets a result stop (PTRACE_INTERRUPT
    before the notification is answered).  A FIFO's open waits for the
    other end: the stop interrupts it once (-ERESTARTSYS), and its retry
    must then run without one, or it is interrupted again and again."""
    fifo = data + "/fifo"
    os.mkfifo(fifo)
    res, rep = run_ok(["sh", "-c", "(sleep 0.5; echo hi > %s) & cat %s; wait" % (fifo, fifo)],
                      timeout=20)
    assert res.rc == 0 and res.out == "hi\n", res
    # interrupted once (its result unknown: error) and retried, not a loop
    # of interruptions until the writer comes
    reads = [w for w in rep if w[0] == "read" and w[2] == fifo]
    assert 1 <= len(reads) <= 2, reads
    assert any(w[0] == "write" and w[2] == fifo for w in rep), rep


def ioctls_and_ptrace(log):
    calls = [line for line in open(log) if line.startswith(("ioctl(", "ptrace("))]
    recv = [line for line in calls if "SECCOMP_IOCTL_NOTIF_RECV" in line and "= 0" in line]
    stops = [line for line in calls if line.startswith("ptrace(PTRACE_GET_SYSCALL_INFO")]
    return recv, stops


def test_the_calls_come_as_notifications(target, data, tmp_path, transport):
    """By default the calls come to the listener, not as ptrace stops; with
    --ptrace-only (or where the kernel refuses the listener) as stops."""
    log = str(tmp_path / "strace.log")
    res, rep = run_ok([target, "files", data],
                      prefix=["strace", "-o", log, "-e", "trace=ioctl,ptrace"])
    assert res.rc == 0, res
    assert has(rep, "read", "ok", data + "/in") and has(rep, "probe", "absent", data + "/missing")
    recv, stops = ioctls_and_ptrace(log)
    if transport == "notify":
        assert len(recv) >= 10 and not stops, (len(recv), len(stops))
    else:
        assert not recv and len(stops) >= 10, (len(recv), len(stops))


def test_an_outer_listener_leaves_the_ptrace_transport(target, data, tmp_path):
    """A filter chain may hold one listener: under an outer one (a sandbox
    around bento) the observer's is refused with EBUSY, and the observer
    falls back to SECCOMP_RET_TRACE stops."""
    log = str(tmp_path / "strace.log")
    res, rep = run_ok([target, "files", data],
                      prefix=[target, "listener-exec", "strace", "-o", log, "-e",
                              "trace=ioctl,ptrace"])
    assert res.rc == 0, res
    assert has(rep, "read", "ok", data + "/in") and has(rep, "write", "ok", data + "/out")
    assert has(rep, "probe", "absent", data + "/missing")
    assert rep[-1] == ["end", "exit", "0"]
    recv, stops = ioctls_and_ptrace(log)
    assert not recv and len(stops) >= 10, (len(recv), len(stops))


def test_strace_of_the_tracer_shows_no_target_path(target, data, tmp_path):
    log = str(tmp_path / "strace.log")
    with tempfile.TemporaryFile() as rep:
        fd = rep.fileno()
        res = harness.run_cmd(["strace", "-o", log, "-e",
                               "trace=clone,clone3,fork,vfork,open,openat,openat2,creat,stat,"
                               "lstat,newfstatat,statx,access,faccessat,faccessat2,readlink,"
                               "readlinkat,execve,mkdir,unlink,rename",
                               OBSERVE, "--report-fd", str(fd), "--", target, "files", data],
                              pass_fds=(fd,))
        rep.seek(0)
        report = rep.read().decode()
    assert res.rc == 0, res
    assert "read ok %s/in\n" % data in report
    calls = [line for line in open(log) if not line.startswith(("---", "+++"))]
    forks = [i for i, line in enumerate(calls) if line.startswith(("clone", "fork", "vfork"))]
    assert forks, calls
    # from the fork of the target on (before it: the loader, and the
    # sanitizers' own files in a debug build), the tracer's only path
    # operations are readlinks of the target's magic links
    anchors = 0
    for line in calls[forks[0] + 1:]:
        first = re.search(r'"([^"]*)"', line)
        assert line.startswith("readlink(") and first, line
        assert re.fullmatch(r"/proc/[0-9]+/(cwd|fd/[0-9]+)", first.group(1)), line
        anchors += 1
    assert anchors >= 3  # cwd after chdir, the dirfd, fchdir


# -- processes -------------------------------------------------------------------


def test_threads(target, data):
    res, rep = run_ok([target, "threads", data])
    assert res.rc == 0
    assert rep.count(["read", "absent", data + "/from-thread"]) == 4


def test_fork_vfork_clone3(target, data):
    res, rep = run_ok([target, "children", data])
    assert res.rc == 0 and "clone3 1" in res.out
    assert has(rep, "read", "absent", data + "/from-fork")
    assert has(rep, "exec", "ok", "/bin/true")  # from the vfork child
    assert has(rep, "read", "absent", data + "/from-clone3")


def test_execve_from_a_thread_while_another_runs(target, data):
    res, rep = run_ok([target, "thread-exec", data])
    assert res.rc == 0, res  # /bin/true replaced the whole process
    assert has(rep, "exec", "ok", "/bin/true")
    assert rep[-1] == ["end", "exit", "0"]


def test_exec_of_a_helper_and_execveat(data):
    res, rep = run_ok(["/usr/bin/python3", "-c",
                       "import os\n"
                       "fd = os.open('/bin/true', os.O_PATH)\n"
                       "pid = os.fork()\n"
                       "if pid == 0:\n"
                       "    os.execve(fd, ['true'], {})\n"
                       "os.waitpid(pid, 0)\n"
                       "os.execv('/bin/sh', ['sh', '-c', 'exit 4'])\n"])
    assert res.rc == 4
    # execveat(fd, "", AT_EMPTY_PATH): the fd's path, as the kernel resolved it
    assert has(rep, "exec", "ok", os.path.realpath("/bin/true"))
    assert has(rep, "exec", "ok", "/bin/sh")
    assert rep[-1] == ["end", "exit", "4"]


def test_huge_argv(data):
    args = ["a" * 60] * 20000
    res, rep = run_ok(["/bin/sh", "-c", 'test $# -eq 20000 && exit 7', "sh"] + args)
    assert res.rc == 7, res
    assert rep[-1] == ["end", "exit", "7"]


def test_a_missing_command(data):
    res, rep = run_ok(["/nonexistent/cmd"])
    assert res.rc == 127
    assert has(rep, "exec", "absent", "/nonexistent/cmd")
    assert rep[-1] == ["end", "exit", "127"]


# -- the preload library (--shim) ------------------------------------------------


def with_shim(data, *options):
    return ["--no-result-under", data] + list(options) + ["--shim", SHIM]


def lines_besides_the_library(rep):
    return collections.Counter(" ".join(w) for w in rep if w[-1] != SHIM)


@pytest.mark.parametrize("what", ["files", "children", "threads"])
def test_the_library_reports_what_the_observer_reports(target, data, what):
    """With the preload library the report holds the same lines as without
    it (the calls it records itself are folded as the observer folds
    them), besides the loader's read of the library."""
    res_a, rep_a = run_ok([target, what, data], options=["--no-result-under", data])
    for name in ("out", "renamed", "hardlink", "symlink", "newdir", "from-thread"):
        subprocess.run(["rm", "-rf", os.path.join(data, name)], check=True)
    res_b, rep_b = run_ok([target, what, data], options=with_shim(data))
    assert res_a.rc == res_b.rc == 0 and res_a.out == res_b.out, (res_a, res_b)
    assert ["read", "ok", SHIM] in rep_b
    assert lines_besides_the_library(rep_a) == lines_besides_the_library(rep_b)


def notifications_and_stops(target, data, tmp_path, options, result="unwatched"):
    log = str(tmp_path / "strace.log")
    res, rep = run_ok([target, "shim-stat", data, "2000"], options=options,
                      prefix=["strace", "-o", log, "-e", "trace=ioctl,ptrace"])
    assert res.rc == 0 and "shim-stat 2000/2000" in res.out, res
    assert has(rep, "probe", result, data + "/in") and has(rep, "read", result, data + "/in")
    recv, stops = ioctls_and_ptrace(log)
    return len(recv) + len(stops)


def test_the_library_spares_the_stops(target, data, tmp_path):
    """4,000 lookups in a --no-result-under tree: each is a notification (or
    a ptrace stop) without the library, and none is with it."""
    without = notifications_and_stops(target, data, tmp_path, ["--no-result-under", data])
    with_it = notifications_and_stops(target, data, tmp_path, with_shim(data))
    assert without >= 4000 and with_it < 100, (without, with_it)


def test_a_lookup_outside_the_trees_still_stops(target, data, tmp_path):
    """The library records only in the trees it was given: the same program
    with another tree makes every lookup a notification, with its result."""
    other = str(tmp_path / "elsewhere")
    os.mkdir(other)
    n = notifications_and_stops(target, data, tmp_path, with_shim(other), result="ok")
    assert n >= 4000, n


def test_records_the_target_forges_are_checked(target, data):
    """A target can write the ring itself: a record as the library writes
    it is an access like any it could make, anything else is a dropped
    access; reading stops at a record reserved and never written, and the
    ring cannot be shrunk under the observer (it is sealed)."""
    res, rep = run_ok([target, "shim-forge", data], options=with_shim(data))
    assert res.rc == 0 and "forged" in res.out, res
    assert "truncate -1" in res.out
    assert has(rep, "read", "unwatched", data + "/in")
    assert not any(w[-1] in ("/etc/shadow", data + "/verb", data + "/after") for w in rep), rep
    assert rep.count(["dropped", "shim", "invalid-record"]) == 3, rep
    assert rep.count(["dropped", "shim", "torn-record"]) == 1, rep
    assert rep[-1] == ["end", "exit", "0"]


def test_writes_from_the_gadget_are_watched(target, data):
    """The gadget lets by a stat, a faccessat and a read-only openat and
    nothing else: an unlink, an open for writing and a mkdir made from it
    stop as anywhere else, and are reported with their results."""
    res, rep = run_ok([target, "shim-gadget", data], options=with_shim(data))
    assert res.rc == 0 and "unlink 0" in res.out and "create 1" in res.out, res
    assert has(rep, "write", "ok", data + "/victim")  # the touch, then the unlink
    assert rep.count(["write", "ok", data + "/victim"]) == 2, rep
    assert has(rep, "write", "ok", data + "/made")
    assert has(rep, "write", "ok", data + "/newdir")


def test_a_program_that_reuses_the_rings_number_gets_an_idle_library(target, data):
    """A program that closes the ring's descriptor and opens a file of its
    own under that number, then executes: the library in the new program
    finds no ring (the file is not one), writes nothing into the file, and
    its lookups reach the observer as notifications."""
    res, rep = run_ok([target, "shim-reuse", data], options=with_shim(data))
    assert res.rc == 0 and "shim-stat 50/50" in res.out, res
    assert os.path.getsize(os.path.join(data, "decoy")) == 0
    assert has(rep, "probe", "unwatched", data + "/in") and has(rep, "read", "unwatched",
                                                                   data + "/in")


def test_the_library_is_loaded_only_by_its_option(target, data):
    """Without --shim nothing is preloaded and the target sees no ring; a
    --shim that is not one absolute name is refused."""
    res, rep = run_ok(["sh", "-c", 'echo "[$LD_PRELOAD][$BENTO_OBSERVE_RING]"'])
    assert res.out.strip() == "[][]", res
    res, rep = run_ok(["sh", "-c", 'echo "[$LD_PRELOAD]"'], options=with_shim(data))
    assert res.out.strip() == "[%s]" % SHIM, res
    # after the target's own: a library of its that stands in for stat comes first
    # (the observer gets LD_PRELOAD too: a sanitizer build's must be told it is ours)
    asan = ["ASAN_OPTIONS=%s:verify_asan_link_order=0" % os.environ["ASAN_OPTIONS"]] \
        if "ASAN_OPTIONS" in os.environ else []
    res, rep = run_ok(["sh", "-c", 'echo "[$LD_PRELOAD]"'], options=with_shim(data),
                      prefix=["env", "LD_PRELOAD=libm.so.6"] + asan)
    assert res.out.strip() == "[libm.so.6:%s]" % SHIM, res
    with tempfile.TemporaryFile() as rep:
        for bad in ("lib.so", "/a.so:/b.so", "/a b.so"):
            r = harness.run_cmd([OBSERVE, "--report-fd", str(rep.fileno()), "--shim", bad, "--",
                                 "true"], pass_fds=(rep.fileno(),))
            assert r.rc == 2 and "is not one absolute path" in r.err, (bad, r)


# -- the hostile target ------------------------------------------------------------


def test_the_targets_ptrace_is_refused(target, data):
    res, rep = run_ok([target, "ptrace", data])
    assert res.rc == 0
    assert "traceme -1 EPERM" in res.out and "attach -1 EPERM" in res.out
    assert has(rep, "read", "absent", data + "/after-ptrace")  # still traced
    assert rep[-1] == ["end", "exit", "0"]


def test_an_untraced_child_cannot_use_the_observed_calls(target, data):
    res, rep = run_ok([target, "untraced", data])
    assert res.rc == 0, res
    # no tracer to answer SECCOMP_RET_TRACE: the call fails, it does not run unseen
    assert "untraced-open -1 ENOSYS" in res.out
    assert "untraced-getpid 1" in res.out  # calls the filter lets through still work
    assert not has(rep, "read", "ok", data + "/in")
    assert has(rep, "read", "absent", data + "/after-untraced")


def test_a_filter_of_the_target_stacks(target, data):
    res, rep = run_ok([target, "seccomp", data])
    assert res.rc == 0, res
    assert "filter 0" in res.out and "getpid 1" in res.out
    assert "mkdir -1 EACCES" in res.out  # its own filter decides first
    assert "listener -1 EPERM" in res.out  # a listener could hide calls: refused
    assert has(rep, "read", "absent", data + "/after-filter")


def test_sigsys_is_reported(target, data):
    res, rep = run_ok([target, "sigsys", data])
    assert res.rc == 128 + signal.SIGSYS
    assert [w[0] for w in rep].count("sigsys") == 1
    assert rep[-1] == ["end", "signal", str(int(signal.SIGSYS))]


def test_x32_and_ia32(target, data):
    res, rep = run_ok([target, "abi", data])
    assert res.rc == 0, res
    # x32: stopped, refused with ENOSYS, reported by number
    assert "x32 -1 ENOSYS" in res.out and "x32-open -1 ENOSYS" in res.out
    assert has(rep, "dropped", str(0x40000000 | 39), "x32-or-ia32")
    assert has(rep, "dropped", str(0x40000000 | 257), "x32-or-ia32")
    # int $0x80: without ia32 emulation it faults before any filter;
    # with it, the call stops and is refused
    if "int80 child signal 11" not in res.out:
        assert "int80 returned -38" in res.out and has(rep, "dropped", "20", "x32-or-ia32")
    assert has(rep, "read", "absent", data + "/after-abi")


def test_unix_sockets(target, data):
    res, rep = run_ok([target, "unix", data])
    assert "bind 0" in res.out and "connect 0" in res.out and "abstract 0" in res.out
    sock = data + "/sock"
    assert has(rep, "write", "ok", sock) and has(rep, "unix", "bind", sock)
    assert has(rep, "read", "ok", sock) and has(rep, "unix", "connect", sock)
    assert not any("abstract" in w for line in rep for w in line)
    assert len([w for w in rep if w[0] == "unix"]) == 2


# -- ends --------------------------------------------------------------------------


@pytest.mark.parametrize("code", [0, 1, 42])
def test_exit_status(code):
    res, rep = run_ok(["sh", "-c", "exit %d" % code])
    assert res.rc == code
    assert rep[-1] == ["end", "exit", str(code)]


def test_killed_by_a_signal():
    res, rep = run_ok(["sh", "-c", "kill -USR1 $$"])
    assert res.rc == 128 + signal.SIGUSR1
    assert rep[-1] == ["end", "signal", str(int(signal.SIGUSR1))]


def test_a_caught_signal_is_delivered():
    res, rep = run_ok(["sh", "-c", 'trap "exit 9" USR1; kill -USR1 $$; sleep 5; exit 1'])
    assert res.rc == 9, res
    assert rep[-1] == ["end", "exit", "9"]


def test_a_signal_never_makes_a_watched_call_fail_with_eintr(target, data):
    """A signal whose handler has no SA_RESTART, arriving while a call waits
    for the observer to take its notification, gave the call up with EINTR:
    a stat() that fails with EINTR, which none does unobserved.  The call is
    restarted instead (trace.c, restart_unreceived); 3,000 stats under a
    stream of signals see no EINTR."""
    res, rep = run_ok([target, "eintr", data, "3000"])
    assert res.rc == 0 and "eintr 0" in res.out, res
    assert has(rep, "probe", "ok", data + "/in")


def test_a_group_stop_stays_stopped_until_continued(tmp_path):
    mark = tmp_path / "resumed"
    res, rep = run_ok(["sh", "-c", '(sleep 0.3; touch %s; kill -CONT $$) & kill -STOP $$; '
                       'test -e %s && exit 5; exit 6' % (mark, mark)], timeout=20)
    # 5: the shell ran on only after SIGCONT (the mark exists), not before
    assert res.rc == 5, res
    assert rep[-1] == ["end", "exit", "5"]


def test_signals_to_the_observer_reach_the_target(tmp_path):
    with tempfile.TemporaryFile() as rep:
        fd = rep.fileno()
        p = harness.spawn([OBSERVE, "--report-fd", str(fd), "--", "sleep", "30"],
                          pass_fds=(fd,))
        try:
            harness.wait_for(lambda: any(harness.proc_children(p.pid)), what="the target")
            time.sleep(0.2)
            p.send_signal(signal.SIGTERM)
            assert p.wait(timeout=10) == 128 + signal.SIGTERM
        finally:
            p.kill()
            p.wait()
        rep.seek(0)
        assert rep.read().decode().endswith("\nend signal %d\n" % signal.SIGTERM)


def test_the_tracer_killed_kills_the_target(tmp_path):
    pidfile = tmp_path / "pid"
    with tempfile.TemporaryFile() as rep:
        fd = rep.fileno()
        p = harness.spawn([OBSERVE, "--report-fd", str(fd), "--", "sh", "-c",
                           "echo $$ > %s; exec sleep 30" % pidfile], pass_fds=(fd,))
        try:
            harness.wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(),
                             what="the target's pid")
            pid = int(pidfile.read_text())
            start = harness.proc_start_time(pid)
            p.kill()
            p.wait(timeout=10)
            harness.wait_for(lambda: not harness.proc_alive(pid, start), timeout=10,
                             what="the target's death")
        finally:
            p.kill()
            p.wait()
        rep.seek(0)
        assert "end " not in rep.read().decode()  # no end line: the report is cut


def test_usage():
    r = harness.run_cmd([OBSERVE, "--help"])
    assert r.rc == 0 and "--report-fd" in r.out
    r = harness.run_cmd([OBSERVE, "--", "true"])
    assert r.rc == 2 and "--report-fd N is required" in r.err
    r = harness.run_cmd([OBSERVE, "--report-fd", "99", "--", "true"])
    assert r.rc == 2 and "not an open fd" in r.err
    with tempfile.TemporaryFile() as rep:
        r = harness.run_cmd([OBSERVE, "--report-fd", str(rep.fileno())], pass_fds=(rep.fileno(),))
        assert r.rc == 2 and "no command" in r.err
        for bad in ("usr", "/usr/../home", "/usr/", "/usr//lib"):
            r = harness.run_cmd([OBSERVE, "--report-fd", str(rep.fileno()),
                                 "--no-result-under", bad, "--", "true"],
                                pass_fds=(rep.fileno(),))
            assert r.rc == 2 and "not a clean absolute path" in r.err, (bad, r)


def test_the_target_does_not_inherit_the_report_fd(tmp_path):
    with tempfile.TemporaryFile() as rep:
        fd = rep.fileno()
        res = harness.run_cmd([OBSERVE, "--report-fd", str(fd), "--", "sh", "-c",
                               "ls /proc/self/fd/%d" % fd], pass_fds=(fd,))
        assert res.rc != 0, res
