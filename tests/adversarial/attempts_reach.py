# SPDX-License-Identifier: Apache-2.0
"""Attempts to reach the host from inside: its sockets (pathname, abstract,
the ssh and gpg agents, the session bus, docker), its loopback ports, the
metadata address, its IPC objects (/dev/shm, SysV, POSIX queues), the
terminal, and a process left running after the run.  The sandbox has its own
empty network namespace, its own ipc namespace and /dev/shm, no controlling
terminal, and its pid namespace dies with it (bento-manifest(5), NETWORK RULES
and WHAT THE PROGRAM SEES).  Every host listener counts what it accepts, so a
connection that got through fails the host check even if the box lied.

Host listeners never reach a real network: loopback, abstract sockets and
files only; the metadata and TEST-NET addresses are asserted unreachable from
an empty namespace.
"""

import os
import ctypes
import struct

from advharness import Group, assert_denied, assert_ok, attempt
# The in-box functions below run in box/boxlib.py's namespace; importing its helpers
# here only names them for readers and linters.
from boxlib import call, connect_tcp, connect_unix, ename, libc, listdir, read, sc, write  # noqa: E402

Group("reach", "read: [~], write: [./work]; host sockets, ports, IPC, terminal, background processes")


def hub(run):
    return run.world.session.bait.hub


@attempt("reach", "agent-sockets", "connect to the ssh agent (SSH_AUTH_SOCK's path in the host /tmp, and "
         "~/.ssh/agent.sock), the gpg agent in ~/.gnupg and the session bus in $XDG_RUNTIME_DIR")
def agent_sockets(c):
    return {"ssh_auth_sock": connect_unix(c.agent), "home_agent": connect_unix(c.home + "/.ssh/agent.sock"),
            "gpg": connect_unix(c.home + "/.gnupg/S.gpg-agent"), "bus": connect_unix(c.xdg_run + "/bus"),
            "env": os.environ.get("SSH_AUTH_SOCK"), "xdg": listdir(c.xdg_run)}


@agent_sockets.check
def _(r, run):
    for k in ("ssh_auth_sock", "home_agent", "gpg", "bus"):
        assert_denied(r[k], what="connecting to %s" % k)
    assert r["env"] is None
    assert r["xdg"].get("value", []) == [], "XDG_RUNTIME_DIR not hidden: %r" % r["xdg"]


@agent_sockets.host
def _(run):
    w = run.world
    assert hub(run).count("ssh-agent") == 0, "the host ssh agent accepted a connection"
    for label in ("home-agent", "gpg-agent", "session-bus"):
        assert hub(run).count("%s:%s" % (label, w.dir)) == 0, "the host's %s accepted a connection" % label


@attempt("reach", "system-sockets", "connect to /run/dbus/system_bus_socket, /var/run/docker.sock, "
         "/run/containerd/containerd.sock, /run/systemd/private, /dev/log")
def system_sockets(c):
    out = {}
    for p in ("/run/dbus/system_bus_socket", "/var/run/docker.sock", "/run/docker.sock",
              "/run/containerd/containerd.sock", "/run/systemd/private", "/dev/log", "/run/podman/podman.sock"):
        out[p] = connect_unix(p)
    return out


@system_sockets.check
def _(r, run):
    for k, v in r.items():
        assert_denied(v, what=k)


@attempt("reach", "abstract-socket", "connect to an abstract unix socket the host listens on (the network "
         "namespace must separate them)")
def abstract_socket(c):
    return {"host": connect_unix(c.abstract, abstract=True), "own": _own_abstract(c)}


def _own_abstract(c):
    import socket as s_
    srv = s_.socket(s_.AF_UNIX, s_.SOCK_STREAM)
    srv.bind("\0box-own-" + c.token)
    srv.listen(1)
    r = connect_unix("box-own-" + c.token, abstract=True)
    srv.close()
    return r


abstract_socket.source += "\n" + __import__("inspect").getsource(_own_abstract)


@abstract_socket.check
def _(r, run):
    assert_denied(r["host"], "ECONNREFUSED", what="the host's abstract socket")
    assert_ok(r["own"], "the box's own abstract socket")


@abstract_socket.host
def _(run):
    assert hub(run).count("abstract") == 0


@attempt("reach", "loopback-ports", "connect to TCP ports the host listens on at 127.0.0.1 and ::1; a port "
         "of the box's own loopback still works")
