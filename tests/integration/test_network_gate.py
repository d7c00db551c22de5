# SPDX-License-Identifier: Apache-2.0
"""`bento run --network-gate SOCKET` (docs/embedding.md, "The network gate
protocol"; docs/cli/bento-run.md): the egress proxy asks a gate the caller
listens on about every destination no `network:` rule allows, and only
those.  The gate here is a thread of the test with a scripted answer per
host; the manifest has no network rule at all, so everything that gets
through got through by the gate.

What is shown: an admitted destination works end to end (the echo server on
192.0.2.2, in a network namespace of the test) while a refused one gets the
proxy's 403; a gate that stays silent past the timeout, one that closes its
socket and one that answers nonsense all refuse; a loopback or link-local
literal is refused without the gate being asked; admissions and refusals are
reported in both output forms; the socket is refused inside a grant and is
not visible in the box.
"""

import base64
import json
import os
import shutil
import socket
import tempfile
import threading
import time

import pytest

from test_bento_run import events, net, prose, world  # noqa: F401  (the fixtures)

pytestmark = [pytest.mark.timeout(120)]

MANIFEST = """\
entrypoint: ./s.sh
interpreter: sh
exec: all
read: [./bento-probe]
"""


class Gate:
    """A network gate on a unix socket: answer(host, port) gives "allow",
    "deny", "silent" (never answer), "close" (hang up) or "garbage"."""

    def __init__(self, answer):
        self.dir = tempfile.mkdtemp(prefix="bgate.", dir="/tmp")
        os.chmod(self.dir, 0o700)
        self.path = os.path.join(self.dir, "gate.sock")
        self.answer = answer
        self.asked = []
        self.greeting = None
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        self.sock.listen(4)
        self.sock.settimeout(0.2)
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        end = time.monotonic() + 100
        while not self.stop and time.monotonic() < end:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self._talk(conn, end)

    def _talk(self, conn, end):
        conn.settimeout(0.2)
        buf = b""
        greeted = False
        while not self.stop and time.monotonic() < end:
            try:
                data = conn.recv(4096)
            except socket.timeout:
                continue
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not greeted:
                    self.greeting, greeted = line.decode(), True
                    continue
                qid, host, port = line.decode().split(" ")
                self.asked.append((host, port))
                a = self.answer(host, port)
                if a == "close":
                    conn.close()
                    return
                if a == "garbage":
                    conn.sendall(b"what?\n")
                elif a in ("allow", "deny"):
                    conn.sendall(("%s %s\n" % (qid, a)).encode())
        conn.close()

    def close(self):
        self.stop = True
        self.thread.join(timeout=5)
        self.sock.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def gate():
    made = []

    def make(answer):
        g = Gate(answer)
        made.append(g)
        return g
    yield make
    for g in made:
        g.close()


def replies(res):
    return [json.loads(line) for line in res.out.splitlines() if line.startswith("{")]


def replies_from_events(res):
    out = b"".join(base64.b64decode(e["data"]) for e in events(res) if e["event"] == "stdout")
    return [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]


def test_the_gate_admits_one_host_and_refuses_another(world, net, gate):
    world.probe()
    g = gate(lambda host, port: "allow" if host == "192.0.2.2" else "deny")
    m = world.manifest(MANIFEST, script=(
        "./bento-probe proxy-connect 192.0.2.2:7777 gated-data\n"
        "./bento-probe proxy-connect 198.51.100.7:443\n"
        "exit 0\n"))
    world.approve(m)
    # the control: no rule and no gate, so no proxy and no way out
    res = world.run(m, wrap=net.wrap())
    assert res.rc == 0 and '"status":200' not in res.out, res
    assert g.asked == []

    res = world.run(m, "--network-gate", g.path, wrap=net.wrap())
    assert res.rc == 0, res
    r = replies(res)
    assert r[0] == {"status": 200, "echo": "gated-data"}, res  # through, by the gate alone
    assert r[1]["status"] == 403, res
    # the same words as a plain denial: the program cannot tell a gate was asked
    assert r[1]["body"] == ("bento denied egress to 198.51.100.7:443 (not in the manifest's "
                            "network allowlist)\n"), r
    assert g.greeting == "bento-network-gate 1"
    assert g.asked == [("192.0.2.2", "7777"), ("198.51.100.7", "443")]
    text = prose(res.err)
    assert "the network gate admitted these destinations" in text, res
    assert '[bento]   "192.0.2.2" port "7777"' in res.err
    assert "the network gate refused these destinations" in text
    assert '[bento]   "198.51.100.7" port "443"' in res.err

    res = world.run(m, "--json", "--network-gate", g.path, wrap=net.wrap())
    assert res.rc == 0, res
    v = events(res)[-1]
    assert v["gate_allowed"] == [{"host": "192.0.2.2", "port": "7777"}], v
    assert v["gate_denied"] == [{"host": "198.51.100.7", "port": "443"}], v
    assert "egress_denied" not in v
    assert {l["layer"]: l["state"] for l in v["report"]["layers"]}["network"] == "enforced"


