# SPDX-License-Identifier: Apache-2.0
"""linux.seccomp: every action, errno values, argument conditions, unknown
names, bad profiles, where the filter goes in (with and without
noNewPrivileges), and the exec gate (docs/exec-gate.md) through SCMP_ACT_NOTIFY
with a test agent (seccomp_agent.py) on listenerPath.

Inside the container the probe makes raw system calls (`syscall`,
`exec-raw`), and `steps` runs several of them in one process without a
shell, so that an exec block does not stop the test itself."""

import errno
import json
import os
import shutil
import socket
import tempfile

import pytest

import harness
from harness import REAPER, expect_create_failure, parse_steps, wait_for

AGENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seccomp_agent.py")
PROBE_IN = "/bin/bento-probe"
AT_FDCWD = (1 << 64) - 100  # -100 as the 64-bit register value the filter sees
NR_EXECVE = 59
NR_EXECVEAT = 322
NR_MKDIR = 83
NR_OPENAT = 257  # the probe names only a few calls
SIGSYS_EXIT = 128 + 31

# What the static probe needs to start, print and exit (strace), and a
# margin of harmless calls; mkdir, mkdirat and getppid are left out.
PROBE_SYSCALLS = [
    "execve", "brk", "arch_prctl", "set_tid_address", "set_robust_list", "rseq", "prlimit64",
    "mprotect", "readlink", "readlinkat", "getrandom", "newfstatat", "fstat", "write", "writev",
    "exit", "exit_group", "getpid", "uname", "ioctl", "rt_sigaction", "rt_sigprocmask",
    "rt_sigreturn", "mmap", "munmap", "futex", "lseek", "close", "read", "openat",
]


def profile(default="SCMP_ACT_ALLOW", syscalls=(), **extra):
    p = {"defaultAction": default, "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
         "syscalls": list(syscalls)}
    p.update(extra)
    return p


def rule(names, action, errno_ret=None, args=None):
    r = {"names": list(names), "action": action}
    if errno_ret is not None:
        r["errnoRet"] = errno_ret
    if args is not None:
        r["args"] = list(args)
    return r


def seccomp_bundle(bundle, prof, nnp=True):
    b = bundle()
    b.linux["seccomp"] = prof
    b.process["noNewPrivileges"] = nnp
    # SIGSYS dumps core by default: no core files from the kill tests
    b.process["rlimits"] = [{"type": "RLIMIT_CORE", "hard": 0, "soft": 0}]
    return b


def run_steps(rt, b, *steps, expect_rc=0):
    b.probe("steps", *steps)
    res = rt.run(b)
    if expect_rc is not None:
        assert res.rc == expect_rc, "expected exit %s:\n%s" % (expect_rc, res)
    return res, parse_steps(list(steps), res.out)


def lines(steps):
    return [(s.line, s.rc) for s in steps]


# -- features and state ------------------------------------------------------


def test_features_describe_seccomp(rt):
    res = rt.cmd("features")
    assert res.rc == 0, res
    sc = res.json()["linux"]["seccomp"]
    assert sc["enabled"] is True
    assert set(sc["actions"]) == {"SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD",
                                  "SCMP_ACT_TRAP", "SCMP_ACT_ERRNO", "SCMP_ACT_TRACE", "SCMP_ACT_ALLOW",
                                  "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY"}
    assert set(sc["operators"]) == {"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ",
                                    "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ"}
    assert {"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32", "SCMP_ARCH_AARCH64"} <= set(sc["archs"])
    flags = {"SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
             "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"}
    assert set(sc["knownFlags"]) == flags
    # this machine's kernel (6.x) has all four
    assert set(sc["supportedFlags"]) == flags


