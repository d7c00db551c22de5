# SPDX-License-Identifier: Apache-2.0
"""Terminals: process.terminal with --console-socket (the pty master comes
over SCM_RIGHTS and drives a shell in the container), consoleSize,
/dev/console, and `run`/`exec --tty` used interactively from a terminal the
test makes: raw mode while running and restored after, keys such as ^C
reaching the container, window size changes passed on, exit codes."""

import fcntl
import json
import os
import select
import socket
import struct
import termios
import threading
import time

from harness import REAPER, _forget, expect_create_failure, spawn

PROBE = "/bin/bento-probe"


class ConsoleSocket:
    """An engine's end of --console-socket: accepts one connection and keeps
    the descriptors that arrive with the message (SCM_RIGHTS)."""

    def __init__(self, path):
        self.path = path
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(1)
        self.srv.settimeout(30)
        self.fds = []
        self.error = None
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        try:
            conn, _ = self.srv.accept()
            with conn:
                conn.settimeout(30)
                _, fds, _, _ = socket.recv_fds(conn, 4096, 4)
                self.fds = fds
        except Exception as e:  # reported by master()
            self.error = e

    def master(self, timeout=20):
        self.thread.join(timeout)
        self.srv.close()
        assert self.error is None, "console socket: %r" % self.error
        assert len(self.fds) == 1, "expected one fd over the console socket, got %s" % self.fds
        return self.fds[0]


def read_until(fd, needle, timeout=10):
    """Read from fd until needle was seen, end of file, or timeout."""
    buf = b""
    deadline = time.monotonic() + timeout
    while needle not in buf and time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # EIO: every slave fd is closed
                break
            if not chunk:
                break
            buf += chunk
    return buf


def set_winsize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def json_lines(text):
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            out.append(json.loads(line))
    return out


def shell_bundle(bundle, **process):
    b = bundle("/bin/sh")
    b.process["terminal"] = True
    b.process["env"] = b.process["env"] + ["PS1=# "]
    b.process.update(process)
    return b


def test_console_socket_drives_a_shell(rt, bundle, test_dir):
    sock = ConsoleSocket(os.path.join(test_dir, "console.sock"))
    b = shell_bundle(bundle, consoleSize={"height": 30, "width": 100})
    cid, pid = rt.create_ok(b, None, "--console-socket", sock.path)
    master = sock.master()
    try:
        rt.start_ok(cid)
        os.write(master, b"busybox tty; busybox stty size; %s stat /dev/console; %s stat /dev/pts/0; "
                         b"echo done-$((3*3))\n" % (PROBE.encode(), PROBE.encode()))
        text = read_until(master, b"done-9").decode("utf-8", "replace")
        assert "done-9" in text, "the shell did not answer through the pty: %r" % text
        os.write(master, b"exit 3\n")
        assert REAPER.exit_code(pid, timeout=15) == 3, "the shell's exit code did not come through"
    finally:
        os.close(master)
    lines = [l.strip() for l in text.splitlines()]
    assert "/dev/pts/0" in lines, "the shell's terminal is not the container's first pty: %r" % text
    assert "30 100" in lines, "consoleSize was not applied: %r" % text
    console, pts0 = json_lines(text)[:2]
    assert console["type"] == pts0["type"] == "chr", (console, pts0)
    same = ("dev_major", "dev_minor", "ino", "rdev_major", "rdev_minor")
    assert [console[k] for k in same] == [pts0[k] for k in same], \
        "/dev/console is not the container's terminal: %s vs %s" % (console, pts0)


def test_exec_process_console_size(rt, bundle, test_dir):
    b = bundle(PROBE, "sleep", "600")
    cid, _ = rt.create_ok(b)
    rt.start_ok(cid)
    proc = {"terminal": True, "consoleSize": {"height": 33, "width": 77}, "args": ["busybox", "stty", "size"],
            "env": ["PATH=/bin"], "cwd": "/", "user": {"uid": 0, "gid": 0}}
    path = os.path.join(test_dir, "proc.json")
    with open(path, "w") as f:
        json.dump(proc, f)
    sock = ConsoleSocket(os.path.join(test_dir, "exec.sock"))
    out = os.path.join(rt.scratch, "exec.out")
    with open(out, "wb") as f:
        p = spawn(rt.argv(["exec", "--process", path, "--console-socket", sock.path, cid]), stdout=f, stderr=f,
                  env=rt.env())
    try:
        master = sock.master()
        try:
            text = read_until(master, b"77").decode("utf-8", "replace")
            rc = p.wait(timeout=20)
        finally:
            os.close(master)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        _forget(p)
    assert rc == 0, open(out, "rb").read()
    assert "33 77" in text, text


class PtySession:
    """bento-runtime started with a fresh pty as its stdio and controlling
    terminal (setsid -c), as a person at a terminal would run it."""

    def __init__(self, argv, env, rows=24, cols=80):
        self.master, self.slave = os.openpty()
        set_winsize(self.slave, rows, cols)
        self.before = termios.tcgetattr(self.slave)
        self.p = spawn(["setsid", "-c"] + argv, stdin=self.slave, stdout=self.slave, stderr=self.slave,
                       env=env)
        self.text = b""

    def send(self, data):
        os.write(self.master, data)

    def expect(self, needle, timeout=10):
        self.text += read_until(self.master, needle, timeout)
        return needle in self.text

    def lflag(self):
        return termios.tcgetattr(self.slave)[3]

    def finish(self, timeout=20):
        try:
            return self.p.wait(timeout=timeout)
        finally:
            if self.p.poll() is None:
                self.p.kill()
                self.p.wait()
            _forget(self.p)

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
            _forget(self.p)
        os.close(self.master)
        os.close(self.slave)


