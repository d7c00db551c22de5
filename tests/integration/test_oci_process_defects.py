# SPDX-License-Identifier: Apache-2.0
"""Process setup that runc and crun do without config.json asking for it,
and that crun's own test suite expects (issue 15, item 3):

  * a container whose `exec --detach` processes are zombies nobody reaps
    is still deleted by `delete --force` (a pid namespace's killed init
    waits in the kernel for those zombies; it is dead all the same), and
    detached processes are orphaned to the caller's subreaper, not left
    as the caller's children;
  * HOME comes from the container's /etc/passwd when process.env has none;
  * standard streams that are pipes belong to process.user, so a non-root
    program can reopen /dev/stdout (never a file of the host);
  * LISTEN_FDS in the runtime's environment passes the sockets and tells
    the program (LISTEN_FDS, LISTEN_PID);
  * a missing process.cwd is created inside the container's root.
"""

import json
import os
import stat
import time

from harness import REAPER, completed_run, parse_steps, proc_state, proc_status, wait_for

PROBE = "/bin/bento-probe"


def env_of(res):
    assert res.rc == 0, res
    return dict(e.split("=", 1) for e in json.loads(res.out))


def running(rt, bundle, configure=None):
    b = bundle(PROBE, "sleep", "600")
    if configure:
        configure(b)
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    return b, cid, pid


def without_home(b):
    b.process["env"] = [e for e in b.process["env"] if not e.startswith("HOME=")]


# ---- 1. zombies of a caller that never reaps --------------------------------


def unreaped_exec_zombie(rt, cid, test_dir):
    """An `exec --detach` process that has exited and that nobody reaps:
    the suite's reaper is told to leave it alone, as a caller that never
    calls wait() would."""
    pid_file = os.path.join(test_dir, "zombie.pid")
    res = rt.cmd("exec", "--detach", "--pid-file", pid_file, cid, PROBE, "sleep", "1")
    assert res.rc == 0, res
    with open(pid_file) as f:
        xpid = int(f.read())
    with REAPER.lock:
        REAPER.live.add(xpid)
    wait_for(lambda: proc_state(xpid) == "Z", timeout=10, what="the exec process to become a zombie")
    return xpid


def release_zombie(xpid):
    with REAPER.lock:
        REAPER.live.discard(xpid)
    try:
        os.waitpid(xpid, 0)
    except ChildProcessError:
        pass


def test_delete_force_with_an_unreaped_exec_zombie(rt, bundle, test_dir):
    _, cid, pid = running(rt, bundle)
    xpid = unreaped_exec_zombie(rt, cid, test_dir)
    try:
        t0 = time.monotonic()
        res = rt.delete(cid, force=True)
        assert res.rc == 0, res
        assert time.monotonic() - t0 < 5, "delete --force waited for a zombie to be reaped:\n%s" % res
        assert not os.path.lexists(rt.state_dir(cid))
        # the init can do nothing any more: the kernel holds it in its exit
        # path until the zombie is reaped
        st = proc_status(pid) if os.path.exists("/proc/%d" % pid) else None
        assert st is None or st["State"][0] in "SZX", st
        res = rt.delete(cid, force=True)
        assert res.rc == 0, res
    finally:
        release_zombie(xpid)
    assert rt.wait_pid_gone(pid, timeout=10), "the init did not finish exiting once the zombie was reaped"


def test_kill_and_delete_of_a_dying_init(rt, bundle, test_dir):
    """Killed while a zombie holds it: it reads as stopped, a signal finds
    nothing to hit, and a plain delete (no --force) removes it."""
    _, cid, pid = running(rt, bundle)
    xpid = unreaped_exec_zombie(rt, cid, test_dir)
    try:
        assert rt.kill(cid, "KILL").rc == 0
        rt.wait_status(cid, "stopped")
        res = rt.kill(cid, "TERM")
        assert res.rc != 0 and "not running" in res.err, res
        res = rt.delete(cid)
        assert res.rc == 0, res
        assert not os.path.lexists(rt.state_dir(cid))
    finally:
        release_zombie(xpid)
    assert rt.wait_pid_gone(pid, timeout=10)


