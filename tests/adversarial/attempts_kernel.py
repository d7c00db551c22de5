# SPDX-License-Identifier: Apache-2.0
"""Attempts on the kernel interfaces a box without capabilities must not use
against the host: mounts and root changes, namespaces, other processes,
/proc and /sys writes, devices, keys, BPF, perf, io_uring, userfaultfd, module
loading, clocks.  bento promises a process with no capabilities, no way to
gain privileges, its own pid, mount, network, ipc and uts namespaces and a
read-only root (bento-manifest(5), WHAT THE PROGRAM SEES).

Each in-box function returns raw outcomes; the host checks assert the refusal
and, where the kernel leaves one, that the allowed neighbour still works.
"""

import os
import ctypes
import struct

from advharness import Group, assert_denied, assert_ok, attempt
# The in-box functions below run in box/boxlib.py's namespace; importing its helpers
# here only names them for readers and linters.
from boxlib import call, ename, in_child, libc, listdir, read, sc, write  # noqa: E402

Group("kernel", "read: [~], write: [./work]; privileged kernel interfaces")


@attempt("kernel", "capabilities", "read /proc/self/status: no capability in any set, NoNewPrivs, seccomp on")
def capabilities(c):
    return {"status": read("/proc/self/status", 65536)}


@capabilities.check
def _(r, run):
    fields = dict(line.split(":", 1) for line in r["status"]["data"].splitlines() if ":" in line)
    for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(fields[k], 16) == 0, "%s = %s" % (k, fields[k].strip())
    assert fields["NoNewPrivs"].strip() == "1"


@attempt("kernel", "mount-tmpfs-and-bind", "mount a tmpfs over ~/.ssh, bind the home elsewhere, remount the "
         "root read-write")
def mount_tmpfs(c):
    return {"tmpfs": sc("mount", "none", c.home + "/.ssh", "tmpfs", 0, 0),
            "bind": sc("mount", c.home, c.work, 0, 4096, 0),
            "remount": sc("mount", "none", "/", 0, 32 | 4096, 0),  # MS_REMOUNT|MS_BIND
            "fsopen": sc("fsopen", "tmpfs", 0), "open_tree": sc("open_tree", -100, c.home, 1 | 0x80000),
            "tmp_write": write("/tmp/allowed", "x")}


@mount_tmpfs.check
def _(r, run):
    for k in ("tmpfs", "bind", "remount", "fsopen", "open_tree"):
        assert_denied(r[k], what=k)
    assert_ok(r["tmp_write"], "writing the box's own /tmp")


@attempt("kernel", "pivot-root-chroot", "pivot_root and chroot (plain, and the chroot-then-chdir('..') escape "
         "inside a new user namespace)")
def pivot_chroot(c):
    def go():
        out = {"unshare": sc("unshare", 0x10000000 | 0x00020000)}
        try:
            with open("/proc/self/uid_map", "w") as f:
                f.write("0 0 1")
        except OSError as e:
            out["map"] = ename(e.errno)
        out["chroot"] = sc("chroot", c.work)
        if out["chroot"]["ok"]:
            for _ in range(20):
                os.chdir("..")
            out["chroot2"] = sc("chroot", ".")
        out["key"] = read(c.home + "/.ssh/id_ed25519")
        out["root"] = listdir("/")
        return out
    return {"pivot": sc("pivot_root", c.work, c.work), "chroot": sc("chroot", c.work), "child": in_child(go)}


@pivot_chroot.check
def _(r, run):
    assert_denied(r["pivot"], what="pivot_root")
    assert_denied(r["chroot"], what="chroot without CAP_SYS_CHROOT")
    key = r["child"].get("key", {})
    assert not key.get("ok") or key.get("data") == "", key
    root = r["child"].get("root", {}).get("value", [])
    assert "home" not in root and "root" not in root and "var" not in root, "host root reached: %s" % root