def loopback_ports(c):
    import socket as s_
    srv = s_.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    own = connect_tcp("127.0.0.1", srv.getsockname()[1])
    srv.close()
    return {"v4": connect_tcp("127.0.0.1", c.tcp4), "v6": connect_tcp("::1", c.tcp6, s_.AF_INET6),
            "proxy": connect_tcp("127.0.0.1", 3128), "own": own}


@loopback_ports.check
def _(r, run):
    assert_denied(r["v4"], what="host 127.0.0.1 port")
    assert_denied(r["v6"], what="host ::1 port")
    assert_denied(r["proxy"], what="a proxy without network rules")
    assert_ok(r["own"], "the box's own loopback")


@loopback_ports.host
def _(run):
    assert hub(run).count("tcp4") == 0 and hub(run).count("tcp6") == 0, "a host loopback port accepted"


@attempt("reach", "egress", "connect to the metadata address 169.254.169.254:80, TEST-NET 192.0.2.1:443, send "
         "UDP to 192.0.2.1:53, resolve a name; open AF_PACKET and netlink route sockets to add an address")
def egress(c):
    import socket as s_

    def udp():
        s = s_.socket(s_.AF_INET, s_.SOCK_DGRAM)
        try:
            return s.sendto(b"x", ("192.0.2.1", 53))
        finally:
            s.close()

    def netlink_addr():
        s = s_.socket(s_.AF_NETLINK, s_.SOCK_RAW, 0)
        try:
            s.bind((0, 0))
            ifa = struct.pack("BBBBI", 2, 24, 0, 0, 1)  # AF_INET /24 on lo
            attr = struct.pack("HH4s", 8, 2, bytes([192, 0, 2, 9]))  # IFA_LOCAL
            body = ifa + attr
            hdr = struct.pack("IHHII", 16 + len(body), 20, 0x405, 1, 0)  # RTM_NEWADDR, REQUEST|ACK|CREATE|EXCL
            s.send(hdr + body)
            ans = s.recv(4096)
            return struct.unpack("i", ans[16:20])[0]  # the ack's error: 0 or -errno
        finally:
            s.close()

    return {"metadata": connect_tcp("169.254.169.254", 80), "testnet": connect_tcp("192.0.2.1", 443),
            "udp": call(udp), "dns": call(s_.getaddrinfo, "example.com", 443),
            "packet": call(lambda: s_.socket(17, s_.SOCK_RAW, 0).close()), "netlink": call(netlink_addr)}


@egress.check
def _(r, run):
    for k in ("metadata", "testnet", "udp", "dns", "packet"):
        assert_denied(r[k], what=k)
    assert not (r["netlink"].get("ok") and r["netlink"].get("value") == 0), "an address was added: %r" % r


@attempt("reach", "host-ipc", "read the host's /dev/shm file, attach its SysV segment, open its POSIX message "
         "queue; plant a file in /dev/shm")
def host_ipc(c):
    libc.shmget.restype = ctypes.c_int
    mq = getattr(libc, "mq_open", None)
    out = {"shm_file": read(c.shm_file), "sysv": {"ret": libc.shmget(c.sysv_key, 0, 0)},
           "plant": write("/dev/shm/bento-adv-box-" + c.token, "planted\n"),
           "shm_dir": listdir("/dev/shm")}
    if out["sysv"]["ret"] >= 0:
        libc.shmat.restype = ctypes.c_void_p
        addr = libc.shmat(out["sysv"]["ret"], None, 0)
        out["sysv"]["data"] = ctypes.string_at(addr, 80).decode("utf-8", "replace")
    if mq is not None:
        mq.restype = ctypes.c_int
        out["mq"] = {"ret": mq(c.mq_name.encode(), 0, 0, None), "errno": ename(ctypes.get_errno())}
    return out


@host_ipc.check
def _(r, run):
    assert_denied(r["shm_file"], "ENOENT", what="the host's /dev/shm file")
    assert r["sysv"]["ret"] < 0, "the host's SysV segment is reachable: %r" % r["sysv"]
    assert r.get("mq", {"ret": -1})["ret"] < 0, "the host's message queue is reachable: %r" % r.get("mq")
    assert_ok(r["plant"], "writing the box's own /dev/shm")


Group("tty", "read: [~], write: [./work]; stdin is a pty that is a host session's controlling terminal",
      pty=True)


@attempt("tty", "tty-injection", "with stdin a terminal a host session owns: open /dev/tty, TIOCSCTTY to steal "
         "it, TIOCSTI a command into it, TIOCLINUX")