def test_delete_force_still_kills_what_is_alive(rt, bundle, test_dir):
    """The denial that must hold: a zombie beside them does not make a live
    init or a live exec process count as gone; delete --force kills both."""
    _, cid, pid = running(rt, bundle)
    pid_file = os.path.join(test_dir, "live.pid")
    assert rt.cmd("exec", "--detach", "--pid-file", pid_file, cid, PROBE, "sleep", "600").rc == 0
    with open(pid_file) as f:
        xpid = int(f.read())
    zpid = unreaped_exec_zombie(rt, cid, test_dir)
    try:
        assert proc_state(pid) not in ("Z", "X") and proc_state(xpid) not in ("Z", "X")
        assert rt.status(cid) == "running"
        res = rt.delete(cid, force=True)
        assert res.rc == 0, res
        assert proc_state(xpid) in (None, "Z", "X"), "delete --force left the exec process alive"
    finally:
        release_zombie(zpid)
    assert rt.wait_pid_gone(pid, timeout=10), "delete --force left the init alive"
    assert rt.wait_pid_gone(xpid, timeout=10), "delete --force left the exec process alive"


def _ppid_seen_by_a_plain_caller(rt, argv, pid_file):
    """Run argv from a shell that is not a subreaper and never reaps; print
    the shell's pid and the new process's parent while the shell lives."""
    script = '"$@" </dev/null >/dev/null 2>&1 || exit 9; read p < %s; echo "sh=$$"; grep PPid: /proc/$p/status' % pid_file
    res = completed_run(["/bin/sh", "-c", script, "sh"] + argv, env=rt.env(), timeout=60)
    assert res.returncode == 0, res
    lines = dict(line.replace(":", "=", 1).split("=", 1) for line in res.stdout.split("\n") if line)
    return int(lines["sh"]), int(lines["PPid"])


def test_detached_processes_are_orphaned_to_the_subreaper(rt, bundle, test_dir):
    b = bundle(PROBE, "sleep", "600")
    b.save()
    rt.bundles.append(b)
    cid = rt.new_id()
    rt._remember(cid)
    pid_file = os.path.join(test_dir, "init.pid")
    sh, ppid = _ppid_seen_by_a_plain_caller(
        rt, rt.argv(["run", "--detach", "--bundle", b.path, "--pid-file", pid_file, cid]), pid_file)
    # as with crun and runc: not a child of the caller, which may never
    # reap it, but of the caller's subreaper (this test process)
    assert ppid != sh and ppid == os.getpid(), (sh, ppid)
    with open(pid_file) as f:
        rt._record_pid(cid, int(f.read()))
    xfile = os.path.join(test_dir, "exec.pid")
    sh, ppid = _ppid_seen_by_a_plain_caller(
        rt, rt.argv(["exec", "--detach", "--pid-file", xfile, cid, PROBE, "sleep", "600"]), xfile)
    assert ppid != sh and ppid == os.getpid(), (sh, ppid)


# ---- 2. HOME from the container's /etc/passwd -------------------------------


def test_home_from_the_container_passwd(rt, bundle):
    b = bundle(PROBE, "env")
    without_home(b)
    cases = [(0, "/root"), (1000, "/home"), (4242, "/")]  # 4242: not in passwd
    for uid, home in cases:
        b.process["user"] = {"uid": uid, "gid": uid}
        env = env_of(rt.run(b))
        assert env.get("HOME") == home, (uid, env)
    # a HOME that the config gives is kept
    b.process["env"].append("HOME=/given")
    b.process["user"] = {"uid": 1000, "gid": 1000}
    assert env_of(rt.run(b)).get("HOME") == "/given"


def test_home_through_a_symlinked_passwd(rt, bundle):
    """/etc/passwd a relative symlink inside the rootfs (as crun's tests
    make it): followed, since the lookup runs inside the container's root."""
    b = bundle(PROBE, "env")
    without_home(b)
    os.makedirs(os.path.join(b.rootfs, "usr", "share"), exist_ok=True)
    with open(os.path.join(b.rootfs, "usr", "share", "passwd"), "w") as f:
        f.write("root:x:0:0:root:/root:/bin/sh\ntest:x:1000:1000:test:/var/empty:/bin/sh\n")
    os.unlink(os.path.join(b.rootfs, "etc", "passwd"))
    os.symlink("../usr/share/passwd", os.path.join(b.rootfs, "etc", "passwd"))
    b.process["user"] = {"uid": 1000, "gid": 1000}
    assert env_of(rt.run(b)).get("HOME") == "/var/empty"


