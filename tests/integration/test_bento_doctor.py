# SPDX-License-Identifier: Apache-2.0
"""`bento doctor` and `bento version` (docs/doctor.md,
docs/cli/bento-version.md).

Every scenario is real: the healthy host is this machine as root; a missing
bento-runtime is $BENTO_RUNTIME pointing nowhere; cgroup limits that cannot
be delegated are doctor run as uid 65534 (setpriv), whose cgroups belong to
root; a host where user namespaces are switched off is a fresh user namespace
whose user.max_user_namespaces is 0 (so bento-runtime could not build its
sandbox from there either).  Each is checked in the table, in --json, and in
the exit code, which is the same with and without --json.  Needs
$BENTO_BUILD/bin/bento and bento-runtime next to it.

Commands go through harness.run_cmd: the session's reaper thread reaps any
child it was not told about, and subprocess.run would then read exit 0.
"""

import glob
import json
import os
import pwd
import re
import shutil

import pytest

import harness

BUILD = os.path.abspath(os.environ.get("BENTO_BUILD", "build"))
BENTO = os.path.join(BUILD, "bin", "bento")
ROOT_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LAYERS = ["filesystem", "network", "exec-block", "exec-strict", "limits-memory",
          "limits-pids", "limits-cpu", "auto-exec-report"]
NOBODY = 65534


def base_env(**extra):
    env = {k: v for k, v in os.environ.items() if k != "BENTO_RUNTIME"}
    env.setdefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
    env.update(extra)
    return env


class Done:
    def __init__(self, res):
        assert res.rc is not None, str(res)
        self.returncode, self.stdout, self.stderr = res.rc, res.out, res.err


def run(argv, env=None, prefix=()):
    if not os.access(BENTO, os.X_OK):
        pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)
    return Done(harness.run_cmd([*prefix, BENTO, *argv], timeout=60,
                                env=env if env is not None else base_env()))


def doctor(*flags, env=None, prefix=()):
    """Human and JSON doctor output for one setting; the exit codes must agree."""
    human = run(["doctor", *flags], env=env, prefix=prefix)
    js = run(["doctor", "--json", *flags], env=env, prefix=prefix)
    assert human.returncode == js.returncode, (human.stderr, js.stderr)
    assert human.returncode in (0, 3), human.stderr
    doc = json.loads(js.stdout)
    assert doc["ready"] == (js.returncode == 0)
    return human, doc


def rows(out):
    """The LAYER table as {layer: (tier, state, detail)}, in order."""
    lines = out.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("LAYER "))
    table = {}
    for line in lines[start + 1:]:
        if not line.strip():
            break
        cells = re.split(r"\s{2,}", line.strip(), maxsplit=3)
        table[cells[0]] = (cells[1], cells[2], cells[3] if len(cells) > 3 else "")
    return table


def states(doc):
    return {l["layer"]: l["state"] for l in doc["layers"]}


def as_nobody():
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed")
    return ("setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups")


def probe_leftovers():
    return [p for depth in ("*", "*/*", "*/*/*")
            for p in glob.glob("/sys/fs/cgroup/%s/bento-probe-*" % depth)]


# -- J1: the healthy host -----------------------------------------------------