def start_run(rt, b, cid):
    b.save()
    rt.bundles.append(b)
    rt._remember(cid)
    return PtySession(rt.argv(["run", "--bundle", b.path, cid]), rt.env())


def wait_raw(s):
    deadline = time.monotonic() + 10
    while s.lflag() & termios.ICANON and time.monotonic() < deadline:
        time.sleep(0.05)
    return not s.lflag() & termios.ICANON


def test_run_interactive(rt, bundle):
    b = shell_bundle(bundle)
    s = start_run(rt, b, rt.new_id())
    try:
        assert wait_raw(s), "run did not put its terminal in raw mode"
        assert not s.lflag() & termios.ECHO
        s.send(b"busybox tty; busybox stty size; echo $((6*7))\n")
        assert s.expect(b"42"), "no answer from the container's shell: %r" % s.text
        assert b"/dev/pts/0" in s.text and b"24 80" in s.text, s.text
        # ^C is a byte for the container's terminal, which interrupts its job
        s.send(b"sleep 100\n")
        # ^C also flushes typed-ahead input: retry until the shell is back
        for _ in range(20):
            time.sleep(0.3)
            s.send(b"\x03")
            s.send(b"echo $((7*8))\n")
            if s.expect(b"56", timeout=1):
                break
        assert b"56" in s.text, "^C did not reach the container: %r" % s.text
        # a new window size reaches the container's terminal (SIGWINCH)
        set_winsize(s.master, 50, 132)
        for _ in range(50):
            s.send(b"busybox stty size\n")
            if s.expect(b"50 132", timeout=0.3):
                break
        assert b"50 132" in s.text, "the window size change was not passed on: %r" % s.text
        s.send(b"exit 5\n")
        assert s.finish() == 5, s.text
        after = termios.tcgetattr(s.slave)
        assert after == s.before, "run did not restore the terminal mode"
    finally:
        s.close()


def test_run_terminal_with_piped_stdin(rt, bundle):
    b = shell_bundle(bundle)
    res = rt.run(b, input="echo $((2+3))x\nexit 4\n")
    assert res.rc == 4, res
    assert "5x" in res.out, "the piped input did not reach the container's terminal:\n%s" % res


def test_exec_tty_interactive(rt, bundle):
    b = bundle(PROBE, "sleep", "600")
    cid, _ = rt.create_ok(b)
    rt.start_ok(cid)
    s = PtySession(rt.argv(["exec", "--tty", "-e", "PS1=# ", cid, "/bin/sh"]), rt.env())
    try:
        assert wait_raw(s), "exec --tty did not put its terminal in raw mode"
        s.send(b"busybox tty; echo $((5*5))\n")
        assert s.expect(b"25"), s.text
        assert b"/dev/pts/" in s.text, s.text
        s.send(b"exit 6\n")
        assert s.finish() == 6, s.text
        assert termios.tcgetattr(s.slave) == s.before, "exec did not restore the terminal mode"
    finally:
        s.close()
    assert rt.status(cid) == "running", "the container should outlive the exec'd shell"


def test_run_terminal_output_is_complete(rt, bundle):
    """Output still inside the pty when the process ends reaches stdout."""
    b = bundle("/bin/sh", "-c", "busybox seq 1 20000; echo last-line")
    b.process["terminal"] = True
    res = rt.run(b, stdin=open(os.devnull, "rb"))
    assert res.rc == 0, res
    lines = res.out.replace("\r", "").splitlines()
    assert lines[-1] == "last-line" and lines[-2] == "20000" and len(lines) == 20001, res.out[-300:]


def test_console_socket_without_terminal_is_refused(rt, bundle, test_dir):
    """--console-socket with process.terminal false is an error (as runc),
    for create, run and exec; without the option the same bundle works."""
    sock = os.path.join(test_dir, "unused.sock")
    b = bundle(PROBE, "sleep", "600")
    assert b.process["terminal"] is False
    res = expect_create_failure(rt, b, "--console-socket", sock, message="process.terminal is false")
    assert "--console-socket" in res.err, res
    res = rt.run(b, None, "--console-socket", sock)
    assert res.rc not in (0, None) and "process.terminal is false" in res.err, res
    cid, _ = rt.create_ok(b)
    rt.start_ok(cid)
    proc = {"terminal": False, "args": ["/bin/true"], "env": ["PATH=/bin"], "cwd": "/",
            "user": {"uid": 0, "gid": 0}}
    path = os.path.join(test_dir, "proc.json")
    with open(path, "w") as f:
        json.dump(proc, f)
    res = rt.cmd("exec", "--process", path, "--console-socket", sock, cid)
    assert res.rc not in (0, None) and "process.terminal is false" in res.err, res
    res = rt.cmd("exec", "--process", path, cid)
    assert res.rc == 0, "the same exec without --console-socket should work:\n%s" % res