def test_home_with_a_hostile_passwd(rt, bundle):
    """A FIFO does not hang the init, a symlink to /proc/self/environ does
    not turn the runtime's own environment into passwd lines, huge lines
    do not hide the entry after them, and an oversized file is not read:
    HOME is then "/"."""
    b = bundle(PROBE, "env")
    without_home(b)
    passwd = os.path.join(b.rootfs, "etc", "passwd")
    os.unlink(passwd)
    os.mkfifo(passwd, 0o644)
    res = rt.run(b, timeout=20)
    assert env_of(res).get("HOME") == "/", res
    os.unlink(passwd)
    os.symlink("/proc/self/environ", passwd)
    env = rt.env()
    env["BENTO_PASSWD_BAIT"] = "\nroot:x:0:0:bait:/from-the-runtime-env:/bin/sh\n"
    cid = rt.new_id()
    rt._remember(cid)
    b.save()
    res = rt.cmd("run", "--bundle", b.path, cid, env=env)
    assert env_of(res).get("HOME") == "/", res
    os.unlink(passwd)
    with open(passwd, "w") as f:
        f.write("x" * 300000 + "\nx:x:4242:0:" + "g" * 200000 + ":/long:/bin/sh\n"
                "root:x:0:0:root:/after-long:/bin/sh\n")
    assert env_of(rt.run(b)).get("HOME") == "/after-long"
    # past the size bound (4 MiB) the file is not read at all
    with open(passwd, "w") as f:
        f.write("root:x:0:0:root:/too-big:/bin/sh\n" + "#" * (5 << 20) + "\n")
    assert env_of(rt.run(b)).get("HOME") == "/"


def test_exec_home_from_the_container_passwd(rt, bundle):
    _, cid, _ = running(rt, bundle, configure=without_home)
    assert env_of(rt.cmd("exec", "--user", "1000:1000", cid, PROBE, "env")).get("HOME") == "/home"
    assert env_of(rt.cmd("exec", cid, PROBE, "env")).get("HOME") == "/root"
    got = env_of(rt.cmd("exec", "--user", "1000", "--env", "HOME=/mine", cid, PROBE, "env"))
    assert got.get("HOME") == "/mine"


# ---- 3. standard streams that are pipes -------------------------------------


def _run_piped(rt, b):
    b.save()
    if b not in rt.bundles:
        rt.bundles.append(b)
    cid = rt.new_id()
    rt._remember(cid)
    return completed_run(rt.argv(["run", "--bundle", b.path, cid]), env=rt.env(), timeout=60)


def test_stdio_pipes_belong_to_the_container_user(rt, bundle):
    b = bundle(PROBE, "write", "/dev/stdout", "via-pipe\n")
    b.process["user"] = {"uid": 1000, "gid": 1000}
    res = _run_piped(rt, b)
    assert res.returncode == 0 and "via-pipe" in res.stdout and "OK" in res.stdout, res
    b.process["args"] = [PROBE, "write", "/dev/stderr", "via-stderr\n"]
    res = _run_piped(rt, b)
    assert "via-stderr" in res.stderr, res


def test_stdio_files_of_the_host_are_not_given_away(rt, bundle):
    """The denial: a stream that is a host file stays root's (the harness
    sends the container's output to a file), so the non-root program cannot
    reopen it, while its pipe-connected sibling can."""
    b = bundle(PROBE, "write", "/dev/stdout", "x")
    b.process["user"] = {"uid": 1000, "gid": 1000}
    res = rt.run(b)
    assert "EACCES" in res.out, res
    st = os.stat(rt.out_path(res.cid))
    assert stat.S_ISREG(st.st_mode) and st.st_uid == 0, st
    assert "OK" in _run_piped(rt, b).stdout


def test_exec_stdio_pipes_belong_to_the_exec_user(rt, bundle):
    _, cid, _ = running(rt, bundle)
    argv = rt.argv(["exec", "--user", "1000:1000", cid, PROBE, "write", "/dev/stdout", "exec-pipe\n"])
    res = completed_run(argv, env=rt.env(), timeout=60)
    assert res.returncode == 0 and "exec-pipe" in res.stdout and "OK" in res.stdout, res


# ---- 4. socket activation ----------------------------------------------------


