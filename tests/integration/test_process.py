# SPDX-License-Identifier: Apache-2.0
"""config.process and friends: args, env, cwd, identity, rlimits, caps,
NNP, oomScoreAdj, hostname, sysctl, stdio, fds, keyring, terminal."""

import ctypes
import json
import os
import select
import socket
import threading
import time

import pytest

from harness import DEFAULT_CAPS, REAPER, cap_names, expect_create_failure


def probe_json(rt, b, *args, **kw):
    return rt.run_probe(b, *args, **kw).json()


def test_args_passed_verbatim(rt, bundle):
    b = bundle()
    argv = ["/bin/bento-probe", "argv", "two words", "", "quote\"d", "x=y", "--flag"]
    b.set_args(*argv)
    res = rt.run(b)
    assert res.rc == 0, res
    assert res.json() == argv


def test_args_resolved_through_path(rt, bundle):
    b = bundle()
    b.set_args("bento-probe", "argv")
    res = rt.run(b)
    assert res.rc == 0, res
    assert res.json()[0] == "bento-probe"


def test_missing_executable_fails(rt, bundle):
    b = bundle()
    b.set_args("/bin/no-such-program")
    res = rt.run(b)
    assert res.rc not in (0, None), res
    low = res.err.lower()
    assert "no such file or directory" in low or "executable file not found" in low, res
    assert not os.path.exists(rt.state_dir(res.cid)), "failed run left its state directory"

    b2 = bundle()
    b2.process["env"] = ["PATH=/nowhere"]
    b2.set_args("bento-probe", "argv")
    res = rt.run(b2)
    assert res.rc not in (0, None), "program found outside the container's PATH:\n%s" % res


def test_environment_is_exactly_the_config(rt, bundle):
    b = bundle()
    env = ["PATH=/bin", "HOME=/root", "A=1", "SPACED=a b c", "EMPTY="]
    b.process["env"] = env
    got = probe_json(rt, b, "env")
    assert sorted(got) == sorted(env)
    assert not any(e.startswith("BENTO_HOST_ONLY_VARIABLE") for e in got)


@pytest.mark.parametrize("cwd", ["/", "/tmp", "/dev/shm", "/bin"])
def test_cwd(rt, bundle, cwd):
    b = bundle()
    b.process["cwd"] = cwd
    res = rt.run_probe(b, "cwd")
    assert res.out.strip() == cwd


def test_user_and_groups(rt, bundle):
    b = bundle()
    b.process["user"] = {"uid": 1000, "gid": 1001, "additionalGids": [2001, 2000]}
    ids = probe_json(rt, b, "ids")
    assert (ids["uid"], ids["euid"], ids["suid"]) == (1000, 1000, 1000)
    assert (ids["gid"], ids["egid"], ids["sgid"]) == (1001, 1001, 1001)
    assert sorted(ids["groups"]) == [2000, 2001]


def test_no_additional_groups_means_none(rt, bundle):
    b = bundle()
    b.process["user"] = {"uid": 1000, "gid": 1000}
    ids = probe_json(rt, b, "ids")
    assert ids["groups"] == [], "host supplementary groups leaked: %s" % ids["groups"]
    assert (ids["uid"], ids["gid"]) == (1000, 1000)


@pytest.mark.parametrize("umask", [0o022, 0o077, 0])
def test_umask(rt, bundle, umask):
    b = bundle()
    b.process["user"]["umask"] = umask
    assert probe_json(rt, b, "ids")["umask"] == umask


def test_rlimits_applied_exactly(rt, bundle):
    b = bundle()
    b.process["rlimits"] = [
        {"type": "RLIMIT_NOFILE", "soft": 1234, "hard": 2345},
        {"type": "RLIMIT_CORE", "soft": 0, "hard": 0},
        {"type": "RLIMIT_NPROC", "soft": 5000, "hard": 6000},
    ]
    lim = probe_json(rt, b, "rlimits")
    assert lim["RLIMIT_NOFILE"] == {"soft": 1234, "hard": 2345}
    assert lim["RLIMIT_CORE"] == {"soft": 0, "hard": 0}
    assert lim["RLIMIT_NPROC"] == {"soft": 5000, "hard": 6000}


def test_rlimit_at_host_hard_limit_works(rt, bundle):
    b = bundle()
    b.process["rlimits"] = [{"type": "RLIMIT_NOFILE", "soft": 20000, "hard": 20000}]
    assert probe_json(rt, b, "rlimits")["RLIMIT_NOFILE"] == {"soft": 20000, "hard": 20000}


def test_rlimit_above_host_hard_limit_fails(rt, bundle):
    # no CAP_SYS_RESOURCE here: raising a hard limit past 20000 is refused
    b = bundle()
    b.process["rlimits"] = [{"type": "RLIMIT_NOFILE", "soft": 30000, "hard": 30000}]
    expect_create_failure(rt, b, message="RLIMIT_NOFILE")


