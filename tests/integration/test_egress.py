# SPDX-License-Identifier: Apache-2.0
"""bento-egress: the per-host egress filter as an OCI hook (docs/egress.md).

Topology, all made here and removed after each test:

    container netns        "host" netns H                 server netns S
    (empty: lo only)       lo, veth 192.0.2.1/24  <---->  veth 192.0.2.2/24 and
    proxy 127.0.0.1:3128   route 10.0.0.7/32 via S        10.0.0.7/32, lo
    listens here           bento-runtime, the hook        TCP echo servers on
                           and its daemon run here,        :7777 and :7778 of both
                           and dial from here

The runtime (and with it the hook and its daemon) runs inside H through
`nsenter --net`, so whatever the proxy dials can only ever reach S: a
broken guard could not put a packet on a real network.  Addresses are
documentation ones (192.0.2.0/24) except 10.0.0.7, a private address that
exists only on S's end of the pair (H routes just that one address there),
so that the guard's refusal of private space is seen refusing a host that
answers.
Names come from a --hosts-file the hook is given (documented as a testing
option): echo.test -> 192.0.2.2, loop.test -> 127.0.0.1,
metadata.test -> 169.254.169.254, private.test -> 10.0.0.7.

Each check is paired with a control that shows the refused destination
would have worked without the filter (port 7778 answers when dialled from
H directly), so a refusal means something.
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import harness
from harness import REAPER, run_cmd, wait_for
from test_engines import engine_env, pm, podman_engine  # noqa: F401 (fixtures)

EGRESS = os.path.join(harness.BUILD, "bin", "bento-egress")
ECHO_PORT = 7777
OTHER_PORT = 7778
HOST_ADDR = "192.0.2.1"
SERVER_ADDR = "192.0.2.2"
PRIVATE_ADDR = "10.0.0.7"  # on S only; H routes this one address to it
HOSTS_FILE = """\
# written by tests/integration/test_egress.py
192.0.2.2 echo.test
127.0.0.1 loop.test
169.254.169.254 metadata.test
10.0.0.7 private.test
"""

# A bounded TCP echo server (selectors, any number of clients, exits after
# its lifetime argv[3]) on address argv[4], ports argv[1]; it writes READY to
# the file named by argv[2] once listening.
ECHO_SERVER = r"""
import selectors, socket, sys, time
ports = [int(p) for p in sys.argv[1].split(",")]
deadline = time.monotonic() + float(sys.argv[3])
sel = selectors.DefaultSelector()
for p in ports:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((sys.argv[4], p))
    s.listen(1024)
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ, None)
open(sys.argv[2], "w").write("READY")
while time.monotonic() < deadline:
    for key, _ in sel.select(timeout=0.5):
        if key.data is None:
            try:
                c, _ = key.fileobj.accept()
            except OSError:
                continue
            c.setblocking(True)
            c.settimeout(5)
            sel.register(c, selectors.EVENT_READ, "client")
        else:
            try:
                d = key.fileobj.recv(65536)
            except OSError:
                d = b""
            if d:
                try:
                    key.fileobj.sendall(d)
                    continue
                except OSError:
                    pass
            sel.unregister(key.fileobj)
            key.fileobj.close()
"""

# A name server for the proxy's own resolver: UDP on argv[1]:53, answers A
# questions for the names of the JSON map argv[3] (name -> IPv4), no data
# for their other types, NXDOMAIN for any other name; logs "name type" per
# question to argv[4]; writes READY to argv[2] once bound.
DNS_SERVER = r"""
import json, socket, struct, sys, time
names = json.loads(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 53))
s.settimeout(0.5)
log = open(sys.argv[4], "a")
open(sys.argv[2], "w").write("READY")
deadline = time.monotonic() + 170
while time.monotonic() < deadline:
    try:
        q, peer = s.recvfrom(512)
    except socket.timeout:
        continue
    pos, labels = 12, []
    while pos < len(q) and q[pos]:
        labels.append(q[pos + 1:pos + 1 + q[pos]].decode())
        pos += 1 + q[pos]
    name, qtype, end = ".".join(labels), struct.unpack(">H", q[pos + 1:pos + 3])[0], pos + 5
    log.write("%s %d\n" % (name, qtype))
    log.flush()
    head = q[:2] + (b"\x81\x80" if name in names else b"\x81\x83") + q[4:6]
    if name in names and qtype == 1:
        rr = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 60, 4) + socket.inet_aton(names[name])
        s.sendto(head + b"\0\x01\0\0\0\0" + q[12:end] + rr, peer)
    else:
        s.sendto(head + b"\0\0\0\0\0\0" + q[12:end], peer)
