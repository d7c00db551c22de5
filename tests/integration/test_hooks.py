# SPDX-License-Identifier: Apache-2.0
"""OCI hooks: the six kinds at their point of the lifecycle, in their
namespaces, with the state on stdin, args and env exactly as configured, a
timeout that kills, and the failure semantics of the OCI runtime-spec
(config.md, "POSIX-platform Hooks"; runtime.md, "Lifecycle").

Most hooks are the probe's `hook` subcommand, which writes what it saw (its
stdin, argv, env, cwd, namespaces, fds, the command line of the state's pid,
the pids in /proc) to <log>/<name>.json and appends <name> to <log>/events.
Hooks that run on the host use the probe from the build tree; startContainer
is resolved inside the container, so it uses /bin/bento-probe of the rootfs
and writes into the log directory, which is bind-mounted at /hooklog.  The
target appends "target" to the same events file, so one file orders
everything.
"""

import json
import os
import stat

import pytest

import harness
from harness import REAPER, expect_create_failure, proc_alive, wait_for

# the namespaces compared, as /proc/<pid>/ns names and as `state` types
NS = {"mnt": "mount", "net": "network", "pid": "pid"}
TARGET = "echo target >> /hooklog/events; exec /bin/bento-probe sleep 60"


class Rig:
    """A bundle whose target logs to the events file, plus hook builders."""

    def __init__(self, bundle, test_dir):
        self.log = os.path.join(test_dir, "hooklog")
        os.makedirs(self.log)
        os.chmod(self.log, 0o777)
        self.dir = test_dir
        self.b = bundle("/bin/sh", "-c", TARGET)
        # made here: a rootless runtime cannot create it in a root-owned rootfs
        os.makedirs(os.path.join(self.b.rootfs, "hooklog"))
        self.b.add_mount("/hooklog", type="bind", source=self.log, options=["rbind", "rw"])
        self.b.config["hooks"] = {}
        self.b.config["annotations"] = {"org.example.hooks": "yes", "another": "value"}
        self._n = 0

    def add(self, kind, entry):
        self.b.config["hooks"].setdefault(kind, []).append(entry)
        return entry

    def recorder(self, kind, name=None, status=None, extra=(), inside=False, **fields):
        """A probe hook that records into <log>/<name>.json."""
        name = name or kind
        path = "/bin/bento-probe" if inside else harness.PROBE
        logdir = "/hooklog" if inside else self.log
        args = ["hook-" + name, "hook", logdir, name]
        if status is not None or extra:
            args.append(str(status or 0))
        args += list(extra)
        entry = {"path": path, "args": args}
        entry.update(fields)
        return self.add(kind, entry)

    def script(self, kind, body, **fields):
        """A host shell script hook."""
        self._n += 1
        path = os.path.join(self.dir, "hook%d.sh" % self._n)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, 0o755)
        entry = {"path": path}
        entry.update(fields)
        return self.add(kind, entry)

    def events(self):
        try:
            with open(os.path.join(self.log, "events")) as f:
                return f.read().split()
        except FileNotFoundError:
            return []

    def record(self, name):
        with open(os.path.join(self.log, name + ".json")) as f:
            return json.load(f)

    def has_record(self, name):
        return os.path.exists(os.path.join(self.log, name + ".json"))


@pytest.fixture
def rig(bundle, test_dir):
    return Rig(bundle, test_dir)


def host_ns():
    return {k: os.stat("/proc/self/ns/%s" % k).st_ino for k in NS}


def container_ns(rt, cid, pid):
    """The container's namespaces as `state` reports them, checked against
    /proc/<pid>/ns so the comparison below means something."""
    entries = {e["type"]: e["inode"] for e in rt.state_json(cid)["bento"]["namespaces"]}
    out = {k: entries[t] for k, t in NS.items()}
    assert out == {k: harness.ns_inode(pid, k) for k in NS}, "state and /proc disagree"
    return out


def hook_ns(rec):
    return {k: rec["ns"][k] for k in NS}