@pytest.mark.parametrize("nnp", [True, False])
def test_no_new_privileges(rt, bundle, nnp):
    b = bundle()
    b.process["noNewPrivileges"] = nnp
    assert probe_json(rt, b, "nnp")["no_new_privs"] == (1 if nnp else 0)


def test_capabilities_as_root(rt, bundle):
    caps = ["CAP_CHOWN", "CAP_KILL", "CAP_NET_BIND_SERVICE", "CAP_SETUID"]
    b = bundle()
    b.process["capabilities"] = {"bounding": caps, "effective": caps, "permitted": caps, "inheritable": [],
                                 "ambient": []}
    steps = rt.run_script(b, ["caps"], ["mount-tmpfs", "/tmp"], ["sethostname", "nope"], ["setuid", "1000"])
    got = steps[0].json()
    assert cap_names(got["bounding"]) == set(caps)
    assert cap_names(got["effective"]) == set(caps)
    assert cap_names(got["permitted"]) == set(caps)
    assert cap_names(got["inheritable"]) == set()
    assert cap_names(got["ambient"]) == set()
    assert steps[1].line == "EPERM", "mount without CAP_SYS_ADMIN"
    assert steps[2].line == "EPERM", "sethostname without CAP_SYS_ADMIN"
    assert steps[3].line == "OK", "setuid with CAP_SETUID"

    b2 = bundle()  # the default set has no CAP_SETUID
    steps = rt.run_script(b2, ["caps"], ["setuid", "1000"])
    assert cap_names(steps[0].json()["bounding"]) == set(DEFAULT_CAPS)
    assert steps[1].line == "EPERM"


def test_capability_sets_of_unprivileged_user(rt, bundle):
    nbs = "CAP_NET_BIND_SERVICE"
    b = bundle()
    b.process["user"] = {"uid": 1000, "gid": 1000}
    b.process["capabilities"] = {"bounding": [nbs, "CAP_KILL", "CAP_CHOWN"], "effective": [nbs],
                                 "permitted": [nbs, "CAP_KILL"], "inheritable": [nbs, "CAP_KILL"], "ambient": [nbs]}
    steps = rt.run_script(b, ["caps"], ["bind-port", "80"])
    got = steps[0].json()
    # after execve a non-root process keeps exactly its ambient set
    assert cap_names(got["bounding"]) == {nbs, "CAP_KILL", "CAP_CHOWN"}
    assert cap_names(got["inheritable"]) == {nbs, "CAP_KILL"}
    assert cap_names(got["ambient"]) == {nbs}
    assert cap_names(got["permitted"]) == {nbs}
    assert cap_names(got["effective"]) == {nbs}
    assert steps[1].line == "OK"

    b2 = bundle()
    b2.process["user"] = {"uid": 1000, "gid": 1000}
    b2.process["capabilities"] = {"bounding": [nbs], "effective": [nbs], "permitted": [nbs], "inheritable": [],
                                  "ambient": []}
    steps = rt.run_script(b2, ["caps"], ["bind-port", "80"])
    assert cap_names(steps[0].json()["effective"]) == set()
    assert steps[1].line == "EACCES"


def test_unknown_capability_is_a_warning(rt, bundle):
    b = bundle()
    b.process["capabilities"]["bounding"].append("CAP_BOGUS")
    res = rt.run_probe(b, "caps")
    assert "CAP_BOGUS" in res.err, "the unknown capability should be named in a warning:\n%s" % res
    assert cap_names(res.json()["bounding"]) == set(DEFAULT_CAPS)


@pytest.mark.parametrize("adj", [500, 1000])
def test_oom_score_adj(rt, bundle, adj):
    b = bundle()
    b.process["oomScoreAdj"] = adj
    assert probe_json(rt, b, "facts")["oom_score_adj"].strip() == str(adj)


def test_oom_score_adj_out_of_range(rt, bundle):
    b = bundle()
    b.process["oomScoreAdj"] = 1001
    expect_create_failure(rt, b)


def test_hostname_and_domainname(rt, bundle):
    before = socket.gethostname()
    with open("/proc/sys/kernel/domainname") as f:
        dom_before = f.read()
    b = bundle()
    b.config["hostname"] = "proc-host"
    b.config["domainname"] = "example.test"
    h = probe_json(rt, b, "hostname")
    assert h == {"hostname": "proc-host", "domainname": "example.test"}
    assert socket.gethostname() == before
    with open("/proc/sys/kernel/domainname") as f:
        assert f.read() == dom_before


def read_host_sysctl(key):
    with open("/proc/sys/" + key.replace(".", "/")) as f:
        return f.read().strip()


def test_sysctl_in_new_network_namespace(rt, bundle):
    before = read_host_sysctl("net.ipv4.ip_forward")
    b = bundle()
    b.linux["sysctl"] = {"net.ipv4.ip_forward": "1", "net.ipv4.ping_group_range": "0 0"}
    steps = rt.run_script(b, ["sysctl", "net.ipv4.ip_forward"], ["sysctl", "net.ipv4.ping_group_range"])
    assert steps[0].json()["value"] == "1"
    assert steps[1].json()["value"].split() == ["0", "0"]
    assert read_host_sysctl("net.ipv4.ip_forward") == before