def test_state_reports_the_compiled_filter(rt, bundle):
    b = seccomp_bundle(bundle, profile(syscalls=[
        rule(["mkdir", "bento_no_such_call"], "SCMP_ACT_ERRNO", 18),
        rule(["getpid"], "SCMP_ACT_ALLOW"),  # = the default: dropped
        rule(["personality"], "SCMP_ACT_ERRNO", args=[{"index": 0, "value": 8, "op": "SCMP_CMP_EQ"},
                                                      {"index": 0, "value": 9, "op": "SCMP_CMP_EQ"}]),
    ], flags=["SECCOMP_FILTER_FLAG_LOG"]))
    b.probe("exit", "0")
    cache = os.path.join(rt.root, ".cache", "seccomp")
    cid, pid = rt.create_ok(b, global_opts=("--seccomp-cache", cache))
    sc = rt.state_json(cid)["bento"]["seccomp"]
    assert sc["defaultAction"] == "SCMP_ACT_ALLOW"
    assert sc["architectures"] == ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"]
    assert sc["flags"] == ["SECCOMP_FILTER_FLAG_LOG"]
    # mkdir once, personality split into two rules, getpid dropped
    assert sc["rules"] == 3
    assert sc["skipped"] == ["bento_no_such_call"]
    assert sc["bpfInstructions"] > 0
    assert sc["cached"] is False  # a fresh cache directory is empty
    assert "listenerPath" not in sc
    # the init has not installed it yet: that happens after start (NNP)
    with open("/proc/%d/status" % pid) as f:
        assert "Seccomp:\t0" in f.read()
    rt.start_ok(cid)
    assert REAPER.exit_code(pid) == 0


def test_compiled_programs_are_cached_exactly(rt, bundle):
    """--seccomp-cache DIR: a second create with the same profile takes the
    program from the cache; a different errno, a damaged entry or a cache
    directory others can write to never give a wrong program."""
    cache = os.path.join(rt.root, ".cache", "seccomp")

    def create_and_run(errno_ret):
        b = seccomp_bundle(bundle, profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO", errno_ret)]))
        b.probe("syscall", "mkdir", "s:/dev/shm/a", "0755")
        cid, pid = rt.create_ok(b, global_opts=("--seccomp-cache", cache))
        cached = rt.state_json(cid)["bento"]["seccomp"]["cached"]
        rt.start_ok(cid)
        assert REAPER.exit_code(pid) == 1
        rt.wait_status(cid, "stopped")
        out = rt.container_output(cid).strip()
        assert rt.delete(cid).rc == 0
        return cached, out

    assert create_and_run(errno.EXDEV) == (False, "EXDEV")
    entries = os.listdir(cache)
    assert len(entries) == 1 and os.stat(cache).st_mode & 0o777 == 0o700
    assert create_and_run(errno.EXDEV) == (True, "EXDEV")
    # another errno is another program
    assert create_and_run(errno.ENOMSG) == (False, "ENOMSG")
    assert create_and_run(errno.ENOMSG) == (True, "ENOMSG")
    assert len(os.listdir(cache)) == 2
    # a damaged key is a miss, and the entry is written anew
    path = os.path.join(cache, entries[0])
    with open(path, "r+b") as f:
        f.seek(20)
        byte = f.read(1)
        f.seek(20)
        f.write(bytes([byte[0] ^ 0xff]))
    assert create_and_run(errno.EXDEV) == (False, "EXDEV")
    assert create_and_run(errno.EXDEV) == (True, "EXDEV")
    # a cache directory others could write to is not used
    os.chmod(cache, 0o777)
    assert create_and_run(errno.EXDEV) == (False, "EXDEV")


def test_the_default_cache_outlives_a_fresh_root(rt, bundle, test_dir):
    """Without --seccomp-cache the programs are kept in the default state
    root, whatever --root says: a container in another, new root (as each
    `bento run` makes) finds the program an earlier one compiled."""
    if os.geteuid() != 0:
        pytest.skip("the default state root is /run/bento-runtime for root")
    default = "/run/bento-runtime/.cache/seccomp"
    # an argument value no other test uses: a key never compiled before
    arg = int.from_bytes(os.urandom(6), "little")
    prof = profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO", errno.EXDEV,
                                  args=[{"index": 1, "value": arg, "op": "SCMP_CMP_EQ"}])])
    other = os.path.join(test_dir, "other-root")

    def cached(root_opts):
        b = seccomp_bundle(bundle, prof)
        b.probe("exit", "0")
        cid = rt.new_id()
        res = rt.create(b, cid, global_opts=root_opts)
        assert res.rc == 0, "create failed:\n%s" % res
        state = json.loads(rt.cmd("state", cid, global_opts=root_opts).out)
        rt.cmd("start", cid, global_opts=root_opts)
        REAPER.exit_code(res.pid)
        assert rt.cmd("delete", "-f", cid, global_opts=root_opts).rc == 0
        return state["bento"]["seccomp"]["cached"]

    assert cached(()) is False
    assert not os.path.exists(os.path.join(rt.root, ".cache"))
    st = os.stat(default)
    assert st.st_uid == 0 and st.st_mode & 0o777 == 0o700
    assert cached(("--root", other)) is True


