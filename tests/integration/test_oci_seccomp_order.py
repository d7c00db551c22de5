# SPDX-License-Identifier: Apache-2.0
"""The seccomp filter is the last thing the runtime does before execve.

A profile is written for the program, not for the runtime: with a default
action of ERRNO and an allow-list of what the probe itself needs (no
close_range, capset, setresuid, prctl, fcntl, clone, landlock_*), the
container and an exec process must start with or without noNewPrivileges,
for root and for another uid, with preserved fds and a startContainer hook,
while the filter still denies everything else to the program.  Without
noNewPrivileges the kernel loads a filter only for a holder of
CAP_SYS_ADMIN: the runtime keeps it until execve, and the program must not
end up with it."""

import errno

import pytest

from harness import DEFAULT_CAPS, cap_names
from test_seccomp import PROBE_SYSCALLS, lines, profile, rule, run_steps, seccomp_bundle

PROBE = "/bin/bento-probe"
NR_CLOSE_RANGE = 436  # x86_64
NR_CAPSET = 126


def status_fields(text):
    return dict(l.split(":\t", 1) for l in text.splitlines() if ":\t" in l)


def strict_profile(extra=()):
    """Default ERRNO(EPERM); only the probe's own calls are allowed."""
    return profile(default="SCMP_ACT_ERRNO", syscalls=[rule(PROBE_SYSCALLS + list(extra), "SCMP_ACT_ALLOW")])


def strict_bundle(bundle, nnp, uid=0, extra=()):
    b = seccomp_bundle(bundle, strict_profile(extra), nnp=nnp)
    b.process["user"] = {"uid": uid, "gid": uid}
    return b


@pytest.mark.parametrize("nnp", [False, True])
@pytest.mark.parametrize("uid", [0, 1000])
def test_a_profile_that_allows_only_the_program_starts(rt, bundle, nnp, uid):
    b = strict_bundle(bundle, nnp, uid)
    _, steps = run_steps(rt, b, "read /proc/self/status", "caps", "syscall mkdir s:/dev/shm/x 0755")
    # prctl is not allowed: read the two flags from /proc
    status = status_fields(steps[0].json()["data"])
    assert (status["NoNewPrivs"], status["Seccomp"]) == ("1" if nnp else "0", "2"), status
    assert status["Uid"].split() == [str(uid)] * 4, status
    caps = steps[1].json()
    # what was held for loading the filter did not reach the program
    for s in ("permitted", "effective"):
        assert "CAP_SYS_ADMIN" not in cap_names(caps[s]), (s, caps)
    if uid == 0:
        assert cap_names(caps["effective"]) == set(DEFAULT_CAPS), caps
    else:
        assert cap_names(caps["effective"]) == set(), caps
        assert cap_names(caps["permitted"]) == set(), caps
    # the filter is in force: what the profile does not allow is refused
    assert lines(steps[2:]) == [("EPERM", 1)]


def test_preserved_fds_and_a_start_hook_under_a_strict_profile(rt, bundle, tmp_path):
    """--preserve-fds (fd flags changed) and a startContainer hook (fork and
    exec in the init) are the runtime's work: both happen before the filter."""
    extra = tmp_path / "extra"
    extra.write_text("kept\n")
    b = strict_bundle(bundle, nnp=False, extra=["fcntl"])  # readfd's F_GETFD
    b.config.setdefault("hooks", {})["startContainer"] = [{"path": "/bin/true"}]
    b.probe("steps", "readfd 3", "syscall mkdir s:/dev/shm/x 0755")
    res = rt.run(b, None, "--preserve-fds", "1", fd3=str(extra))
    assert res.rc == 0, res
    out = res.out
    assert "kept" in out, res
    assert "EPERM" in out, res


def test_without_a_strict_profile_the_same_calls_work(rt, bundle):
    """The denial above is the filter's: without it mkdir succeeds."""
    b = seccomp_bundle(bundle, profile(), nnp=False)
    _, steps = run_steps(rt, b, "syscall mkdir s:/dev/shm/x 0755")
    assert lines(steps) == [("OK", 0)], steps


@pytest.mark.parametrize("nnp", [False, True])
def test_exec_under_a_strict_profile(rt, bundle, nnp):
    b = strict_bundle(bundle, nnp, extra=["nanosleep", "clock_nanosleep"])  # the init sleeps
    b.probe("sleep", "600")
    cid, _ = rt.create_ok(b)
    rt.start_ok(cid)
    res = rt.cmd("exec", "--user", "1000:1000", cid, PROBE, "steps", "read /proc/self/status",
                 "syscall mkdir s:/dev/shm/y 0755")
    assert res.rc == 0, res
    assert "Seccomp:\\t2" in res.out, res
    assert "CapEff:\\t0000000000000000" in res.out, res
    assert "Uid:\\t1000\\t1000\\t1000\\t1000" in res.out, res
    assert "EPERM" in res.out, res
    rt.kill(cid, "KILL")


def test_a_profile_denying_what_the_runtime_needs_is_still_enforced(rt, bundle):
    """close_range and capset are refused to the program even though the
    runtime itself needed them: the filter is not weakened for the runtime."""
    prof = profile(syscalls=[rule(["close_range", "capset"], "SCMP_ACT_ERRNO", errno.EXDEV)])
    b = seccomp_bundle(bundle, prof, nnp=False)
    _, steps = run_steps(rt, b, "syscall %d 100 200 0" % NR_CLOSE_RANGE, "syscall %d 0 0" % NR_CAPSET)
    assert lines(steps) == [("EXDEV", 1), ("EXDEV", 1)], steps