def test_sysctl_not_namespaced_rejected(rt, bundle):
    before = read_host_sysctl("kernel.panic")
    b = bundle()
    b.linux["sysctl"] = {"kernel.panic": "7"}
    expect_create_failure(rt, b, message="kernel.panic")
    assert read_host_sysctl("kernel.panic") == before


def test_sysctl_net_without_network_namespace_rejected(rt, bundle):
    before = read_host_sysctl("net.ipv4.ip_forward")
    b = bundle()
    b.drop_ns("network")
    b.linux["sysctl"] = {"net.ipv4.ip_forward": "0" if before == "1" else "1"}
    expect_create_failure(rt, b, message="net.ipv4.ip_forward")
    assert read_host_sysctl("net.ipv4.ip_forward") == before


def test_stdin_is_passed_through(rt, bundle):
    b = bundle()
    b.probe("stdin")
    data = "hello from the host\nsecond line\n"
    res = rt.run(b, input=data)
    assert res.rc == 0, res
    assert res.json() == {"ok": True, "size": len(data), "data": data}


def test_stdout_and_stderr_are_passed_through(rt, bundle):
    b = bundle()
    b.probe("say", "to-stdout", "to-stderr")
    res = rt.run(b)
    assert res.rc == 0, res
    assert res.out.split() == ["to-stdout"]
    assert "to-stderr" in res.err and "to-stderr" not in res.out


@pytest.fixture
def fd3_file(test_dir):
    p = os.path.join(test_dir, "fd3.txt")
    with open(p, "w") as f:
        f.write("through fd three\n")
    return p


def test_preserve_fds(rt, bundle, fd3_file):
    b = bundle()
    b.probe("fds")
    res = rt.run(b, None, "--preserve-fds", "1", fd3=fd3_file)
    assert res.rc == 0, res
    assert res.json()["fds"] == [0, 1, 2, 3]
    b.probe("readfd", "3")
    res = rt.run(b, None, "--preserve-fds", "1", fd3=fd3_file)
    assert res.rc == 0, res
    assert res.json()["data"] == "through fd three\n"


def test_no_fd_leaks_without_preserve(rt, bundle, fd3_file):
    b = bundle()
    b.probe("fds")
    res = rt.run(b, fd3=fd3_file)
    assert res.rc == 0, res
    assert res.json()["fds"] == [0, 1, 2], "fds leaked into the container: %s" % res.json()


def test_no_fd_leaks_through_create_and_start(rt, bundle, fd3_file):
    b = bundle()
    b.probe("fds")
    cid, pid = rt.create_ok(b, None, fd3=fd3_file)
    rt.start_ok(cid)
    assert REAPER.exit_code(pid) == 0
    got = json.loads(rt.container_output(cid))
    assert got["fds"] == [0, 1, 2], "fds leaked into the container: %s" % got


def own_session_keyring():
    libc = ctypes.CDLL(None, use_errno=True)
    SYS_keyctl = 250  # x86_64
    return libc.syscall(SYS_keyctl, 0, -3, 0)  # KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING


def test_session_keyring(rt, bundle):
    ours = own_session_keyring()
    b = bundle()
    new = probe_json(rt, b, "keyring")
    assert new["ok"] and new["session"] != ours, "the container shares the caller's session keyring"
    b.probe("keyring")
    res = rt.run(b, None, "--no-new-keyring")
    assert res.rc == 0, res
    assert res.json()["session"] == ours, "--no-new-keyring should keep the caller's keyring"


class ConsoleSocket:
    """Receives the pty master that the runtime sends over --console-socket."""

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
        except Exception as e:  # reported by the test
            self.error = e

    def master(self, timeout=15):
        self.thread.join(timeout)
        self.srv.close()
        assert self.error is None, "console socket: %r" % self.error
        assert len(self.fds) == 1, "expected one fd over the console socket, got %s" % self.fds
        return self.fds[0]


def read_until(fd, needle, timeout=10):
    buf = b""
    deadline = time.monotonic() + timeout
    while needle not in buf and time.monotonic() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
    return buf


def test_terminal_via_console_socket(rt, bundle, test_dir):
    sock = ConsoleSocket(os.path.join(test_dir, "console.sock"))
    b = bundle()
    b.process["terminal"] = True
    b.probe("tty")
    cid, pid = rt.create_ok(b, None, "--console-socket", sock.path)
    master = sock.master()
    try:
        rt.start_ok(cid)
        out = read_until(master, b"}")
    finally:
        os.close(master)
    assert REAPER.exit_code(pid) == 0
    text = out.decode("utf-8", "replace")
    got = json.loads(text[text.index("{"):text.rindex("}") + 1])
    assert got["stdin"] and got["stdout"] and got["stderr"], got
    assert got["ttyname"].startswith("/dev/pts/"), got


def test_terminal_without_console_socket_rejected(rt, bundle):
    b = bundle()
    b.process["terminal"] = True
    expect_create_failure(rt, b)