def check_stdio(rec, name):
    fds = rec["fds"]
    assert fds["fds"] == [0, 1, 2], "%s: the hook inherited fds beyond stdio: %s" % (name, fds)
    assert fds["targets"]["0"].startswith("pipe:"), fds
    assert fds["targets"]["2"] == "/dev/null", fds


def check_state(rec, cid, b, status, pid):
    st = json.loads(rec["stdin"])
    assert st["id"] == cid
    assert st["status"] == status, st
    assert st["pid"] == pid, st
    assert st["bundle"] == b.path, st
    assert st["annotations"] == {"org.example.hooks": "yes", "another": "value"}, st
    assert st["ociVersion"], st
    return st


@pytest.mark.timeout(120)
def test_six_kinds_run_in_order_in_their_namespaces(rt, rig):
    for kind in ("prestart", "createRuntime", "createContainer", "poststart", "poststop"):
        rig.recorder(kind)
    rig.recorder("startContainer", inside=True)
    cid, pid = rt.create_ok(rig.b)
    host = host_ns()
    cont = container_ns(rt, cid, pid)
    assert host != cont

    # create: the three creation hooks ran, in order, the target did not
    assert rig.events() == ["prestart", "createRuntime", "createContainer"]
    for kind in ("prestart", "createRuntime"):
        rec = rig.record(kind)
        assert hook_ns(rec) == host, "%s must run in the runtime's namespaces" % kind
        check_state(rec, cid, rig.b, "created", pid)
        assert rec["cwd"] == rig.b.path
        check_stdio(rec, kind)
        # the state's pid is the parked init (a clone of `create`), not yet the target
        assert (rec["state_pid_cmdline"] or "").startswith(harness.RUNTIME + " "), rec["state_pid_cmdline"]
    rec = rig.record("createContainer")
    assert hook_ns(rec) == cont, "createContainer must run in the container's namespaces"
    check_state(rec, cid, rig.b, "created", pid)
    assert rec["cwd"] == rig.b.path, "createContainer runs before pivot_root, in the bundle"
    check_stdio(rec, "createContainer")

    rt.start_ok(cid)
    # start returned: startContainer ran before the target, poststart after it
    ev = rig.events()
    assert ev[:4] == ["prestart", "createRuntime", "createContainer", "startContainer"], ev
    assert "poststart" in ev, "poststart must have run before start returned: %s" % ev
    wait_for(lambda: "target" in rig.events(), what="the target to run")
    ev = rig.events()
    assert ev.index("startContainer") < ev.index("target"), ev

    rec = rig.record("startContainer")
    assert hook_ns(rec) == cont, "startContainer must run in the container's namespaces"
    check_state(rec, cid, rig.b, "created", pid)
    assert rec["cwd"] == "/", "after pivot_root the bundle is out of reach: cwd is /"
    assert rec["fds"]["fds"] == [0, 1, 2], rec["fds"]

    rec = rig.record("poststart")
    assert hook_ns(rec) == host
    check_state(rec, cid, rig.b, "running", pid)
    # the init had already exec'd the target (sh, which then execs the probe)
    assert (rec["state_pid_cmdline"] or "").startswith(
        ("/bin/sh -c echo target", "/bin/bento-probe sleep 60")), rec["state_pid_cmdline"]
    check_stdio(rec, "poststart")

    # poststop: only during delete, after the container's process died
    assert "poststop" not in rig.events()
    res = rt.delete(cid, force=True)
    assert res.rc == 0, res
    assert rig.events()[-1] == "poststop", rig.events()
    rec = rig.record("poststop")
    assert hook_ns(rec) == host
    st = check_state(rec, cid, rig.b, "stopped", 0)
    assert st["id"] == cid
    assert pid not in rec["live_pids"], "poststop ran while the container process was alive"
    assert rec["cwd"] == rig.b.path
    check_stdio(rec, "poststop")


