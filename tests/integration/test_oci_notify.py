# SPDX-License-Identifier: Apache-2.0
"""NOTIFY_SOCKET: bento-runtime proxies sd_notify the way crun and runc do.

The caller (a service manager, podman --sdnotify=container) binds a unix
datagram socket and names it in NOTIFY_SOCKET when it runs `create`/`start`
or `run`.  The container gets its own socket at <that path>/notify, never the
caller's; `start` returns once the container said READY=1, and the caller
then receives READY=1 and MAINPID=<host pid of the init>, and nothing else
the container sent.
"""

import os
import socket
import time

import pytest

from harness import proc_alive


class Listener:
    """The caller's socket: a bound SOCK_DGRAM unix socket."""

    def __init__(self, path):
        self.path = path
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)

    def messages(self, timeout=0.5):
        got = []
        self.sock.settimeout(timeout)
        try:
            while True:
                got.append(self.sock.recv(4096).decode())
        except socket.timeout:
            pass
        return got

    def close(self):
        self.sock.close()


@pytest.fixture
def listener(test_dir):
    ls = Listener(os.path.join(test_dir, "caller", "notify.sock"))
    yield ls
    ls.close()


def env_with(rt, notify):
    env = rt.env()
    env["NOTIFY_SOCKET"] = notify
    return env


def create_start(rt, b, notify, cid=None):
    cid = cid or rt.new_id()
    b.save()
    rt.bundles.append(b)
    rt._remember(cid)
    pid_file = os.path.join(rt.scratch, cid + ".pid")
    env = env_with(rt, notify)
    res = rt.cmd("create", "--bundle", b.path, "--pid-file", pid_file, cid, env=env,
                 out_path=rt.out_path(cid), err_path=rt.err_path(cid))
    assert res.rc == 0, res
    with open(pid_file) as f:
        pid = int(f.read())
    rt._record_pid(cid, pid)
    start = rt.cmd("start", cid, env=env, timeout=20)
    return cid, pid, start


def test_ready_reaches_the_caller_with_the_host_pid(rt, bundle, listener):
    b = bundle()
    b.set_args("/bin/sh", "-c", 'echo "inner=$NOTIFY_SOCKET"; ls "$(dirname "$NOTIFY_SOCKET")";'
               ' /bin/bento-probe notify READY=1; sleep 30')
    cid, pid, start = create_start(rt, b, listener.path)
    assert start.rc == 0, start
    assert listener.messages() == ["READY=1", "MAINPID=%d" % pid]
    assert pid != 1 and proc_alive(pid)
    assert rt.status(cid) == "running"
    out = rt.container_output(cid)
    # the container's socket is ours, inside a directory at the caller's path;
    # the caller's own socket is not what the container was given
    assert "inner=%s/notify\n" % listener.path in out, out
    assert out.split("\n")[1:2] == ["notify"], out
    assert rt.delete(cid, force=True).rc == 0
    # delete took the proxy's directory with the state directory
    assert not os.path.lexists(os.path.join(rt.state_dir(cid), "notify"))

    # without NOTIFY_SOCKET the same bundle gets neither the mount nor the variable
    b.set_args("/bin/sh", "-c", 'echo "inner=${NOTIFY_SOCKET-unset}"; cat /proc/self/mountinfo')
    res = rt.run(b)
    assert res.rc == 0, res
    assert "inner=unset" in res.out and "/notify" not in res.out, res


def test_start_waits_for_ready(rt, bundle, listener):
    b = bundle()
    b.set_args("/bin/sh", "-c", "sleep 1.5; /bin/bento-probe notify READY=1; sleep 30")
    cid, pid, start = create_start(rt, b, listener.path)
    assert start.rc == 0, start
    # start returned only after the container's READY=1
    assert start.elapsed >= 1.4, start
    assert listener.messages(timeout=0.2)[:1] == ["READY=1"]


def test_only_ready_and_our_mainpid_are_passed_on(rt, bundle, listener):
    b = bundle()
    b.set_args("/bin/sh", "-c", "/bin/bento-probe notify 'STATUS=evil\nMAINPID=1';"
               " /bin/bento-probe notify 'WATCHDOG=1'; /bin/bento-probe notify 'STATUS=x\nREADY=1';"
               " sleep 30")
    cid, pid, start = create_start(rt, b, listener.path)
    assert start.rc == 0, start
    got = listener.messages()
    # what the container wrote besides READY=1 (another MAINPID, a status)
    # never reaches the caller; the allowed READY=1 does
    assert got == ["READY=1", "MAINPID=%d" % pid], got


def test_init_exiting_without_ready_ends_the_wait(rt, bundle, listener):
    b = bundle("/bin/true")
    cid, pid, start = create_start(rt, b, listener.path)
    assert start.rc == 0, start
    assert "exited before READY=1" in start.err, start
    assert listener.messages(timeout=0.2) == []


def test_run_detached_and_foreground(rt, bundle, listener):
    b = bundle()
    b.set_args("/bin/sh", "-c", "/bin/bento-probe notify READY=1; sleep 30")
    b.save()
    rt.bundles.append(b)
    cid = rt.new_id()
    rt._remember(cid)
    res = rt.cmd("run", "--detach", "--bundle", b.path, cid, env=env_with(rt, listener.path),
                 out_path=rt.out_path(cid), err_path=rt.err_path(cid))
    assert res.rc == 0, res
    pid = rt.state_json(cid)["pid"]
    assert listener.messages() == ["READY=1", "MAINPID=%d" % pid]

    # foreground: the relay runs beside the wait for the container
    b2 = bundle("/bin/bento-probe", "notify", "READY=1")
    b2.save()
    rt.bundles.append(b2)
    cid2 = rt.new_id()
    rt._remember(cid2)
    res = rt.cmd("run", "--bundle", b2.path, cid2, env=env_with(rt, listener.path),
                 out_path=rt.out_path(cid2), err_path=rt.err_path(cid2))
    assert res.rc == 0, res
    got = listener.messages()
    assert got[:1] == ["READY=1"] and len(got) == 2 and got[1].startswith("MAINPID="), got
    assert int(got[1].split("=")[1]) > 1


def test_abstract_caller_socket(rt, bundle):
    name = "bento-test-notify-%d" % os.getpid()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind("\0" + name)
    try:
        b = bundle()
        b.set_args("/bin/sh", "-c", 'echo "inner=$NOTIFY_SOCKET"; /bin/bento-probe notify READY=1;'
                   ' sleep 30')
        cid, pid, start = create_start(rt, b, "@" + name)
        assert start.rc == 0, start
        s.settimeout(2)
        assert s.recv(100) == b"READY=1"
        assert "inner=/run/notify/notify\n" in rt.container_output(cid)
    finally:
        s.close()


@pytest.mark.parametrize("value", ["relative/notify.sock", "/a/../b", "/" + "x" * 120])
def test_bad_notify_socket_is_refused(rt, bundle, value):
    b = bundle()
    b.save()
    cid = rt.new_id()
    res = rt.cmd("create", "--bundle", b.path, cid, env=env_with(rt, value))
    assert res.rc != 0 and "NOTIFY_SOCKET" in res.err, res
    assert not os.path.lexists(rt.state_dir(cid))
    # without it the same bundle is created fine
    rt.create_ok(b)