@attempt("kernel", "setns-host", "setns() into every namespace file reachable in /proc (only the box's own are)")
def setns_host(c):
    out = {}
    for pid in [p for p in os.listdir("/proc") if p.isdigit()] + [str(c.host_pid), str(c.canary)]:
        for ns in ("mnt", "pid", "net", "user", "cgroup"):
            try:
                fd = os.open("/proc/%s/ns/%s" % (pid, ns), os.O_RDONLY)
            except OSError as e:
                out["%s/%s" % (pid, ns)] = {"ok": False, "errno": ename(e.errno)}
                continue
            out["%s/%s" % (pid, ns)] = sc("setns", fd, 0)
            os.close(fd)
    return out


@setns_host.check
def _(r, run):
    host = [k for k in r if k.split("/")[0] in (str(run.world.session.bait.canary.pid), str(os.getpid()))]
    assert host, r
    for k in host:
        assert_denied(r[k], "ENOENT", what="a host process's namespace %s" % k)


@attempt("kernel", "ptrace-kill-host", "ptrace(ATTACH), kill(SIGKILL), pidfd_open and process_vm_readv on the "
         "host's pytest and canary pids, and kill(-1)")
def ptrace_kill(c):
    out = {}
    for name, pid in (("host", c.host_pid), ("canary", c.canary)):
        out[name + "_ptrace"] = sc("ptrace", 16, pid, 0, 0)  # PTRACE_ATTACH
        out[name + "_kill"] = call(os.kill, pid, 9)
        out[name + "_pidfd"] = sc("pidfd_open", pid, 0)
        data = ctypes.create_string_buffer(8)
        iov = ctypes.create_string_buffer(struct.pack("QQ", ctypes.addressof(data), 8))
        out[name + "_vm"] = sc("process_vm_readv", pid, iov, 1, iov, 1, 0)
    out["kill_all"] = call(os.kill, -1, 0)
    out["self"] = call(os.kill, os.getpid(), 0)
    return out


@ptrace_kill.check
def _(r, run):
    for name in ("host", "canary"):
        for k in ("ptrace", "kill", "pidfd", "vm"):
            assert_denied(r["%s_%s" % (name, k)], what="%s on the %s pid" % (k, name))
    assert_ok(r["self"], "signalling itself")


@ptrace_kill.host
def _(run):
    assert run.world.session.bait.canary_alive(), "the host canary was killed"


@attempt("kernel", "proc-sys-writes", "write /proc/sys/kernel/core_pattern, modprobe, hostname, "
         "/proc/sysrq-trigger, /proc/sys/vm/drop_caches (the classic escapes)")
def proc_sys_writes(c):
    out = {}
    for p in ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe", "/proc/sys/kernel/hostname",
              "/proc/sysrq-trigger", "/proc/sys/vm/drop_caches", "/proc/sys/kernel/yama/ptrace_scope"):
        out[p] = write(p, "|/tmp/pwn\n" if "core" in p else "1\n")
    out["read_allowed"] = read("/proc/self/status")
    return out


@proc_sys_writes.check
def _(r, run):
    for k, v in r.items():
        if k != "read_allowed":
            assert_denied(v, what=k)
    assert_ok(r["read_allowed"], "reading /proc/self/status")


@proc_sys_writes.host
def _(run):
    with open("/proc/sys/kernel/core_pattern") as f:
        assert "/tmp/pwn" not in f.read(), "the host's core_pattern was rewritten"


@attempt("kernel", "sys-and-cgroup", "write /sys (uevent_helper, cgroup release_agent, cgroup.procs), mount a "
         "cgroup v1 hierarchy for a release_agent")
def sys_cgroup(c):
    out = {"uevent": write("/sys/kernel/uevent_helper", "/tmp/pwn"),
           "mount_cgroup": sc("mount", "cgroup", "/tmp", "cgroup", 0, "memory")}
    for root in ("/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified"):
        out[root + "/release_agent"] = write(root + "/release_agent", "/tmp/pwn")
        out[root + "/cgroup.procs"] = write(root + "/cgroup.procs", "1")
    return out