def test_healthy_host():
    human, doc = doctor()
    out = human.stdout
    assert human.returncode == 0, out
    assert out.startswith("Platform: linux/amd64\n")
    table = rows(out)
    assert list(table) == LAYERS
    assert all(state == "enforced" for _, state, _ in table.values()), out
    assert table["filesystem"][0] == "core" and table["exec-block"][0] == "hardening"
    assert "Landlock backstop active" in table["filesystem"][2]
    # the exec-block note, about execveat (our gate closes it)
    assert table["exec-block"][2] == "see note below"
    note = out.split("exec-block (enforced):\n", 1)[1].split("\n\n", 1)[0]
    assert "execveat" in note
    assert 'Credential shields anchor on: "%s"' % os.environ.get("HOME", "/root") in out
    assert out.rstrip().endswith("This host enforces every layer.")
    assert doc["ready"] is True and doc["fully_enforced"] is True
    assert doc["platform"] == "linux/amd64" and doc["platform_verified"] is True
    assert [l["layer"] for l in doc["layers"]] == LAYERS
    assert {l["tier"] for l in doc["layers"]} == {"core", "hardening"}
    assert "shield_anchors" not in doc
    assert "execveat" in doc["layers"][2]["consequences"]
    # the facts behind it, systemd's absence among them
    host = doc["host"]
    assert host["namespaces"] == "usable" and host["seccomp_notify"] is True
    assert host["landlock_abi"] >= 1
    assert host["cgroup"]["mode"] in ("v1", "hybrid", "v2")
    assert host["bento_runtime"] == os.path.join(BUILD, "bin", "bento-runtime")
    assert host["exec_gate_found"] is True and host["egress_proxy_found"] is True
    if not os.path.isdir("/run/systemd/system"):
        assert host["systemd_running"] is False and host["systemd_bus"] is False
        assert "no systemd bus" in host["systemd_detail"]
        # without systemd bento-runtime makes a capped run's cgroup itself
        assert host["cgroup"]["driver"] == "cgroupfs", host["cgroup"]
        assert "no systemd bus" in " ".join(out.split())


def test_root_caller_is_told_what_uid_0_means():
    """As root, the caller row and host.root_caller say that the box is host
    uid 0 on granted files and what the filter refuses there
    (test_privilege_bits.py shows the refusals)."""
    assert os.geteuid() == 0
    human, doc = doctor()
    text = " ".join(human.stdout.split())
    said = ("caller uid 0 (root): the box runs as host uid 0 on the files it is granted; the seccomp "
            "filter refuses to make setuid or setgid files and to set extended attributes (file "
            "capabilities) there")
    assert said in text, human.stdout
    assert doc["host"]["uid"] == 0
    assert doc["host"]["root_caller"] == said.split(": ", 1)[1]


def test_probe_is_cheap_and_leaves_nothing():
    before = probe_leftovers()
    _, doc = doctor()
    # a few ms here; the bound only catches a probe gone badly wrong
    assert doc["host"]["probe_usec"] < 100000
    assert probe_leftovers() == before


# -- J2: no bento-runtime, Landlock present -------------------------------------

def test_runtime_missing(tmp_path):
    env = base_env(BENTO_RUNTIME=str(tmp_path / "no-such-runtime"))
    human, doc = doctor(env=env)
    assert human.returncode == 3
    table = rows(human.stdout)
    assert table["filesystem"][1] == "degraded"
    assert table["network"][1] == "unavailable"
    fs = doc["layers"][0]
    assert fs["state"] == "degraded"
    assert "$BENTO_RUNTIME" in fs["detail"] and "no-such-runtime" in fs["detail"]
    assert "Landlock-only tier" in fs["detail"]
    assert "--allow-degraded" in fs["consequences"]
    assert doc["ready"] is False and doc["fully_enforced"] is False
    assert "A core guarantee every run needs is not fully enforced on this host." \
        in human.stdout
    assert "--allow-degraded knowingly accepts a weaker sandbox" in human.stdout


def test_helpers_missing(tmp_path):
    env = base_env(BENTO_EXEC_GATE=str(tmp_path / "no-gate"), BENTO_EGRESS=str(tmp_path / "no-egress"))
    human, doc = doctor(env=env)
    st = states(doc)
    # the fences hold, what is missing is the gate and the way through
    assert st["filesystem"] == "enforced"
    assert st["exec-block"] == "unavailable" and "no-gate" in doc["layers"][2]["detail"]
    assert st["network"] == "degraded" and "no-egress" in doc["layers"][1]["detail"]
    assert "A manifest without rules is unaffected" in doc["layers"][1]["consequences"]
    assert human.returncode == 0  # baseline confinement holds
    text = " ".join(human.stdout.split())
    assert "A manifest that needs network is refused by default." in text
    assert "A manifest that needs exec-block runs, and the gap is reported after the run." in text
    assert doc["host"]["exec_gate_found"] is False and doc["host"]["egress_proxy_found"] is False


# -- J3, for real: rootless, so no cgroup is delegated ---------------------------