def tty_injection(c):
    import fcntl
    import termios
    out = {"dev_tty": call(lambda: os.close(os.open("/dev/tty", os.O_RDWR)) or "opened"),
           "isatty": os.isatty(0), "sctty": call(fcntl.ioctl, 0, termios.TIOCSCTTY, 0)}
    for fd in (0, 1, 2):
        out["sti%d" % fd] = call(fcntl.ioctl, fd, termios.TIOCSTI, b"x")
    out["tioclinux"] = call(fcntl.ioctl, 0, 0x541C, b"\x06")
    out["sid"] = call(os.getsid, 0)
    return out


@tty_injection.check
def _(r, run):
    # (runc hands the container pipes, not the terminal: then every ioctl is ENOTTY)
    assert_denied(r["dev_tty"], what="/dev/tty (no controlling terminal)")
    assert_denied(r["sctty"], what="TIOCSCTTY on a terminal another session owns")
    for fd in (0, 1, 2):
        assert_denied(r["sti%d" % fd], what="TIOCSTI on fd %d" % fd)


@tty_injection.host
def _(run):
    assert run.pty_input == b"", "the box pushed %r into the host terminal's input" % run.pty_input


@attempt("reach", "background-process", "leave processes running after the run: a double fork with setsid "
         "(and a `sleep` under exec: all), one ignoring SIGTERM/SIGHUP, one in a new pid namespace")
def background_process(c):
    import signal as sg
    out = {}

    def daemon(new_pidns):
        pid = os.fork()
        if pid:
            os.waitpid(pid, 0)
            return "forked"
        try:
            os.setsid()
            if new_pidns:
                sc("unshare", 0x10000000 | 0x20000000)  # CLONE_NEWUSER|CLONE_NEWPID
            if os.fork():
                os._exit(0)
            for s in (sg.SIGTERM, sg.SIGHUP, sg.SIGINT):
                sg.signal(s, sg.SIG_IGN)
            os.chdir(c.work)
            if c.exec == "all":
                try:
                    os.execv("/bin/sleep", ["sleep", "120"])
                except OSError:
                    pass
            import time
            time.sleep(120)
        finally:
            os._exit(0)

    out["daemon"] = call(daemon, False)
    out["pidns_daemon"] = call(daemon, True)
    return out


@background_process.check
def _(r, run):
    if run.mode.can_fork:
        assert_ok(r["daemon"], "fork where the exec mode allows it")
    else:
        assert_denied(r["daemon"], "EPERM", what="fork under none-strict")


@background_process.host
def _(run):
    assert not run.leftover, "processes survived the run: %s" % run.leftover


@attempt("reach", "run-files", "find bento's run directory and its exec gate's socket (the gate is a thread "
         "of bento's now, listening in /dev/shm/bento-XXXXXX on the host), and plant a program in the "
         "runtime's seccomp cache (/run/bento-runtime/.cache/seccomp), which every later run with the "
         "same profile would load as its filter")
def run_files(c):
    import glob
    # bento-XXXXXX and bento-run-XXXXXX, the names bento gives them (the
    # harness's own directory carries the box's token)
    seen = sorted(p for p in glob.glob("/dev/shm/bento-*") + glob.glob("/tmp/bento-run-*") +
                  glob.glob(os.environ.get("TMPDIR", "/tmp") + "/bento-run-*") if c.token not in p)
    return {"seen": seen,
            "sockets": {p: connect_unix(p + "/exec-gate.sock") for p in seen},
            "cache": listdir("/run/bento-runtime/.cache/seccomp"),
            "plant": write("/run/bento-runtime/.cache/seccomp/planted-" + c.token),
            "plant_root": write("/run/bento-runtime/planted-" + c.token),
            "own_shm": write("/dev/shm/box-own-" + c.token)}


@run_files.check
def _(r, run):
    assert r["seen"] == [], "the box sees a run directory: %r" % r["seen"]
    assert r["sockets"] == {}, r["sockets"]
    assert_denied(r["cache"], what="listing the runtime's seccomp cache")
    assert_denied(r["plant"], what="writing into the runtime's seccomp cache")
    assert_denied(r["plant_root"], what="writing into the runtime's state root")
    assert_ok(r["own_shm"], "writing the box's own /dev/shm")


@run_files.host
def _(run):
    for d in ("/run/bento-runtime/.cache/seccomp", "/run/bento-runtime"):
        planted = [n for n in (os.listdir(d) if os.path.isdir(d) else []) if n.startswith("planted-")]
        assert planted == [], "the box planted %s in %s" % (planted, d)