"""

pytestmark = [pytest.mark.timeout(150)]


def ip(*args):
    res = run_cmd(["ip"] + list(args), timeout=20)
    assert res.rc == 0, "ip %s failed:\n%s" % (" ".join(args), res)
    return res


class Net:
    """Namespaces H and S joined by a veth pair, and the echo servers."""

    def __init__(self, test_dir):
        tag = os.urandom(3).hex()
        self.h = "bento-egh-" + tag
        self.s = "bento-egs-" + tag
        self.dir = test_dir
        self.servers = []
        self.made = []

    def up(self):
        veth_h, veth_s = "beh" + self.h[-6:], "bes" + self.s[-6:]
        for ns in (self.h, self.s):
            ip("netns", "add", ns)
            self.made.append(ns)
            ip("-n", ns, "link", "set", "lo", "up")
        ip("link", "add", veth_h, "netns", self.h, "type", "veth", "peer", "name", veth_s, "netns", self.s)
        ip("-n", self.h, "addr", "add", HOST_ADDR + "/24", "dev", veth_h)
        ip("-n", self.s, "addr", "add", SERVER_ADDR + "/24", "dev", veth_s)
        ip("-n", self.s, "addr", "add", PRIVATE_ADDR + "/32", "dev", veth_s)
        ip("-n", self.h, "link", "set", veth_h, "up")
        ip("-n", self.s, "link", "set", veth_s, "up")
        ip("-n", self.h, "route", "add", PRIVATE_ADDR + "/32", "via", SERVER_ADDR, "dev", veth_h)
        # the test host (on both its addresses), and a decoy on H's own
        # loopback: a guard that let loopback through would reach it and
        # get a 200
        self.serve(self.s, "0.0.0.0", "%d,%d" % (ECHO_PORT, OTHER_PORT))
        self.serve(self.h, "127.0.0.1", str(ECHO_PORT))
        return self

    def serve(self, ns, addr, ports):
        n = len(self.servers)
        ready = os.path.join(self.dir, "echo%d.ready" % n)
        with open(os.path.join(self.dir, "echo%d.err" % n), "wb") as err:
            p = harness.spawn(["ip", "netns", "exec", ns, sys.executable, "-c", ECHO_SERVER, ports, ready,
                               "170", addr], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=err, start_new_session=True)
        self.servers.append(p)
        wait_for(lambda: os.path.exists(ready), timeout=15, what="the echo server on %s" % addr)

    def serve_dns(self, names):
        """A name server on the test host (S), for the names given; returns
        the file its questions are logged to."""
        n = len(self.servers)
        ready = os.path.join(self.dir, "dns%d.ready" % n)
        log = os.path.join(self.dir, "dns%d.log" % n)
        with open(os.path.join(self.dir, "dns%d.err" % n), "wb") as err:
            p = harness.spawn(["ip", "netns", "exec", self.s, sys.executable, "-c", DNS_SERVER,
                               SERVER_ADDR, ready, json.dumps(names), log],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                              start_new_session=True)
        self.servers.append(p)
        wait_for(lambda: os.path.exists(ready), timeout=15, what="the name server")
        return log

    def in_h(self, *argv):
        """argv prefixed to run in namespace H."""
        return ["nsenter", "--net=/run/netns/" + self.h, "--"] + [str(a) for a in argv]

    def down(self):
        for p in self.servers:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait(timeout=10)
            harness._forget(p)
        for ns in reversed(self.made):
            run_cmd(["ip", "netns", "del", ns], timeout=20)
        left = [ns for ns in self.made if os.path.exists("/run/netns/" + ns)]
        assert not left, "network namespaces left: %s" % left


@pytest.fixture
def net(test_dir):
    n = Net(test_dir)
    try:
        yield n.up()
    finally:
        n.down()


@pytest.fixture
def ert(rt, net, test_dir):
    """The runtime, run inside namespace H through a wrapper."""
    assert os.access(EGRESS, os.X_OK), "not built: %s" % EGRESS
    wrapper = os.path.join(test_dir, "runtime-in-h")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\nexec nsenter --net=/run/netns/%s -- %s \"$@\"\n" % (net.h, rt.binary))
    os.chmod(wrapper, 0o755)
    real, rt.binary = rt.binary, wrapper
    yield rt
    rt.binary = real  # rt's teardown runs after H is gone


class Rig:
    """A bundle whose createRuntime hook is bento-egress."""

    def __init__(self, bundle, test_dir, net):
        self.dir = test_dir
        self.net = net
        self.report = os.path.join(test_dir, "egress.jsonl")
        self.hosts = os.path.join(test_dir, "hosts")
        with open(self.hosts, "w") as f:
            f.write(HOSTS_FILE)
        self.shared = os.path.join(test_dir, "shared")
        os.makedirs(self.shared)
        os.chmod(self.shared, 0o777)
        self.b = bundle()
        os.makedirs(os.path.join(self.b.rootfs, "shared"))
        self.b.add_mount("/shared", type="bind", source=self.shared, options=["rbind", "rw"])
        self.b.config["annotations"] = {"run.oci.hooks.stderr": os.path.join(test_dir, "hook.err")}

    def hook(self, *rules, extra=(), stage="createRuntime"):
        args = ["bento-egress", "--report", self.report, "--hosts-file", self.hosts]
        for r in rules:
            args += ["--allow", r]
        args += list(extra)
        self.b.config["hooks"] = {stage: [{"path": EGRESS, "args": args, "timeout": 20}]}

    def events(self):
        try:
            with open(self.report) as f:
                return [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []

    def decisions(self):
        return [(e["decision"], e.get("host"), e.get("port")) for e in self.events()
                if e["event"] == "decision"]

    def daemon_pid(self):
        starts = [e for e in self.events() if e["event"] == "start"]
        assert len(starts) == 1, "expected one start line in the report: %s" % self.events()
        return starts[0]["pid"]

    def hook_err(self):
        try:
            with open(os.path.join(self.dir, "hook.err")) as f:
                return f.read()
        except FileNotFoundError:
            return ""


@pytest.fixture
def rig(bundle, test_dir, net):
    return Rig(bundle, test_dir, net)


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def thread_count(pid):
    return int(harness.proc_status(pid)["Threads"])


def wait_daemon_gone(pid):
    wait_for(lambda: (REAPER.reap_now(), not harness.proc_alive(pid))[1], timeout=10,
             what="the egress daemon %d to exit with its container" % pid)


# ---------------------------------------------------------------------------


def test_control_the_servers_answer_from_h(net):
    """Without the filter, both ports of the test host, on its public and
    its private address, and the loopback decoy answer (from H)."""
    for addr, port in ((SERVER_ADDR, ECHO_PORT), (SERVER_ADDR, OTHER_PORT), (PRIVATE_ADDR, ECHO_PORT),
                       (PRIVATE_ADDR, OTHER_PORT), ("127.0.0.1", ECHO_PORT)):
        res = run_cmd(net.in_h(harness.PROBE, "tcp-connect", addr, port))
        assert res.out.strip() == "OK", res


@pytest.mark.parametrize("stage", ["createRuntime", "prestart"])
def test_granted_destination_tunnels_both_ways(ert, rig, stage):
    rig.hook("echo.test:%d" % ECHO_PORT, stage=stage)
    steps = ert.run_script(rig.b, ["proxy-connect", "echo.test:%d" % ECHO_PORT,
                                                          "hello-through-the-tunnel"])
    out = steps[0].json()
    assert out == {"status": 200, "echo": "hello-through-the-tunnel"}, (steps, rig.hook_err())
    assert ("allow", "echo.test", str(ECHO_PORT)) in rig.decisions()
    wait_daemon_gone(rig.daemon_pid())


def test_refusals(ert, rig):
    """Ungranted port and host, names resolving to loopback and metadata, a
    private address behind a name, plain http, a malformed port, a direct
    connect and a UDP send: all fail, and the report names each refusal."""
    rig.hook("echo.test:%d" % ECHO_PORT, "loop.test:*", "metadata.test:80", "*:9999",
             "127.0.0.1:%d" % ECHO_PORT)
    steps = ert.run_script(
        rig.b,
        ["proxy-connect", "echo.test:%d" % OTHER_PORT],    # 0 port not granted
        ["proxy-connect", "%s:%d" % (SERVER_ADDR, ECHO_PORT)],  # 1 IP rules match textually only
        ["proxy-connect", "loop.test:%d" % ECHO_PORT],      # 2 granted, resolves to loopback
        ["proxy-connect", "metadata.test:80"],              # 3 granted, resolves to metadata
        ["proxy-connect", "private.test:9999"],             # 4 granted by *, resolves to private
        ["proxy-connect", "127.0.0.1:%d" % ECHO_PORT],      # 5 loopback named literally
        ["proxy-raw", "GET http://echo.test:%d/ HTTP/1.1\\r\\nHost: echo.test\\r\\n\\r\\n" % ECHO_PORT],  # 6
        ["proxy-raw", "CONNECT echo.test:07777 HTTP/1.1\\r\\n\\r\\n"],  # 7
        ["proxy-raw", "GET / HTTP/1.1\\r\\n\\r\\n"],         # 8
        ["tcp-connect", SERVER_ADDR, ECHO_PORT],            # 9 bypassing the proxy
        ["udp-send", SERVER_ADDR, ECHO_PORT],               # 10
    )
    j = [s.json() if s.text.strip().startswith("{") else s.line for s in steps]
    assert j[0]["status"] == 403, steps[0]
    assert "bento denied egress to echo.test:%d (not in the manifest's network allowlist)" % OTHER_PORT in j[0]["body"]
    assert j[1]["status"] == 403, steps[1]
    for i, target in ((2, "loop.test:%d" % ECHO_PORT), (3, "metadata.test:80"), (4, "private.test:9999"),
                      (5, "127.0.0.1:%d" % ECHO_PORT)):
        assert j[i]["status"] == 502, steps[i]
        # the same words as an ordinary failure, and no resolved address
        assert j[i]["body"] == "bento could not reach %s\n" % target, steps[i]
        for addr in ("127.0.0.1", "169.254", "10.0.0.7"):
            if addr not in target:
                assert addr not in j[i]["head"] + j[i]["body"], steps[i]
    assert j[6]["response"].startswith("HTTP/1.1 400 "), steps[6]
    assert "tunnels CONNECT only" in j[6]["response"] and "echo.test:%d" % ECHO_PORT in j[6]["response"]
    assert j[7]["response"].startswith("HTTP/1.1 400 ") and 'malformed target port "07777"' in j[7]["response"]
    assert j[8]["response"].startswith("HTTP/1.1 400 ") and "expected a CONNECT request" in j[8]["response"]
    assert j[9] == "ENETUNREACH", steps[9]
    assert j[10] == "ENETUNREACH", steps[10]

    d = rig.decisions()
    assert ("deny", "echo.test", str(OTHER_PORT)) in d
    assert ("deny", SERVER_ADDR, str(ECHO_PORT)) in d
    assert ("blocked", "loop.test", str(ECHO_PORT)) in d
    assert ("blocked", "metadata.test", "80") in d
    assert ("blocked", "private.test", "9999") in d
    assert ("blocked", "127.0.0.1", str(ECHO_PORT)) in d
    assert ("untunneled", "echo.test", str(ECHO_PORT)) in d
    assert ("refused", None, None) in d
    assert not [x for x in d if x[0] == "allow"], d
    for e in rig.events():
        if e["event"] == "decision":
            assert e["remedy"], e
            # the report never carries a resolved address for a name
            if e.get("host", "").endswith(".test"):
                assert "169.254" not in json.dumps(e) and "10.0.0.7" not in json.dumps(e), e
    wait_daemon_gone(rig.daemon_pid())


def test_names_are_asked_of_the_name_server_resolv_conf_names(ert, rig, net, test_dir):
    """A name no hosts file lists is resolved by the proxy itself from the
    name server of --resolv-conf (docs/egress.md, "How it works": resolv.conf read
    directly, no NSS), with the search list applied; the guard checks what
    it answers (a name it resolves to loopback is blocked), and a name it
    does not know fails like any unreachable destination."""
    log = net.serve_dns({"dns.test": SERVER_ADDR, "svc.corp.test": SERVER_ADDR,
                         "sneaky.test": "127.0.0.1"})
    conf = os.path.join(test_dir, "resolv.conf")
    with open(conf, "w") as f:
        f.write("nameserver %s\nsearch corp.test\noptions timeout:2 attempts:1 ndots:1\n" % SERVER_ADDR)
    rig.hook("dns.test:%d" % ECHO_PORT, "svc:%d" % ECHO_PORT, "sneaky.test:%d" % ECHO_PORT,
             "unknown.test:%d" % ECHO_PORT, extra=["--resolv-conf", conf])
    steps = ert.run_script(
        rig.b,
        ["proxy-connect", "dns.test:%d" % ECHO_PORT, "resolved-by-the-proxy"],
        ["proxy-connect", "svc:%d" % ECHO_PORT, "found-through-the-search-list"],
        ["proxy-connect", "sneaky.test:%d" % ECHO_PORT],
        ["proxy-connect", "unknown.test:%d" % ECHO_PORT],
    )
    j = [s.json() for s in steps]
    assert j[0] == {"status": 200, "echo": "resolved-by-the-proxy"}, (steps, rig.hook_err())
    assert j[1] == {"status": 200, "echo": "found-through-the-search-list"}, steps[1]
    for i, target in ((2, "sneaky.test"), (3, "unknown.test")):
        assert j[i]["status"] == 502, steps[i]
        assert j[i]["body"] == "bento could not reach %s:%d\n" % (target, ECHO_PORT), steps[i]
        assert "127.0.0.1" not in j[i]["head"] + j[i]["body"], steps[i]
    d = rig.decisions()
    assert ("allow", "dns.test", str(ECHO_PORT)) in d
    assert ("allow", "svc", str(ECHO_PORT)) in d
    assert ("blocked", "sneaky.test", str(ECHO_PORT)) in d
    assert ("unreachable", "unknown.test", str(ECHO_PORT)) in d
    with open(log) as f:
        asked = f.read().split("\n")
    # both types asked; "svc" (no dot) went through the search list first
    assert "dns.test 1" in asked and "dns.test 28" in asked, asked
    assert asked.index("svc.corp.test 1") >= 0 and "svc 1" not in asked, asked
    wait_daemon_gone(rig.daemon_pid())


def test_a_resolv_conf_that_is_not_there_fails_the_hook(ert, rig, test_dir):
    """--resolv-conf naming no file is a mistake said at once: the hook
    fails and the container does not start."""
    missing = os.path.join(test_dir, "none")
    rig.hook("dns.test:%d" % ECHO_PORT, extra=["--resolv-conf", missing])
    res = harness.expect_create_failure(ert, rig.b, message="hook")
    said = rig.hook_err() + res.err
    assert "--resolv-conf '%s'" % missing in said and "No such file" in said, said


def test_private_address_needs_a_literal_rule(ert, rig, net):
    """A private address is reached only through a rule that names it
    literally: granted by a wildcard, or behind a granted name, it is
    refused like loopback (502, the same words as any failure), while the
    literal rule tunnels to the very same host, which answers on both ports
    from H (test_control_the_servers_answer_from_h)."""
    for port in (ECHO_PORT, OTHER_PORT):
        res = run_cmd(net.in_h(harness.PROBE, "tcp-connect", PRIVATE_ADDR, port))
        assert res.out.strip() == "OK", res  # the host is there: a refusal is the guard's
    rig.hook("*:%d" % ECHO_PORT, "%s:%d" % (PRIVATE_ADDR, OTHER_PORT))
    steps = ert.run_script(
        rig.b,
        ["proxy-connect", "%s:%d" % (PRIVATE_ADDR, ECHO_PORT), "wildcard"],  # granted by *, not literally
        ["proxy-connect", "private.test:%d" % ECHO_PORT, "by-name"],  # granted by *, resolves to it
        ["proxy-connect", "%s:%d" % (PRIVATE_ADDR, OTHER_PORT), "literal"],  # the literal rule
    )
    j = [s.json() for s in steps]
    for i, target in ((0, "%s:%d" % (PRIVATE_ADDR, ECHO_PORT)), (1, "private.test:%d" % ECHO_PORT)):
        assert j[i]["status"] == 502, (steps[i], rig.hook_err())
        assert j[i]["body"] == "bento could not reach %s\n" % target, steps[i]
        assert "echo" not in j[i], steps[i]
    assert PRIVATE_ADDR not in j[1]["head"] + j[1]["body"], steps[1]
    assert j[2] == {"status": 200, "echo": "literal"}, (steps, rig.hook_err())
    d = rig.decisions()
    assert ("blocked", PRIVATE_ADDR, str(ECHO_PORT)) in d, d
    assert ("blocked", "private.test", str(ECHO_PORT)) in d, d
    assert ("allow", PRIVATE_ADDR, str(OTHER_PORT)) in d, d
    assert len([x for x in d if x[0] == "allow"]) == 1, d
    wait_daemon_gone(rig.daemon_pid())


def test_daemon_lives_as_long_as_the_container(ert, rig):
    rig.hook("echo.test:%d" % ECHO_PORT)
    rig.b.probe("sleep", "30")
    cid, pid = ert.create_ok(rig.b)
    dpid = rig.daemon_pid()
    assert harness.proc_alive(dpid)
    # detached: its own session, nothing of the runtime's inherited
    st = open("/proc/%d/stat" % dpid).read().rsplit(")", 1)[1].split()
    assert int(st[3]) == dpid, "the daemon should lead its own session: %s" % st
    fds = sorted(os.readlink("/proc/%d/fd/%s" % (dpid, f)) for f in os.listdir("/proc/%d/fd" % dpid))
    assert fds.count("/dev/null") == 3, fds
    assert len(fds) == 6, "stdio, listener, pidfd, report and nothing else: %s" % fds
    # and it keeps no privilege: it parses what the sandboxed program sends
    status = harness.proc_status(dpid)
    assert status["Uid"].split() == ["65534"] * 4 and status["Gid"].split() == ["65534"] * 4, status
    assert int(status["CapEff"], 16) == 0 and int(status["CapPrm"], 16) == 0, status
    assert status["NoNewPrivs"] == "1", status
    os.kill(dpid, signal.SIGHUP)
    time.sleep(0.2)
    assert harness.proc_alive(dpid), "SIGHUP must not end the daemon"
    ert.start_ok(cid)
    time.sleep(0.3)
    assert harness.proc_alive(dpid), "the daemon died before its container"
    res = ert.kill(cid, "KILL")
    assert res.rc == 0, res
    wait_daemon_gone(dpid)
    assert rig.events()[-1]["event"] == "stop", rig.events()


def test_hook_refuses_a_namespace_with_a_way_out(ert, rig, net):
    """A container that shares H's network namespace could bypass the
    proxy: the hook fails, so the container does not start."""
    rig.hook("echo.test:%d" % ECHO_PORT)
    rig.b.set_ns("network", "/run/netns/" + net.h)
    res = harness.expect_create_failure(ert, rig.b, message="hook")
    # bento-runtime names the hook and leaves its words in the
    # run.oci.hooks.stderr file; runc quotes them in its own message
    assert "shares the host's network namespace" in rig.hook_err() + res.err, res


def test_hook_refuses_a_namespace_with_an_interface_up(ert, rig, net):
    """A joined namespace with any interface besides lo up (here one end of
    a veth pair whose other end is in the same namespace, no address)
    could have a way out: refused, with the remedy."""
    ns = net.h.replace("egh", "egx")
    ip("netns", "add", ns)
    net.made.append(ns)
    ip("-n", ns, "link", "add", "bentodummy0", "type", "veth", "peer", "name", "bentodummy1")
    ip("-n", ns, "link", "set", "bentodummy0", "up")
    rig.hook("echo.test:%d" % ECHO_PORT)
    rig.b.set_ns("network", "/run/netns/" + ns)
    res = harness.expect_create_failure(ert, rig.b, message="hook")
    assert "has interface 'bentodummy0' up" in rig.hook_err() + res.err, res
    assert "--network none" in rig.hook_err() + res.err
    # the same namespace passes once the interface is down
    ip("-n", ns, "link", "set", "bentodummy0", "down")
    steps = ert.run_script(rig.b, ["proxy-connect", "echo.test:%d" % ECHO_PORT, "down-is-fine"])
    assert steps[0].json() == {"status": 200, "echo": "down-is-fine"}, steps


def test_connection_cap_and_slow_client(ert, rig):
    rig.hook("echo.test:%d" % ECHO_PORT, extra=["--max-connections", "3", "--head-timeout", "2"])
    t0 = time.monotonic()
    steps = ert.run_script(
        rig.b,
        ["proxy-raw", "CONNECT echo.test:%d HTTP/1.1\\r\\nX-Slow: yes\\r\\n" % ECHO_PORT],  # never ends its head
        ["proxy-load", "5", "echo.test:%d" % ECHO_PORT, "64"],
    )
    elapsed = time.monotonic() - t0
    # closed unanswered after the 2 s head timeout, well before the
    # probe's own 20 s receive timeout would have ended the wait
    assert steps[0].json() == {"response": ""}, steps[0]
    assert 2 <= elapsed < 12, elapsed
    load = steps[1].json()
    assert load["opened"] == 3 and load["intact"] == 3, steps[1]
    d = rig.decisions()
    assert d.count(("refused-at-capacity", None, None)) == 2, d


@pytest.mark.timeout(harness.patience(200))
def test_load_200_tunnels_no_fd_leak(ert, rig):
    rig.hook("echo.test:%d" % ECHO_PORT)
    go = os.path.join(rig.shared, "go")
    # tunnels are held open HOLD seconds, long enough to be counted
    hold = harness.patience(4)
    rig.b.set_args("/bin/sh", "-c", "/bin/bento-probe wait-file /shared/go 60 >/dev/null && "
                   "/bin/bento-probe proxy-load 200 echo.test:%d 8192 %d && "
                   # refusals must give their descriptors back too
                   "/bin/bento-probe proxy-connect echo.test:%d; "
                   "/bin/bento-probe proxy-connect loop.test:%d; "
                   "/bin/bento-probe proxy-raw 'GET / HTTP/1.1\\r\\n\\r\\n'; echo refusals-done; "
                   "/bin/bento-probe wait-file /shared/end 60 >/dev/null"
                   % (ECHO_PORT, hold, OTHER_PORT, ECHO_PORT))
    cid = ert.new_id()
    p = ert.spawn_run(rig.b, cid)
    try:
        wait_for(lambda: [e for e in rig.events() if e["event"] == "start"], timeout=harness.patience(30),
                 what="the egress daemon to start")
        dpid = rig.daemon_pid()
        # the baseline is the idle daemon: its NAT64 discovery thread (started
        # with the daemon, at most 3 s) holds a thread and a DNS socket until it
        # ends, and counting it would make the end state look short
        wait_for(lambda: thread_count(dpid) == 1, timeout=harness.patience(20),
                 what="the daemon's NAT64 discovery to end")
        fds_before, threads_before = fd_count(dpid), thread_count(dpid)
        open(go, "w").close()
        # while the tunnels are held open, the daemon holds two fds each
        wait_for(lambda: fd_count(dpid) >= fds_before + 400, timeout=harness.patience(60),
                 what="200 tunnels open at once")
        wait_for(lambda: '"opened"' in ert.container_output(cid), timeout=harness.patience(60), what="the load result")
        line = [x for x in ert.container_output(cid).splitlines() if '"opened"' in x][0]
        assert json.loads(line) == {"opened": 200, "intact": 200, "bad": 0}, line
        wait_for(lambda: "refusals-done" in ert.container_output(cid), timeout=harness.patience(30), what="the refusals")
        # and once they close, everything is given back
        wait_for(lambda: fd_count(dpid) == fds_before and thread_count(dpid) == threads_before,
                 timeout=harness.patience(20), what="the daemon's fds (%d) and threads (%d) to come back" % (
                     fds_before, threads_before))
        assert sum(1 for d in rig.decisions() if d[0] == "allow") == 200
        assert [d[0] for d in rig.decisions()[200:]] == ["deny", "deny", "refused"], rig.decisions()[200:]
    finally:
        open(os.path.join(rig.shared, "end"), "w").close()
        rc = ert.finish_spawned(p, timeout=harness.patience(60))
    assert rc == 0, ert.container_output(cid)
    wait_daemon_gone(dpid)
    stop = rig.events()[-1]
    assert stop["event"] == "stop" and stop["connections"] == 203 and stop["accept_errors"] == 0, stop


def test_check_prints_normalised_rules():
    res = run_cmd([EGRESS, "--check", "--allow", "API.Example.COM:443", "--allow", "[2001:db8::1]:80",
                   "--allow", ".example.org:8000-8099"])
    assert res.rc == 0, res
    assert res.out.splitlines() == ["api.example.com:443", "[2001:db8::1]:80", ".example.org:8000-8099"]
    for bad, why in (("127.1:80", "not a canonical IP address"), ("example.com:08080", "plain decimal"),
                     ("[::ffff:10.0.0.1]:1", "write it as 10.0.0.1"), ("example.com", "no port")):
        res = run_cmd([EGRESS, "--check", "--allow", bad])
        assert res.rc == 2 and why in res.err, res


# ---------------------------------------------------------------------------
# podman: the same hook attached through contrib/oci-hooks.d


CONTRIB_HOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "contrib", "oci-hooks.d",
                            "bento-egress.json")


def contrib_hook_for_test(hooks_dir, report_dir, hosts_file):
    """contrib's hook file as shipped, with the binary and the report
    directory pointed at this build and test, and the names file added."""
    with open(CONTRIB_HOOK) as f:
        h = json.load(f)
    assert h["when"] == {"annotations": {r"^org\.bento\.egress$": ".*"}}, h["when"]
    assert h["stages"] == ["createRuntime"], h["stages"]
    args = h["hook"]["args"]
    assert args[:3] == ["bento-egress", "--rules-annotation", "org.bento.egress"], args
    args[args.index("--report-dir") + 1] = report_dir
    args += ["--hosts-file", hosts_file]
    h["hook"]["path"] = EGRESS
    os.makedirs(hooks_dir)
    with open(os.path.join(hooks_dir, "bento-egress.json"), "w") as f:
        json.dump(h, f)


@pytest.mark.engines
def test_podman_attaches_the_hook_by_annotation(pm, net, test_dir):
    hooks_dir = os.path.join(test_dir, "hooks.d")
    report_dir = os.path.join(test_dir, "reports")
    hosts = os.path.join(test_dir, "hosts")
    with open(hosts, "w") as f:
        f.write(HOSTS_FILE)
    contrib_hook_for_test(hooks_dir, report_dir, hosts)
    script = "; ".join([
        "/bento-probe proxy-connect echo.test:%d via-podman" % ECHO_PORT,
        "/bento-probe proxy-connect echo.test:%d" % OTHER_PORT,
        "/bento-probe proxy-connect metadata.test:80",
        "/bento-probe tcp-connect %s %d" % (SERVER_ADDR, ECHO_PORT),
        "/bento-probe udp-send %s %d" % (SERVER_ADDR, ECHO_PORT),
        "true",
    ])

    def podman_run(annotation):
        opts = ["--volume", "%s:/bento-probe:ro" % harness.PROBE]
        if annotation is not None:
            opts += ["--annotation", "org.bento.egress=" + annotation]
        argv = pm.p.argv("--hooks-dir", hooks_dir, *pm.run_argv("/bin/sh", "-c", script, opts=opts))
        res = run_cmd(net.in_h(*argv), env=pm.p.env(), timeout=120)
        pm.collect_cids()
        return res

    # podman splits --annotation values at commas: rules are separated by spaces
    res = podman_run("echo.test:%d metadata.test:80" % ECHO_PORT)
    assert res.rc == 0, res
    lines = res.out.splitlines()
    assert json.loads(lines[0]) == {"status": 200, "echo": "via-podman"}, res
    assert json.loads(lines[1])["status"] == 403, res
    assert json.loads(lines[2])["status"] == 502, res
    assert lines[3:5] == ["ENETUNREACH", "ENETUNREACH"], res
    reports = os.listdir(report_dir)
    assert len(reports) == 1 and reports[0] == pm.cids[-1] + ".jsonl", reports
    with open(os.path.join(report_dir, reports[0])) as f:
        events = [json.loads(line) for line in f]
    decisions = [(e["decision"], e.get("host"), e.get("port")) for e in events if e["event"] == "decision"]
    assert decisions == [("allow", "echo.test", str(ECHO_PORT)), ("deny", "echo.test", str(OTHER_PORT)),
                         ("blocked", "metadata.test", "80")], events
    wait_daemon_gone([e for e in events if e["event"] == "start"][0]["pid"])

    # without the annotation the hook is not attached: no proxy at all
    res = podman_run(None)
    assert res.rc == 0, res
    assert res.out.splitlines()[0] == "ECONNREFUSED", res
    assert len(os.listdir(report_dir)) == 1