def test_rootless_limits_unavailable():
    human, doc = doctor(env=base_env(HOME="/tmp"), prefix=as_nobody())
    st = states(doc)
    if st["filesystem"] != "enforced":
        pytest.skip("unprivileged user namespaces are not available here")
    assert human.returncode == 0, human.stdout
    assert st["limits-memory"] == st["limits-pids"] == st["limits-cpu"] == "unavailable"
    assert st["exec-block"] == "enforced" and st["network"] == "enforced"
    mem = doc["layers"][4]
    assert "uid %d cannot create a cgroup below" % NOBODY in mem["detail"]
    assert "refused by default" in mem["consequences"]
    assert doc["ready"] is True and doc["fully_enforced"] is False
    assert doc["host"]["uid"] == NOBODY
    assert "root_caller" not in doc["host"]  # a rootless box is the caller's own uid
    assert "caller uid %d (rootless)\n" % NOBODY in re.sub(r"  +", " ", human.stdout)
    assert doc["host"]["cgroup"]["memory"]["usable"] is False
    text = " ".join(human.stdout.split())
    assert "Baseline confinement holds on this host" in text
    assert "A manifest that needs limits-memory, limits-pids or limits-cpu is refused by " \
        "default." in text
    assert "--strict refuses" in text


# -- a host where user namespaces are switched off --------------------------------

USERNS_OFF = "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" \"$@\""


def test_user_namespaces_switched_off():
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed")
    healthy = run(["doctor"])
    assert healthy.returncode == 0
    prefix = ("unshare", "--user", "--map-root-user", "sh", "-c", USERNS_OFF)
    human, doc = doctor(prefix=prefix)
    assert human.returncode == 3  # was 0 before: the exit code follows the host
    st = states(doc)
    assert st["filesystem"] == "degraded"  # Landlock is there, namespaces are not
    assert st["network"] == "unavailable"
    fs = doc["layers"][0]
    assert "user.max_user_namespaces=0" in fs["detail"]
    assert "sysctl -w user.max_user_namespaces=15000" in fs["detail"]
    assert "no credential shield" in fs["consequences"]
    assert "user.max_user_namespaces=0" in doc["layers"][1]["detail"]
    assert doc["host"]["namespaces"] == "blocked"
    assert doc["ready"] is False
    assert "filesystem (degraded):" in human.stdout
    assert "network (unavailable):" in human.stdout


# -- a seccomp filter around bento: no user namespaces, or an old kernel -------

# Runs argv[2..] under a filter that makes this process tree look like a
# host where (userns) creating a user namespace is refused, as a container
# runtime's default profile does, or (notify) seccomp has no user
# notification, as on kernels before 5.0.
FILTER_C = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR offsetof(struct seccomp_data, nr)
#define ARG(i) offsetof(struct seccomp_data, args[i])
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define DENY(e) RET(SECCOMP_RET_ERRNO | (e))