def test_args_and_env_are_passed_exactly(rt, rig):
    args_extra = ["with space", "", "quote\"d", "ünïcode"]
    env = ["HOOK_A=1", "HOOK_B=two words", "EMPTY=", "PATH=/nowhere"]
    rig.recorder("prestart", status=0, extra=args_extra, env=env)
    rig.recorder("createRuntime")  # no env: the runtime's own environment
    out = os.path.join(rig.dir, "noargs.out")
    rig.script("poststart", 'printf "%%s\\n" "$0" "$#" > %s' % out)
    cid, _ = rt.create_ok(rig.b)

    rec = rig.record("prestart")
    # the probe writes bytes >= 0x80 as \u00XX: read them back as Latin-1
    argv = [a.encode("latin-1").decode("utf-8") for a in rec["argv"]]
    assert argv == ["hook-prestart", "hook", rig.log, "prestart", "0"] + args_extra
    assert rec["env"] == env
    rec = rig.record("createRuntime")
    assert rec["argv"][0] == "hook-createRuntime"
    assert "BENTO_HOST_ONLY_VARIABLE=leak-check" in rec["env"], rec["env"]
    assert set(rec["env"]) == {"%s=%s" % kv for kv in rt.env().items()}, rec["env"]

    rt.start_ok(cid)
    # args absent: argv[0] is the path, and nothing else is passed
    with open(out) as f:
        assert f.read().split("\n")[:2] == [rig.b.config["hooks"]["poststart"][0]["path"], "0"]


def pids_in_group(pgid):
    out = [p for p, rest in harness.proc_stats()
           if len(rest) >= 3 and int(rest[2]) == pgid and rest[0] not in (b"Z", b"X")]
    return out


@pytest.mark.timeout(60)
def test_timeout_kills_the_hook_and_its_children_and_fails_create(rt, rig):
    pidfile = os.path.join(rig.dir, "hook.pid")
    # the shell forks sleep: the child must die too
    h = rig.script("prestart", "echo $$ > %s\nsleep 60\necho never" % pidfile, timeout=1)
    rig.recorder("createRuntime")
    res = expect_create_failure(rt, rig.b, message=["hooks.prestart[0] (%s)" % h["path"],
                                                    "timed out after 1 s"])
    assert res.elapsed < 15, "the timeout did not cut the hook short: %.1fs" % res.elapsed
    with open(pidfile) as f:
        hook_pid = int(f.read())
    REAPER.reap_now()
    assert not proc_alive(hook_pid), "the timed-out hook is still alive"
    assert pids_in_group(hook_pid) == [], "the hook's children survived its timeout"
    assert rig.events() == [], "createRuntime ran after a failed prestart"


@pytest.mark.parametrize("kind", ["prestart", "createRuntime", "createContainer"])
def test_failing_creation_hook_fails_create_and_leaves_nothing(rt, rig, kind):
    rig.recorder(kind, name="first")
    rig.recorder(kind, name="failing", status=3)
    rig.recorder(kind, name="never")
    later = {"prestart": "createRuntime", "createRuntime": "createContainer",
             "createContainer": None}[kind]
    if later:
        rig.recorder(later)
    expect_create_failure(rt, rig.b, message=["hooks.%s[1] (%s): exited with status 3" % (
        kind, harness.PROBE)])
    assert rig.events() == ["first", "failing"], "hooks ran after the failure: %s" % rig.events()


def test_hook_killed_by_signal_is_a_failure(rt, rig):
    h = rig.script("createRuntime", "kill -TERM $$")
    expect_create_failure(rt, rig.b, message=["hooks.createRuntime[0] (%s)" % h["path"],
                                              "killed by signal 15"])


def test_hook_that_cannot_be_executed_is_a_failure(rt, rig):
    missing = os.path.join(rig.dir, "no-such-hook")
    rig.add("prestart", {"path": missing})
    expect_create_failure(rt, rig.b, message=["hooks.prestart[0] (%s)" % missing,
                                              "no such file or directory"])


def test_failing_start_container_hook_fails_start(rt, rig):
    rig.recorder("startContainer", status=3, inside=True)
    rig.recorder("poststart")
    rig.recorder("poststop")
    cid, pid = rt.create_ok(rig.b)
    res = rt.start(cid)
    assert res.rc not in (0, None), "start succeeded although startContainer failed:\n%s" % res
    assert "hooks.startContainer[0] (/bin/bento-probe): exited with status 3" in res.err, res
    REAPER.reap_now()
    assert rt.wait_pid_gone(pid), "the container process outlived the failed start"
    ev = rig.events()
    assert "target" not in ev, "the target ran although startContainer failed: %s" % ev
    assert "poststart" not in ev, ev
    # the container was stopped and deleted, and poststop ran on the way
    assert "poststop" in ev, ev
    assert rt.state(cid).rc != 0, "the container should be gone after a failed start"