@sys_cgroup.check
def _(r, run):
    for k, v in r.items():
        assert_denied(v, what=k)


@attempt("kernel", "devices", "mknod the host's disk (block 254:0, 8:0) and /dev/mem, open /dev/kmsg, "
         "/dev/mem, /dev/vda, /dev/console; /dev/null stays usable")
def devices(c):
    out = {}
    for name, major, minor in (("vda", 254, 0), ("sda", 8, 0), ("mem", 1, 1), ("kmsg", 1, 11)):
        out["mknod_" + name] = call(os.mknod, c.work + "/dev-" + name,
                                    (0o060000 if name in ("vda", "sda") else 0o020000) | 0o600,
                                    os.makedev(major, minor))
        if out["mknod_" + name]["ok"]:
            out["read_" + name] = read(c.work + "/dev-" + name, 512)
    for p in ("/dev/kmsg", "/dev/mem", "/dev/vda", "/dev/sda", "/dev/console", "/dev/port", "/dev/kvm"):
        out[p] = call(lambda p=p: os.close(os.open(p, os.O_RDONLY)) or "opened")
    out["null"] = write("/dev/null", "x")
    return out


@devices.check
def _(r, run):
    for k, v in r.items():
        if k.startswith("mknod_"):
            assert_denied(v, what=k)
        elif k.startswith("/dev/"):
            assert_denied(v, what="opening %s" % k)
    assert_ok(r["null"], "writing /dev/null")


@devices.host
def _(run):
    for name in ("vda", "sda", "mem", "kmsg"):
        assert not os.path.lexists(os.path.join(run.world.work, "dev-" + name)), "device node dev-%s made" % name


@attempt("kernel", "keyring", "find and read a key the host put in root's user keyring (request_key, keyctl "
         "search of @u, @us, @s)")
def keyring(c):
    out = {}
    for name, kr in (("user", -4), ("user-session", -5), ("session", -3)):
        out[name] = sc("keyctl", 10, kr, "user", c.key_desc, 0)  # KEYCTL_SEARCH
    out["request"] = sc("request_key", "user", c.key_desc, 0, 0)
    buf = ctypes.create_string_buffer(256)
    for k in list(out):
        if out[k]["ok"]:
            n = libc.syscall(250, 11, out[k]["ret"], buf, 256)  # KEYCTL_READ
            out[k]["data"] = buf.raw[:max(n, 0)].decode("utf-8", "replace")
    out["own"] = sc("add_key", "user", "box-own-key", "x", 1, -3)
    return out


@keyring.check
def _(r, run):
    for k in ("user", "user-session", "session", "request"):
        assert r[k].get("data", "") == "", "the host's key was read through %s: %r" % (k, r[k])


@attempt("kernel", "bpf-perf-uffd", "bpf(BPF_MAP_CREATE / PROG_LOAD), a CPU-wide perf_event_open, userfaultfd "
         "for kernel faults, io_uring_setup")
def bpf_perf(c):
    attr = ctypes.create_string_buffer(struct.pack("IIII", 2, 4, 4, 1) + b"\0" * 112)  # ARRAY map
    pattr = ctypes.create_string_buffer(struct.pack("II", 1, 128) + b"\0" * 120)  # SOFTWARE, size
    params = ctypes.create_string_buffer(120)
    out = {"bpf_map": sc("bpf", 0, attr, 128),
           "perf_cpu": sc("perf_event_open", pattr, -1, 0, -1, 0),
           "userfaultfd": sc("userfaultfd", 0),
           "io_uring": sc("io_uring_setup", 4, params)}
    return out