int main(int argc, char **argv)
{
        struct sock_filter userns[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
                DENY(ENOSYS),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 1, 0),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(0)),
                BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_NEWUSER, 0, 1),
                DENY(EPERM),
                RET(SECCOMP_RET_ALLOW),
        };
        struct sock_filter notify[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_seccomp, 0, 5),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(0)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_GET_NOTIF_SIZES, 2, 0),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG(1)),
                BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SECCOMP_FILTER_FLAG_NEW_LISTENER, 0, 1),
                DENY(EINVAL),
                RET(SECCOMP_RET_ALLOW),
        };
        int u = argc > 2 && strcmp(argv[1], "userns") == 0;
        struct sock_fprog prog = {
                .len = u ? sizeof(userns) / sizeof(userns[0]) : sizeof(notify) / sizeof(notify[0]),
                .filter = u ? userns : notify,
        };

        if (argc < 3 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
            syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
                perror("filter");
                return 111;
        }
        execv(argv[2], argv + 2);
        perror("execv");
        return 112;
}
"""


@pytest.fixture(scope="module")
def filtered(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler for the seccomp wrapper")
    d = tmp_path_factory.mktemp("filter")
    (d / "filter.c").write_text(FILTER_C)
    res = harness.run_cmd([cc, "-O2", "-o", str(d / "filter"), str(d / "filter.c")], timeout=60)
    assert res.rc == 0 and os.access(str(d / "filter"), os.X_OK), str(res)
    return str(d / "filter")


def test_user_namespaces_refused_by_seccomp(filtered):
    human, doc = doctor(prefix=(filtered, "userns"))
    assert human.returncode == 3
    st = states(doc)
    assert st["filesystem"] == "degraded" and st["network"] == "unavailable"
    fs = doc["layers"][0]
    assert "cannot create a user namespace" in fs["detail"]
    assert "A seccomp filter" in fs["detail"]
    assert "--security-opt seccomp=unconfined" in fs["detail"]
    # the seccomp half is untouched
    assert st["exec-block"] == "enforced" and st["exec-strict"] == "enforced"


def test_no_seccomp_user_notification(filtered):
    human, doc = doctor(prefix=(filtered, "notify"))
    st = states(doc)
    assert st["exec-block"] == "unavailable"
    assert st["exec-strict"] == "enforced"  # plain filters still work
    assert st["filesystem"] == "enforced"
    assert human.returncode == 0  # a hardening gap: runs proceed, reported
    eb = doc["layers"][2]
    assert "NEW_LISTENER" in eb["detail"]
    assert "the gap is reported" in eb["consequences"]
    assert doc["host"]["seccomp_filter"] is True and doc["host"]["seccomp_notify"] is False
    text = " ".join(human.stdout.split())
    assert "A manifest that needs exec-block runs, and the gap is reported after the run." \
        in text


# -- J4: shields cannot be anchored ----------------------------------------------

def free_uid():
    for uid in range(54321, 54400):
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
    pytest.skip("no uid without a passwd entry found")


def test_shields_unanchorable():
    uid = free_uid()
    prefix = ("setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups")
    human, doc = doctor(env=base_env(HOME="relative"), prefix=prefix)
    assert human.returncode == 3
    text = " ".join(human.stdout.split())
    assert "Credential shields: no usable home directory" in text
    assert "cannot be anchored" in text
    assert "--allow-degraded does not help" in text
    assert "Credential shields anchor on" not in human.stdout
    assert doc["ready"] is False
    assert "no usable home directory" in doc["shield_anchors"]


# -- J5 and other usage mistakes ----------------------------------------------------

def test_usage_errors():
    r = run(["doctor", "extra"])
    assert r.returncode == 125
    assert r.stdout == ""
    assert r.stderr.startswith("bento: doctor takes no arguments, but got 1\n")
    assert "usage: bento doctor [--json]" in r.stderr
    assert "Run `bento doctor --help`" in r.stderr
    r = run(["doctor", "--frobnicate"])
    assert r.returncode == 125 and "unknown flag: --frobnicate" in r.stderr
    r = run(["doctor", "--json=maybe"])
    assert r.returncode == 125
    r = run(["doctor", "--json=false"])
    assert r.returncode == 0 and r.stdout.startswith("Platform: ")


def test_help_matches_the_docs():
    # The help is generated from the manual page's source (test_docs.py
    # checks it byte for byte); here only that it is doctor's.
    r = run(["doctor", "--help"])
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "usage: bento doctor [--json]"
    with open(os.path.join(ROOT_DIR, "docs", "cli", "bento-doctor.md")) as f:
        doc = f.read()
    assert "`--json`" in doc
    assert "man bento-doctor" in lines[-1]


# -- version ------------------------------------------------------------------

def test_version():
    r = run(["version"])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert re.fullmatch(r"bento \S+ \(commit: [0-9a-z]+, built: (\d{4}-\d{2}-\d{2}|unknown)\)",
                        lines[0]), lines[0]
    assert lines[1] == "Platform: linux/amd64 (verified)"
    assert lines[2].startswith("Kernel: Linux %s" % os.uname().release)
    assert run(["--version"]).stdout == r.stdout
    r = run(["version", "extra"])
    assert r.returncode == 125 and "version takes no arguments, but got 1" in r.stderr