def test_failing_poststart_hook_tears_the_container_down(rt, rig):
    rig.recorder("poststart", status=4)
    rig.recorder("poststop")
    cid, pid = rt.create_ok(rig.b)
    res = rt.start(cid)
    assert res.rc not in (0, None), "start succeeded although poststart failed:\n%s" % res
    assert "hooks.poststart[0] (%s): exited with status 4" % harness.PROBE in res.err, res
    assert rt.wait_pid_gone(pid), "the container survived a failed poststart"
    assert rt.state(cid).rc != 0, "the container should be deleted after a failed poststart"
    ev = rig.events()
    assert ev.index("poststart") < ev.index("poststop"), ev


def test_failing_poststop_hooks_only_warn(rt, rig):
    h0 = rig.script("poststop", "exit 1")
    rig.recorder("poststop", name="second")
    h2 = rig.script("poststop", "kill -KILL $$")
    rig.recorder("poststop", name="fourth")
    cid, _ = rt.create_ok(rig.b)
    res = rt.delete(cid, force=True)
    assert res.rc == 0, "a failing poststop hook must not fail delete:\n%s" % res
    assert "hooks.poststop[0] (%s): exited with status 1" % h0["path"] in res.err, res
    assert "hooks.poststop[2] (%s): killed by signal 9" % h2["path"] in res.err, res
    assert rig.events() == ["second", "fourth"], "every poststop hook must run"
    assert rt.state(cid).rc != 0


def test_hook_output_goes_to_the_annotated_files_or_nowhere(rt, rig, test_dir):
    body = "echo to-stdout-$1\necho to-stderr-$1 >&2"
    rig.script("prestart", body, args=["x", "quiet"])
    cid, _ = rt.create_ok(rig.b)
    assert "to-std" not in rt.container_output(cid)
    with open(rt.err_path(cid)) as f:
        assert "to-std" not in f.read(), "hook output reached the runtime's stderr"
    rt.delete(cid, force=True)

    out, err = os.path.join(test_dir, "hooks.out"), os.path.join(test_dir, "hooks.err")
    rig.b.config["annotations"].update({"run.oci.hooks.stdout": out, "run.oci.hooks.stderr": err})
    rig.b.config["hooks"]["prestart"][0]["args"] = ["x", "loud"]
    rt.create_ok(rig.b)
    with open(out) as f:
        assert f.read() == "to-stdout-loud\n"
    with open(err) as f:
        assert f.read() == "to-stderr-loud\n"


def test_large_state_and_a_hook_that_does_not_read_it(rt, rig):
    big = "x" * (300 * 1024)
    rig.b.config["annotations"]["org.example.big"] = big
    rig.script("prestart", "exit 0")  # never reads its stdin
    rig.recorder("createRuntime")
    cid, _ = rt.create_ok(rig.b)
    st = json.loads(rig.record("createRuntime")["stdin"])
    assert st["annotations"]["org.example.big"] == big
    assert rt.status(cid) == "created"


def test_features_list_every_hook_kind(rt):
    res = rt.cmd("features")
    assert res.rc == 0, res
    assert sorted(res.json()["hooks"]) == sorted(["prestart", "createRuntime", "createContainer",
                                                  "startContainer", "poststart", "poststop"])


def test_hook_script_mode_is_respected(rt, rig):
    """A hook that is not executable fails create with EACCES."""
    h = rig.script("prestart", "exit 0")
    os.chmod(h["path"], stat.S_IRUSR | stat.S_IWUSR)
    expect_create_failure(rt, rig.b, message=["hooks.prestart[0]", "permission denied"])