@pytest.mark.parametrize("mode", ["silent", "close", "garbage"])
def test_no_usable_answer_is_a_denial(world, net, gate, mode):
    world.probe()
    g = gate(lambda host, port: mode if host == "192.0.2.2" else "allow")
    m = world.manifest(MANIFEST, script=(
        "./bento-probe proxy-connect 192.0.2.2:7777 x\n"
        "./bento-probe proxy-connect 192.0.2.2:7777 again\n"
        "exit 0\n"))
    world.approve(m)
    started = time.monotonic()
    res = world.run(m, "--json", "--network-gate", g.path, "--network-gate-timeout", "1",
                    wrap=net.wrap())
    assert res.rc == 0, res
    assert [r["status"] for r in replies_from_events(res)] == [403, 403], res
    v = events(res)[-1]
    assert v["gate_denied"] == [{"host": "192.0.2.2", "port": "7777"}], v
    assert "gate_allowed" not in v
    if mode == "silent":
        # asked twice, each refused after the timeout
        assert g.asked == [("192.0.2.2", "7777")] * 2
        assert time.monotonic() - started >= 2
    else:
        # a gate that hung up or spoke nonsense is not asked again
        assert g.asked == [("192.0.2.2", "7777")]


def test_what_the_proxy_refuses_itself_is_not_even_asked(world, net, gate):
    world.probe()
    g = gate(lambda host, port: "allow")
    m = world.manifest(MANIFEST, script=(
        "./bento-probe proxy-connect 127.0.0.1:9\n"
        "./bento-probe proxy-connect 169.254.169.254:80\n"
        "./bento-probe proxy-connect 10.0.0.1:80\n"
        "./bento-probe proxy-connect 192.0.2.2:7777 control\n"
        "exit 0\n"))
    world.approve(m)
    res = world.run(m, "--json", "--network-gate", g.path, wrap=net.wrap())
    assert res.rc == 0, res
    r = replies_from_events(res)
    assert [x["status"] for x in r] == [403, 403, 403, 200], r
    assert g.asked == [("192.0.2.2", "7777")]  # only the control
    v = events(res)[-1]
    assert v["gate_allowed"] == [{"host": "192.0.2.2", "port": "7777"}], v
    assert {"host": "127.0.0.1", "port": "9"} in v["egress_denied"], v


def test_the_socket_is_out_of_the_sandboxs_reach(world, gate):
    g = gate(lambda host, port: "allow")
    m = world.manifest(MANIFEST.replace("read: [./bento-probe]", "read: [%s]" % g.dir),
                       script="exit 0\n")
    world.approve(m)
    res = world.run(m, "--network-gate", g.path)
    assert res.rc == 125, res
    assert "lies inside the grant" in prose(res.err), res
    # not a socket, not there: said before the run
    res = world.run(m, "--network-gate", os.path.join(g.dir, "nothing"))
    assert res.rc == 125 and "--network-gate" in res.err, res

    # the control: outside every grant it runs, and the box does not see it
    m = world.manifest(MANIFEST.replace("read: [./bento-probe]\n", ""),
                       script="[ -e %s ] && echo visible || echo absent\n" % g.path)
    world.approve(m)
    res = world.run(m, "--network-gate", g.path)
    assert res.rc == 0, res
    assert res.out.strip() == "absent", res


def test_a_gate_nobody_listens_on_fails_the_run(world, test_dir):
    d = tempfile.mkdtemp(prefix="bgate.", dir="/tmp")
    try:
        path = os.path.join(d, "gate.sock")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.close()  # a socket file with no listener
        m = world.manifest(MANIFEST.replace("read: [./bento-probe]\n", ""),
                           script="echo started\n")
        world.approve(m)
        res = world.run(m, "--network-gate", path)
        assert res.rc == 125, res
        assert "started" not in res.out, res
        assert "--gate: cannot connect to" in res.err, res  # said by the proxy, before the target
    finally:
        shutil.rmtree(d, ignore_errors=True)