@bpf_perf.check
def _(r, run):
    assert_denied(r["bpf_map"], "EPERM", what="bpf map create")
    assert_denied(r["perf_cpu"], what="CPU-wide perf_event_open")
    assert_denied(r["userfaultfd"], what="userfaultfd for kernel faults")


@attempt("kernel", "modules-reboot-clock", "init_module, finit_module, delete_module, kexec_load, reboot, "
         "swapon, iopl, ioperm, clock_settime, sethostname")
def modules_reboot(c):
    ts = ctypes.create_string_buffer(16)
    fd = os.open("/dev/null", os.O_RDONLY)
    return {"init_module": sc("init_module", 0, 0, ""), "finit_module": sc("finit_module", fd, "", 0),
            "delete_module": sc("delete_module", "ext4", 0), "kexec": sc("kexec_load", 0, 0, 0, 0),
            "reboot": sc("reboot", 0xfee1dead, 672274793, 0x4321fedc, 0),  # POWER_OFF
            "swapon": sc("swapon", c.work, 0), "iopl": sc("iopl", 3), "ioperm": sc("ioperm", 0, 1024, 1),
            "clock": sc("clock_settime", 0, ts), "hostname": sc("sethostname", "pwned", 5)}


@modules_reboot.check
def _(r, run):
    for k, v in r.items():
        assert_denied(v, what=k)


@modules_reboot.host
def _(run):
    assert os.uname().nodename != "pwned"


@attempt("kernel", "uid-change", "setuid/setgid to other users, setgroups, write /proc/self/uid_map")
def uid_change(c):
    return {"setuid": call(os.setuid, 1000), "setresuid": call(os.setresuid, 1000, 1000, 1000),
            "setgid": call(os.setgid, 1000), "setgroups": call(os.setgroups, [0, 27]),
            "uid_map": write("/proc/self/uid_map", "0 1000 1\n"), "uid": os.getuid()}


@uid_change.check
def _(r, run):
    for k in ("setuid", "setresuid", "setgid", "setgroups", "uid_map"):
        assert_denied(r[k], what=k)


@attempt("kernel", "proc-exe-overwrite", "open /proc/self/exe and /proc/1/exe for writing (the runc "
         "CVE-2019-5736 shape) and write the interpreter binary")
def proc_exe(c):
    out = {}
    for p in ("/proc/self/exe", "/proc/1/exe", "/usr/bin/python3"):
        out[p] = call(lambda p=p: os.close(os.open(p, os.O_WRONLY)) or "opened")
    return out


@proc_exe.check
def _(r, run):
    for k, v in r.items():
        assert_denied(v, what="opening %s for writing" % k)


@attempt("kernel", "system-dirs", "write /etc/passwd, /usr/bin/evil, /bin/sh, /lib64; create /root, /home, "
         "/var/run/docker.sock; list what / holds")
def system_dirs(c):
    out = {}
    for p in ("/etc/passwd", "/usr/bin/evil", "/bin/sh", "/lib64/evil.so", "/root/x", "/evil",
              "/etc/ld.so.preload"):
        out[p] = write(p, "pwned\n", "a")
    out["root"] = listdir("/")
    out["shadow"] = read("/etc/shadow")
    out["passwd"] = read("/etc/passwd")
    return out


@system_dirs.check
def _(r, run):
    for p in ("/etc/passwd", "/usr/bin/evil", "/bin/sh", "/lib64/evil.so", "/root/x", "/evil",
              "/etc/ld.so.preload"):
        assert_denied(r[p], what="writing %s" % p)
    assert_denied(r["shadow"], what="reading /etc/shadow")
    assert_denied(r["passwd"], what="reading /etc/passwd (not bound)")
    assert "usr" in r["root"]["value"], r["root"]


@system_dirs.host
def _(run):
    assert not os.path.lexists("/usr/bin/evil") and not os.path.lexists("/evil")
    assert not os.path.lexists("/etc/ld.so.preload") or "pwned" not in open("/etc/ld.so.preload").read()