def test_hooks_inherit_no_fd_of_the_caller_or_the_init(rt, rig, test_dir):
    """fd 3 of the caller is inherited by `create` (and kept for the target
    by --preserve-fds): no hook may see it."""
    extra = os.path.join(test_dir, "fd3-file")
    with open(extra, "w") as f:
        f.write("fd3\n")
    rig.recorder("prestart")
    rig.recorder("createContainer")
    rig.recorder("startContainer", inside=True)
    rig.recorder("poststart")
    cid = rt.new_id()
    res = rt.create(rig.b, cid, "--preserve-fds", "1", fd3=extra)
    assert res.rc == 0, res
    rt.start_ok(cid)
    for name in ("prestart", "createContainer", "startContainer", "poststart"):
        rec = rig.record(name)
        assert rec["fds"]["fds"] == [0, 1, 2], "%s inherited fds: %s" % (name, rec["fds"])


def test_hook_status_is_read_even_when_the_caller_ignores_sigchld(rt, rig):
    """An ignored SIGCHLD is inherited across exec and would let the kernel
    reap hooks before their status is read."""
    rig.recorder("prestart", status=5)
    cid = rt.new_id()
    rt._remember(cid)
    rt.bundles.append(rig.b)
    rig.b.save()
    ignore_chld = "import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); " \
                  "os.execv(sys.argv[1], sys.argv[1:])"
    argv = ["/usr/bin/python3", "-c", ignore_chld] + rt.argv(["create", "--bundle", rig.b.path, cid])
    res = harness.run_cmd(argv, env=rt.env())
    assert res.rc not in (0, None), res
    assert "hooks.prestart[0] (%s): exited with status 5" % harness.PROBE in res.err, res
    assert rt.state(cid).rc != 0


def test_run_goes_through_every_hook_kind(rt, rig):
    rig.b.set_args("/bin/sh", "-c", "echo target >> /hooklog/events")
    for kind in ("prestart", "createRuntime", "createContainer", "poststart", "poststop"):
        rig.recorder(kind)
    rig.recorder("startContainer", inside=True)
    res = rt.run(rig.b)
    assert res.rc == 0, res
    ev = rig.events()
    assert ev[:4] == ["prestart", "createRuntime", "createContainer", "startContainer"], ev
    assert ev[-1] == "poststop", ev
    assert sorted(ev[4:6]) == ["poststart", "target"], ev
    assert json.loads(rig.record("poststop")["stdin"])["status"] == "stopped"


def test_run_keeps_the_hooks_it_was_given(rt, rig):
    """`run` takes the hooks of start and delete from the config its create
    read, not from the copy in the state directory: a copy changed while the
    container runs (here by the poststart hook, to a config without hooks)
    does not take its poststop hook away."""
    rig.b.set_args("/bin/sh", "-c", "echo target >> /hooklog/events")
    rig.script("poststart", 'for f in %s/*/config.json; do echo \'{"ociVersion": "1.0.2"}\' > "$f"; done; '
               "echo poststart >> %s/events" % (rt.root, rig.log))
    rig.recorder("poststop")
    res = rt.run(rig.b)
    assert res.rc == 0, res
    ev = rig.events()
    assert "poststart" in ev and ev[-1] == "poststop", ev


@pytest.mark.rootless
def test_hooks_run_for_a_rootless_container(rrt, rbundle, test_dir):
    rig = Rig(lambda *args: rbundle(*args), test_dir)
    for kind in ("prestart", "createRuntime", "createContainer", "poststart", "poststop"):
        rig.recorder(kind)
    rig.recorder("startContainer", inside=True)
    cid, pid = rrt.create_ok(rig.b)
    assert rig.events() == ["prestart", "createRuntime", "createContainer"]
    assert rig.record("createContainer")["ns"]["user"] == harness.ns_inode(pid, "user")
    assert rig.record("prestart")["ns"]["user"] == os.stat("/proc/self/ns/user").st_ino
    rrt.start_ok(cid)
    assert rig.events()[3] == "startContainer", rig.events()
    assert "poststart" in rig.events()
    assert rrt.delete(cid, force=True).rc == 0
    assert rig.events()[-1] == "poststop"