def test_listen_fds_passes_the_sockets_and_sets_listen_pid(rt, bundle, test_dir):
    fd3 = os.path.join(test_dir, "socket-stand-in")
    with open(fd3, "w") as f:
        f.write("activation\n")
    b = bundle()
    cid = rt.new_id()
    env = rt.env()
    env["LISTEN_FDS"] = "1"
    b.script(["env"], ["readfd", "3"])
    b.save()
    rt.bundles.append(b)
    rt._remember(cid)
    res = rt.cmd("run", "--bundle", b.path, cid, env=env, fd3=fd3)
    assert res.rc == 0, res
    steps = parse_steps([["env"], ["readfd", "3"]], res.out)
    got = dict(e.split("=", 1) for e in steps[0].json())
    assert got.get("LISTEN_FDS") == "1" and got.get("LISTEN_PID") == "1", got
    assert "activation" in steps[1].text, steps[1]
    # LISTEN_PID naming another process: the descriptors are not ours
    env["LISTEN_PID"] = "1"
    cid = rt.new_id()
    rt._remember(cid)
    res = rt.cmd("run", "--bundle", b.path, cid, env=env, fd3=fd3)
    steps = parse_steps([["env"], ["readfd", "3"]], res.out)
    got = dict(e.split("=", 1) for e in steps[0].json())
    assert "LISTEN_FDS" not in got and "LISTEN_PID" not in got, got
    assert steps[1].rc != 0 and "activation" not in steps[1].text, steps[1]


def test_listen_pid_of_the_config_is_kept(rt, bundle):
    b = bundle(PROBE, "env")
    b.process["env"].append("LISTEN_PID=7")
    env = rt.env()
    env["LISTEN_FDS"] = "1"
    cid = rt.new_id()
    b.save()
    rt.bundles.append(b)
    rt._remember(cid)
    got = env_of(rt.cmd("run", "--bundle", b.path, cid, env=env))
    assert got.get("LISTEN_PID") == "7" and got.get("LISTEN_FDS") == "1", got


# ---- 5. a missing process.cwd -------------------------------------------------


def test_missing_cwd_is_created(rt, bundle, test_dir):
    b = bundle(PROBE, "cwd")
    b.process["cwd"] = "/does/not/exist"
    b.process["user"] = {"uid": 1000, "gid": 1000}
    assert b.config["root"]["readonly"], "the default root is read-only: made before that"
    res = rt.run(b)
    assert res.rc == 0 and res.out.strip() == "/does/not/exist", res
    st = os.stat(os.path.join(b.rootfs, "does", "not", "exist"))
    assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o755 and st.st_uid == 0, st
    # through a symlink to an absolute host path: resolved inside the root,
    # nothing is made on the host
    outside = os.path.join(test_dir, "outside")
    os.mkdir(outside)
    os.symlink(outside, os.path.join(b.rootfs, "escape"))
    b.process["cwd"] = "/escape/made"
    res = rt.run(b)
    assert res.rc == 0, res
    assert not os.path.exists(os.path.join(outside, "made")), "cwd creation left the root"
    assert os.path.isdir(os.path.join(b.rootfs, outside.lstrip("/"), "made"))


def test_cwd_that_is_a_file_is_still_refused(rt, bundle):
    b = bundle(PROBE, "cwd")
    with open(os.path.join(b.rootfs, "afile"), "w") as f:
        f.write("x")
    b.process["cwd"] = "/afile"
    res = rt.run(b)
    assert res.rc != 0 and "process.cwd" in res.err, res
    assert os.path.isfile(os.path.join(b.rootfs, "afile"))
    # and a cwd under it cannot be made either
    b.process["cwd"] = "/afile/sub"
    res = rt.run(b)
    assert res.rc != 0 and "process.cwd" in res.err, res
    # the allowed case in the same bundle
    b.process["cwd"] = "/fresh"
    res = rt.run(b)
    assert res.rc == 0 and res.out.strip() == "/fresh", res


def test_exec_with_a_missing_cwd_is_refused(rt, bundle):
    """runc and crun create the cwd for the container's process only; an
    exec with a missing --cwd fails, as with them, and makes nothing."""
    b, cid, _ = running(rt, bundle)
    res = rt.cmd("exec", "--cwd", "/not/here", cid, PROBE, "cwd")
    assert res.rc != 0 and "process.cwd" in res.err, res
    assert not os.path.exists(os.path.join(b.rootfs, "not"))
    # while the init's own missing cwd is made
    b2 = bundle(PROBE, "cwd")
    b2.process["cwd"] = "/made/for/init"
    res = rt.run(b2)
    assert res.rc == 0 and res.out.strip() == "/made/for/init", res