def test_a_relative_cache_directory_is_refused(rt):
    res = rt.cmd("list", global_opts=("--seccomp-cache", "relative/cache"))
    assert res.rc != 0, res
    assert "--seccomp-cache: expected an absolute path, got 'relative/cache'" in res.err, res
    assert rt.cmd("list", global_opts=("--seccomp-cache", "/nonexistent/but/absolute")).rc == 0


# -- actions -----------------------------------------------------------------


def test_errno_with_errnoret_denies_only_that_call(rt, bundle):
    b = seccomp_bundle(bundle, profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO", errno.EXDEV)]))
    _, steps = run_steps(rt, b, "syscall mkdir s:/dev/shm/a 0755", "syscall mkdirat -100 s:/dev/shm/b 0755",
                         "stat /dev/shm/a", "syscall getpid", "nnp")
    assert lines(steps[:2]) == [("EXDEV", 1), ("OK", 0)]
    assert steps[2].rc != 0 and "ENOENT" in steps[2].text, "the denied mkdir must not have run: %r" % steps[2]
    assert lines(steps[3:4]) == [("OK", 0)]
    assert steps[4].json() == {"no_new_privs": 1, "seccomp": 2}


def test_errno_without_errnoret_is_eperm(rt, bundle):
    b = seccomp_bundle(bundle, profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO")]))
    _, steps = run_steps(rt, b, "syscall mkdir s:/dev/shm/a 0755")
    assert lines(steps) == [("EPERM", 1)]


def test_default_errno_with_an_allow_list(rt, bundle):
    b = seccomp_bundle(bundle, profile("SCMP_ACT_ERRNO", [rule(PROBE_SYSCALLS, "SCMP_ACT_ALLOW")],
                                       defaultErrnoRet=errno.ENOMSG))
    _, steps = run_steps(rt, b, "syscall getpid", "syscall mkdir s:/dev/shm/a 0755", "syscall getppid",
                         "syscall mkdirat -100 s:/dev/shm/b 0755")
    assert lines(steps) == [("OK", 0), ("ENOMSG", 1), ("ENOMSG", 1), ("ENOMSG", 1)]


def test_default_errno_without_errnoret_is_eperm(rt, bundle):
    b = seccomp_bundle(bundle, profile("SCMP_ACT_ERRNO", [rule(PROBE_SYSCALLS, "SCMP_ACT_ALLOW")]))
    _, steps = run_steps(rt, b, "syscall getppid")
    assert lines(steps) == [("EPERM", 1)]


@pytest.mark.parametrize("action", ["SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD"])
def test_kill_actions_end_the_process_with_sigsys(rt, bundle, action):
    b = seccomp_bundle(bundle, profile(syscalls=[rule(["mkdir"], action)]))
    res, steps = run_steps(rt, b, "syscall getpid", "syscall mkdir s:/dev/shm/a 0755", "syscall getpid",
                           expect_rc=SIGSYS_EXIT)
    assert lines(steps) == [("OK", 0)], "the process must die in the second step:\n%s" % res


def test_trap_sends_sigsys(rt, bundle):
    b = seccomp_bundle(bundle, profile(syscalls=[rule(["mkdir"], "SCMP_ACT_TRAP")]))
    _, steps = run_steps(rt, b, "fork syscall mkdir s:/dev/shm/a 0755",
                         "syscall --catch-sigsys mkdir s:/dev/shm/a 0755", "stat /dev/shm/a",
                         "syscall getpid")
    assert steps[0].rc == SIGSYS_EXIT, steps[0]
    assert lines(steps[1:2]) == [("SIGSYS nr=%d" % NR_MKDIR, 1)]
    assert steps[2].rc != 0 and "ENOENT" in steps[2].text
    assert lines(steps[3:]) == [("OK", 0)]


@pytest.mark.parametrize("action", ["SCMP_ACT_LOG", "SCMP_ACT_ALLOW"])
def test_log_and_allow_let_the_call_through(rt, bundle, action):
    b = seccomp_bundle(bundle, profile("SCMP_ACT_ERRNO", [rule(PROBE_SYSCALLS, "SCMP_ACT_ALLOW"),
                                                          rule(["mkdir"], action)], defaultErrnoRet=errno.ENOMSG))
    _, steps = run_steps(rt, b, "syscall mkdir s:/dev/shm/a 0755", "stat /dev/shm/a", "syscall getppid")
    assert lines(steps[:1]) == [("OK", 0)]
    assert steps[1].rc == 0 and steps[1].json()["type"] == "dir", steps[1]
    assert lines(steps[2:]) == [("ENOMSG", 1)]


def test_trace_without_a_tracer_fails_the_call(rt, bundle):
    # SCMP_ACT_TRACE with nobody tracing: the kernel answers ENOSYS
    b = seccomp_bundle(bundle, profile(syscalls=[rule(["mkdir"], "SCMP_ACT_TRACE", 7)]))
    _, steps = run_steps(rt, b, "syscall mkdir s:/dev/shm/a 0755", "syscall getpid")
    assert lines(steps) == [("ENOSYS", 1), ("OK", 0)]


# -- argument conditions -----------------------------------------------------


def test_argument_conditions(rt, bundle):
    b = seccomp_bundle(bundle, profile(syscalls=[
        # two conditions on one argument: either value is denied (OR)
        rule(["personality"], "SCMP_ACT_ERRNO", errno.EXDEV,
             [{"index": 0, "value": 0x8, "op": "SCMP_CMP_EQ"},
              {"index": 0, "value": 0x200, "op": "SCMP_CMP_EQ"}]),
        # conditions on different arguments: both must hold (AND)
        rule(["mkdirat"], "SCMP_ACT_ERRNO", errno.ENOMSG,
             [{"index": 0, "value": AT_FDCWD, "op": "SCMP_CMP_EQ"},
              {"index": 2, "value": 0o700, "op": "SCMP_CMP_EQ"}]),
        # value is the mask, valueTwo the expected result
        rule(["umask"], "SCMP_ACT_ERRNO", errno.EXDEV,
             [{"index": 0, "value": 0o700, "valueTwo": 0o700, "op": "SCMP_CMP_MASKED_EQ"}]),
        rule(["mkdir"], "SCMP_ACT_ERRNO", errno.ENOMSG, [{"index": 1, "value": 0o750, "op": "SCMP_CMP_GT"}]),
    ]))
    _, steps = run_steps(rt, b,
                         "syscall personality 0x8", "syscall personality 0x200", "syscall personality 0xffffffff",
                         "syscall mkdirat -100 s:/dev/shm/a 0700", "syscall mkdirat -100 s:/dev/shm/b 0755",
                         "syscall umask 0777", "syscall umask 0022",
                         "syscall mkdir s:/dev/shm/c 0755", "syscall mkdir s:/dev/shm/d 0700")
    assert lines(steps) == [("EXDEV", 1), ("EXDEV", 1), ("OK", 0),
                            ("ENOMSG", 1), ("OK", 0),
                            ("EXDEV", 1), ("OK", 0),
                            ("ENOMSG", 1), ("OK", 0)]


def test_entries_on_one_call_are_ored_their_conditions_anded(rt, bundle):
    """The shape of bento's privilege-bit rules: several entries for openat,
    each with conditions on two arguments.  One entry matches only when
    both of its conditions hold; the entries are alternatives."""
    o_creat, o_wronly = 0o100, 0o1
    b = seccomp_bundle(bundle, profile(syscalls=[
        rule(["openat"], "SCMP_ACT_ERRNO", errno.EXDEV,
             [{"index": 2, "value": o_creat, "valueTwo": o_creat, "op": "SCMP_CMP_MASKED_EQ"},
              {"index": 3, "value": 0o4000, "valueTwo": 0o4000, "op": "SCMP_CMP_MASKED_EQ"}]),
        rule(["openat"], "SCMP_ACT_ERRNO", errno.ENOMSG,
             [{"index": 2, "value": o_creat, "valueTwo": o_creat, "op": "SCMP_CMP_MASKED_EQ"},
              {"index": 3, "value": 0o2000, "valueTwo": 0o2000, "op": "SCMP_CMP_MASKED_EQ"}]),
    ]))
    flags = o_creat | o_wronly
    _, steps = run_steps(rt, b,
                         "syscall %d -100 s:/dev/shm/a %d 04644" % (NR_OPENAT, flags),
                         "syscall %d -100 s:/dev/shm/b %d 02644" % (NR_OPENAT, flags),
                         "syscall %d -100 s:/dev/shm/c %d 0644" % (NR_OPENAT, flags),
                         "syscall %d -100 s:/dev/shm/c 0 04644" % NR_OPENAT,
                         "syscall %d -100 s:/dev/shm/c 0 02644" % NR_OPENAT)
    assert lines(steps) == [("EXDEV", 1), ("ENOMSG", 1), ("OK", 0), ("OK", 0), ("OK", 0)]


# -- names libseccomp does not know ------------------------------------------


def test_unknown_syscall_names_are_skipped_with_a_warning(rt, bundle):
    b = seccomp_bundle(bundle, profile(syscalls=[
        rule(["bento_no_such_call", "mkdir", "bento_other_fake"], "SCMP_ACT_ERRNO", errno.EXDEV),
        rule(["bento_no_such_call"], "SCMP_ACT_KILL"),
    ]))
    res, steps = run_steps(rt, b, "syscall mkdir s:/dev/shm/a 0755")
    assert lines(steps) == [("EXDEV", 1)]
    warnings = [ln for ln in res.err.splitlines() if "unknown system call" in ln]
    assert len(warnings) == 2, res
    assert 'linux.seccomp.syscalls[0].names[0]: unknown system call "bento_no_such_call" skipped' in warnings[0]
    assert 'linux.seccomp.syscalls[0].names[2]: unknown system call "bento_other_fake" skipped' in warnings[1]
    assert all(ln.startswith("bento-runtime: warning: ") for ln in warnings), res


# -- profiles that are refused -----------------------------------------------

BAD_PROFILES = {
    "unknown action": (profile(syscalls=[rule(["getpid"], "SCMP_ACT_ERRNO"), rule(["mkdir"], "SCMP_ACT_FOO")]),
                       'linux.seccomp.syscalls[1].action: unknown action "SCMP_ACT_FOO"'),
    "unknown default action": (profile("SCMP_ACT_NOPE"), 'linux.seccomp.defaultAction: unknown action "SCMP_ACT_NOPE"'),
    "missing default action": ({"syscalls": []}, "linux.seccomp.defaultAction: required property is missing"),
    "defaultErrnoRet with ALLOW": (profile(defaultErrnoRet=1),
                                   "linux.seccomp.defaultErrnoRet: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take an "
                                   "errno, not SCMP_ACT_ALLOW"),
    "errnoRet with KILL": (profile(syscalls=[rule(["mkdir"], "SCMP_ACT_KILL", 1)]),
                           "linux.seccomp.syscalls[0].errnoRet: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE"),
    "errnoRet out of range": (profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO", 70000)]),
                              "linux.seccomp.syscalls[0].errnoRet: expected an integer between 0 and 4095"),
    "bad op": (profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO", args=[{"index": 0, "value": 1, "op": "X"}])]),
               'linux.seccomp.syscalls[0].args[0].op: unknown operator "X"'),
    "index 6": (profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO", args=[
        {"index": 1, "value": 1, "op": "SCMP_CMP_EQ"}, {"index": 6, "value": 1, "op": "SCMP_CMP_EQ"}])]),
        "linux.seccomp.syscalls[0].args[1].index: expected an integer between 0 and 5, got 6"),
    "missing value": (profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO", args=[{"index": 0, "op": "SCMP_CMP_EQ"}])]),
                      "linux.seccomp.syscalls[0].args[0].value: required property is missing"),
    "no names": (profile(syscalls=[rule([], "SCMP_ACT_ERRNO")]),
                 "linux.seccomp.syscalls[0].names: must name at least one system call"),
    "name not a string": (profile(syscalls=[rule(["mkdir", 7], "SCMP_ACT_ERRNO")]),
                          "linux.seccomp.syscalls[0].names[1]: expected a string, got a number"),
    "unknown architecture": (profile(architectures=["SCMP_ARCH_X86_64", "SCMP_ARCH_VAX"]),
                             'linux.seccomp.architectures[1]: unknown architecture "SCMP_ARCH_VAX"'),
    "unknown flag": (profile(flags=["SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_BOGUS"]),
                     'linux.seccomp.flags[1]: unknown flag "SECCOMP_FILTER_FLAG_BOGUS"'),
    "notify without listenerPath": (profile(syscalls=[rule(["execve"], "SCMP_ACT_NOTIFY")]),
                                    "linux.seccomp.syscalls[0].action: SCMP_ACT_NOTIFY needs "
                                    "linux.seccomp.listenerPath"),
    "notify as default": (profile("SCMP_ACT_NOTIFY", listenerPath="/run/x.sock"),
                          "linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be the default action"),
    "notify on sendmsg": (profile(syscalls=[rule(["execve", "sendmsg"], "SCMP_ACT_NOTIFY")],
                                  listenerPath="/run/x.sock"),
                          "linux.seccomp.syscalls[0].names[1]: SCMP_ACT_NOTIFY on sendmsg is refused"),
    "empty listenerPath": (profile(syscalls=[rule(["execve"], "SCMP_ACT_NOTIFY")], listenerPath=""),
                           "linux.seccomp.listenerPath: must not be empty"),
    "relative listenerPath too long": (profile(syscalls=[rule(["execve"], "SCMP_ACT_NOTIFY")],
                                               listenerPath="x" * 100),
                                       "linux.seccomp.listenerPath: longer than a unix socket address can be"),
    "long listenerPath": (profile(syscalls=[rule(["execve"], "SCMP_ACT_NOTIFY")], listenerPath="/" + "x" * 120),
                          "linux.seccomp.listenerPath: longer than a unix socket address can be"),
    "not an object": ([], "linux.seccomp"),
}


@pytest.mark.parametrize("case", sorted(BAD_PROFILES))
def test_bad_profile_fails_create_and_leaves_nothing(rt, bundle, case):
    prof, message = BAD_PROFILES[case]
    b = bundle()
    b.linux["seccomp"] = prof
    expect_create_failure(rt, b, message=message)


# -- flags and architectures -------------------------------------------------


def test_flags_are_accepted_and_the_filter_works(rt, bundle):
    b = seccomp_bundle(bundle, profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO", errno.EXDEV)], flags=[
        "SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
        # meaningless without a listener; the kernel would refuse it alone
        "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"]))
    _, steps = run_steps(rt, b, "syscall mkdir s:/dev/shm/a 0755")
    assert lines(steps) == [("EXDEV", 1)]


def test_native_architecture_only(rt, bundle):
    prof = profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO", errno.EXDEV)])
    del prof["architectures"]
    b = seccomp_bundle(bundle, prof)
    _, steps = run_steps(rt, b, "syscall mkdir s:/dev/shm/a 0755")
    assert lines(steps) == [("EXDEV", 1)]


# -- where the filter goes in ------------------------------------------------


def test_without_nnp_the_filter_binds_a_target_of_another_uid(rt, bundle):
    b = seccomp_bundle(bundle, profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO", errno.EXDEV)]), nnp=False)
    b.process["user"] = {"uid": 1000, "gid": 1000}
    _, steps = run_steps(rt, b, "nnp", "ids", "syscall mkdir s:/dev/shm/a 0755")
    assert steps[0].json() == {"no_new_privs": 0, "seccomp": 2}
    assert steps[1].json()["euid"] == 1000, steps[1]
    assert lines(steps[2:]) == [("EXDEV", 1)]


@pytest.mark.parametrize("nnp", [True, False])
def test_profile_denying_execve_blocks_the_target_too(rt, bundle, nnp):
    """No seam: the runtime's own execve of the target is subject to the
    filter.  create succeeds (the filter is compiled and, without NNP,
    even installed), start lets the init go, its exec fails, and start
    says so: a target that never ran is the runtime's failure."""
    b = seccomp_bundle(bundle, profile(syscalls=[rule(["execve", "execveat"], "SCMP_ACT_ERRNO")]), nnp=nnp)
    b.probe("exit", "0")
    cid, pid = rt.create_ok(b)
    assert rt.status(cid) == "created"
    res = rt.start(cid)
    assert res.rc == 1, res
    assert 'cannot start container %s: exec "%s": Operation not permitted' % (cid, PROBE_IN) in res.err, res
    assert REAPER.exit_code(pid) == 126
    # a start that failed leaves no container behind
    gone = rt.state(cid)
    assert gone.rc != 0 and "does not exist" in gone.err, gone
    err = open(rt.err_path(cid)).read()
    assert 'bento-runtime: exec "%s": Operation not permitted' % PROBE_IN in err, err


# -- SCMP_ACT_NOTIFY: the exec gate -----------------------------------------


class AgentProc:
    def __init__(self, base, **opts):
        self.base = base
        self.socket = os.path.join(base, "agent.sock")
        self.report_path = os.path.join(base, "report.json")
        self.ready = os.path.join(base, "ready")
        argv = ["/usr/bin/python3", AGENT, "--socket", self.socket, "--report", self.report_path,
                "--ready", self.ready, "--timeout", "60"]
        for k, v in opts.items():
            argv += ["--" + k.replace("_", "-"), str(v)]
        self.err = open(os.path.join(base, "agent.err"), "wb")
        self.p = harness.spawn(argv, stdin=harness.subprocess.DEVNULL, stdout=self.err, stderr=self.err)
        wait_for(lambda: os.path.exists(self.ready) or self.p.poll() is not None, timeout=20,
                 what="the seccomp agent to listen")
        assert self.p.poll() is None, "agent died: %s" % self.stderr()

    def stderr(self):
        with open(os.path.join(self.base, "agent.err")) as f:
            return f.read()

    def report(self):
        with open(self.report_path) as f:
            return json.load(f)

    def wait(self, timeout=20):
        try:
            return self.p.wait(timeout=timeout)
        finally:
            harness._forget(self.p)

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
        self.wait()
        self.err.close()


@pytest.fixture
def agent_dir():
    # short: unix socket paths are limited to 107 bytes
    d = tempfile.mkdtemp(prefix="bsa.", dir="/tmp")
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def agent(agent_dir):
    made = []

    def start(**opts):
        a = AgentProc(agent_dir, **opts)
        made.append(a)
        return a

    yield start
    for a in made:
        a.stop()


def gate_profile(listener, **extra):
    return profile(syscalls=[rule(["execve", "execveat"], "SCMP_ACT_NOTIFY")], listenerPath=listener, **extra)


EXEC = "exec-raw %s " + PROBE_IN + " exit 0"


def test_notify_exec_gate(rt, bundle, agent, agent_dir):
    """docs/exec-gate.md, "What the gate lets through": the agent lets exactly the runtime's own exec
    through, denies every later execve and execveat (from the target and
    from its children), and once it has gone the kernel fails them with
    ENOSYS."""
    shared = os.path.join(agent_dir, "shared")
    os.makedirs(shared)
    ag = agent(allow=1, errno=errno.EPERM, deny_max=3, gone=os.path.join(shared, "gone"))
    b = seccomp_bundle(bundle, gate_profile(ag.socket, listenerMetadata="bento-test-metadata",
                                            flags=["SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"]))
    b.add_mount("/mnt", "bind", shared, ["rbind"])
    b.probe("steps", EXEC % "execve", EXEC % "execveat", "fork " + EXEC % "execve",
            "wait-file /mnt/gone 30",
            EXEC % "execve", EXEC % "execveat", "fork " + EXEC % "execveat")
    cid, pid = rt.create_ok(b)
    # connected during create; with noNewPrivileges nothing is sent before start
    assert ag.report()["state"] is None
    rt.start_ok(cid)
    assert REAPER.exit_code(pid, timeout=40) == 0
    assert ag.wait() == 0, ag.stderr()

    rep = ag.report()
    assert "error" not in rep, rep
    assert rep["fds"] == 1 and rep["closed"] is True
    msg = rep["state"]
    assert msg["ociVersion"] and msg["fds"] == ["seccompFd"]
    assert msg["pid"] == pid and msg["metadata"] == "bento-test-metadata"
    st = msg["state"]
    assert st["id"] == cid and st["status"] == "creating" and st["pid"] == pid
    assert st["bundle"] == b.path and isinstance(st["annotations"], dict)

    notes = rep["notifications"]
    assert [(n["nr"], n["answer"]) for n in notes] == [
        (NR_EXECVE, "continue"), (NR_EXECVE, "errno 1"), (NR_EXECVEAT, "errno 1"), (NR_EXECVE, "errno 1")]
    assert notes[0]["pid"] == pid, "the first exec is the runtime's, by the init"
    assert notes[3]["pid"] != pid, "the fourth comes from a forked child"

    steps = parse_steps(["?"] * 7, rt.container_output(cid))
    assert lines(steps) == [("EPERM", 1), ("EPERM", 1), ("EPERM", 1), ("OK", 0),
                            ("ENOSYS", 1), ("ENOSYS", 1), ("ENOSYS", 1)]


def test_notify_without_nnp_hands_the_listener_over_at_start(rt, bundle, agent):
    """Without noNewPrivileges too the filter is the init's last step: the
    agent gets the listener once start released the init, not in create."""
    ag = agent(allow=1, errno=errno.EACCES)
    # TSYNC with a listener: the kernel wants TSYNC_ESRCH added, which the runtime does
    b = seccomp_bundle(bundle, gate_profile(ag.socket, flags=["SECCOMP_FILTER_FLAG_TSYNC"]), nnp=False)
    b.probe("steps", EXEC % "execveat")
    cid, pid = rt.create_ok(b)
    assert ag.report()["state"] is None
    rt.start_ok(cid)
    assert REAPER.exit_code(pid, timeout=30) == 0
    assert ag.wait() == 0, ag.stderr()
    msg = ag.report()["state"]
    assert msg["pid"] == pid and msg["state"]["status"] == "creating" and "metadata" not in msg
    assert [(n["nr"], n["answer"]) for n in ag.report()["notifications"]] == [
        (NR_EXECVE, "continue"), (NR_EXECVEAT, "errno 13")]
    assert lines(parse_steps(["?"], rt.container_output(cid))) == [("EACCES", 1)]


def test_notify_target_cannot_start_once_the_agent_is_gone(rt, bundle, agent):
    """The agent closes the listener before the target's exec: fail closed."""
    ag = agent(allow=0, deny_max=0)
    b = seccomp_bundle(bundle, gate_profile(ag.socket))
    b.probe("exit", "0")
    cid, pid = rt.create_ok(b)
    res = rt.start(cid)
    assert res.rc == 1 and 'exec "%s": Function not implemented' % PROBE_IN in res.err, res
    assert ag.wait() == 0, ag.stderr()
    assert REAPER.exit_code(pid, timeout=30) == 126
    err = open(rt.err_path(cid)).read()
    assert 'bento-runtime: exec "%s": Function not implemented' % PROBE_IN in err, err


def test_notify_relative_listener_is_in_the_bundle_directory(rt, bundle, agent):
    """A relative listenerPath names a socket relative to the bundle
    directory (as root.path does), whatever the runtime's own directory is."""
    ag = agent(allow=1, errno=errno.EPERM)
    b = seccomp_bundle(bundle, gate_profile("agent.sock"))
    os.symlink(ag.socket, os.path.join(b.path, "agent.sock"))
    assert not os.path.lexists(os.path.join(os.getcwd(), "agent.sock"))
    b.probe("steps", EXEC % "execve")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    assert REAPER.exit_code(pid, timeout=30) == 0
    assert ag.wait() == 0, ag.stderr()
    assert [(n["nr"], n["answer"]) for n in ag.report()["notifications"]] == [
        (NR_EXECVE, "continue"), (NR_EXECVE, "errno 1")]
    assert lines(parse_steps(["?"], rt.container_output(cid))) == [("EPERM", 1)]


def test_notify_without_an_agent_fails_create(rt, bundle, agent_dir):
    path = os.path.join(agent_dir, "nobody.sock")
    b = bundle()
    b.linux["seccomp"] = gate_profile(path)
    res = expect_create_failure(rt, b, message=["linux.seccomp.listenerPath: cannot connect to the seccomp "
                                                "agent at '%s'" % path, "No such file or directory"])
    # a socket nobody listens on
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(path)
        expect_create_failure(rt, b, message=["cannot connect to the seccomp agent", "Connection refused"])
    finally:
        s.close()
    assert res.rc == 1


# -- rootless ----------------------------------------------------------------


@pytest.mark.rootless
def test_rootless_filter(rrt, rbundle):
    b = rbundle()
    b.linux["seccomp"] = profile(syscalls=[rule(["mkdir"], "SCMP_ACT_ERRNO", errno.EXDEV)])
    b.probe("steps", "syscall mkdir s:/dev/shm/a 0755", "nnp")
    res = rrt.run(b)
    assert res.rc == 0, res
    steps = parse_steps(["?", "?"], res.out)
    assert lines(steps[:1]) == [("EXDEV", 1)]
    assert steps[1].json()["seccomp"] == 2
