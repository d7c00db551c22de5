# SPDX-License-Identifier: Apache-2.0
"""The container's filesystem: root, config mounts, masks, devices."""

import os
import shutil

import pytest

from harness import expect_create_failure, host_mounts, mounts_under, parse_steps, run_cmd, umount_lazy


def mounts_by_target(mounts):
    """target -> the top-most mount entry there."""
    out = {}
    for m in mounts:
        out[m["target"]] = m
    return out


def opts(m):
    return set(m["options"].split(","))


@pytest.fixture
def hostdir(test_dir):
    """A host directory to bind into containers; submounts made by the test
    are removed at teardown."""
    d = os.path.join(test_dir, "hostdata")
    os.makedirs(d)
    with open(os.path.join(d, "file"), "w") as f:
        f.write("hello from the host\n")
    yield d
    for m in sorted(mounts_under(d), key=len, reverse=True):
        umount_lazy(m)


def test_default_mounts(rt, bundle):
    b = bundle()
    mounts = rt.run_probe(b, "mounts").json()
    by = mounts_by_target(mounts)
    for target, fstype in [("/proc", "proc"), ("/dev", "tmpfs"), ("/dev/pts", "devpts"), ("/dev/shm", "tmpfs"),
                           ("/dev/mqueue", "mqueue"), ("/sys", "sysfs")]:
        assert target in by, "%s not mounted: %s" % (target, sorted(by))
        assert by[target]["fstype"] == fstype, by[target]
    assert "/" in by and "ro" in opts(by["/"]), "readonly root not mounted ro: %s" % by.get("/")
    assert "ro" in opts(by["/sys"])
    assert {"nosuid", "nodev", "noexec"} <= opts(by["/dev/shm"])
    assert {"nosuid", "noexec"} <= opts(by["/dev/pts"])
    # nothing of the host's tree or of the bundle path is visible
    for m in mounts:
        assert b.path not in m["target"] and not m["target"].startswith("/work"), m


def test_readonly_root(rt, bundle):
    b = bundle()
    steps = rt.run_script(b, ["write", "/newfile"], ["write", "/tmp/newfile"], ["write", "/dev/shm/newfile"])
    assert [s.line for s in steps] == ["EROFS", "EROFS", "OK"]
    assert not os.path.exists(os.path.join(b.rootfs, "newfile"))


def test_writable_root(rt, bundle):
    b = bundle()
    b.config["root"]["readonly"] = False
    steps = rt.run_script(b, ["write", "/newfile", "written inside"], ["mounts"])
    assert steps[0].line == "OK"
    assert "rw" in opts(mounts_by_target(steps[1].json())["/"])
    with open(os.path.join(b.rootfs, "newfile")) as f:
        assert f.read() == "written inside"


@pytest.mark.parametrize("pivot", ["pivot_root", "no-pivot"])
def test_host_filesystem_unreachable(rt, bundle, pivot):
    b = bundle()
    secret = os.path.join(b.path, "host-only-file")
    with open(secret, "w") as f:
        f.write("secret")
    b.script(["read", secret], ["read", "/bin/bento-probe"], ["read", "/work/main/Makefile"], ["mounts"])
    opts_ = ["--no-pivot"] if pivot == "no-pivot" else []
    res = rt.run(b, None, *opts_)
    assert res.rc == 0, res
    steps = parse_steps(["read"] * 3 + ["mounts"], res.out)
    assert steps[0].json() == {"ok": False, "errno": "ENOENT"}
    assert steps[1].json()["ok"] is True
    assert steps[2].json()["ok"] is False
    assert "/" in mounts_by_target(steps[3].json())


def test_bind_mount_readonly(rt, bundle, hostdir):
    b = bundle()
    b.add_mount("/data", "bind", hostdir, ["bind", "ro"])
    steps = rt.run_script(b, ["read", "/data/file"], ["write", "/data/new"], ["mounts"])
    assert steps[0].json()["data"] == "hello from the host\n"
    assert steps[1].line == "EROFS"
    assert "ro" in opts(mounts_by_target(steps[2].json())["/data"])
    assert not os.path.exists(os.path.join(hostdir, "new"))


def test_bind_mount_writable(rt, bundle, hostdir):
    b = bundle()
    b.add_mount("/data", "bind", hostdir, ["bind"])
    steps = rt.run_script(b, ["write", "/data/new", "from the container"])
    assert steps[0].line == "OK"
    with open(os.path.join(hostdir, "new")) as f:
        assert f.read() == "from the container"


def test_bind_mount_flags(rt, bundle, hostdir):
    shutil.copy2("/bin/busybox", os.path.join(hostdir, "true"))
    b = bundle()
    b.add_mount("/strict", "bind", hostdir, ["bind", "nosuid", "nodev", "noexec"])
    b.add_mount("/plain", "bind", hostdir, ["bind"])
    steps = rt.run_script(b, ["mounts"], ["exec", "/strict/true"], ["exec", "/plain/true"])
    by = mounts_by_target(steps[0].json())
    assert {"nosuid", "nodev", "noexec"} <= opts(by["/strict"]), by["/strict"]
    assert "noexec" not in opts(by["/plain"]), by["/plain"]
    assert (steps[1].line, steps[1].rc) == ("EACCES", 1), steps[1]
    assert (steps[2].line, steps[2].rc) == ("", 0), steps[2]


def test_bind_versus_rbind(rt, bundle, hostdir):
    sub = os.path.join(hostdir, "sub")
    os.makedirs(sub)
    res = run_cmd(["mount", "-t", "tmpfs", "-o", "size=64k", "bento-sub", sub], timeout=10)
    assert res.rc == 0, res
    with open(os.path.join(sub, "inner"), "w") as f:
        f.write("inner")
    b = bundle()
    b.add_mount("/flat", "bind", hostdir, ["bind"])
    b.add_mount("/deep", "bind", hostdir, ["rbind"])
    steps = rt.run_script(b, ["ls", "/flat/sub"], ["ls", "/deep/sub"], ["read", "/deep/sub/inner"])
    assert steps[0].json()["entries"] == [], "bind (not rbind) must not carry submounts"
    assert steps[1].json()["entries"] == ["inner"]
    assert steps[2].json()["data"] == "inner"


def test_tmpfs_mount_with_options(rt, bundle):
    b = bundle()
    b.add_mount("/scratch", "tmpfs", "tmpfs", ["nosuid", "nodev", "mode=1770", "size=1m"])
    steps = rt.run_script(b, ["stat", "/scratch"], ["write", "/scratch/f"], ["mounts"])
    st = steps[0].json()
    assert st["type"] == "dir" and st["mode"] == 0o1770, st
    assert steps[1].line == "OK"
    m = mounts_by_target(steps[2].json())["/scratch"]
    assert m["fstype"] == "tmpfs" and {"nosuid", "nodev"} <= opts(m)
    assert "size=1024k" in m["super"], m


def test_missing_destination_is_created(rt, bundle):
    b = bundle()
    b.add_mount("/made/by/runtime", "tmpfs", "tmpfs", ["size=64k"])
    mounts = rt.run_probe(b, "mounts").json()
    assert "/made/by/runtime" in mounts_by_target(mounts)
    assert os.path.isdir(os.path.join(b.rootfs, "made", "by", "runtime"))


def test_bind_single_file_and_bundle_relative_source(rt, bundle):
    b = bundle()
    os.makedirs(os.path.join(b.path, "data"))
    with open(os.path.join(b.path, "data", "greeting"), "w") as f:
        f.write("relative source\n")
    b.add_mount("/etc/greeting", "bind", "data/greeting", ["bind", "ro"])
    steps = rt.run_script(b, ["read", "/etc/greeting"], ["stat", "/etc/greeting"])
    assert steps[0].json()["data"] == "relative source\n"
    assert steps[1].json()["type"] == "reg"


@pytest.mark.parametrize("link", ["/etc", "../../../../etc"])
@pytest.mark.parametrize("through", ["below", "onto"])
def test_destination_through_symlink_stays_inside(rt, bundle, link, through):
    name = "bento-escape-%s" % os.urandom(3).hex()
    host_target = os.path.join("/etc", name)
    b = bundle()
    os.symlink(link, os.path.join(b.rootfs, "escape"))
    if through == "below":
        dest, inside = "/escape/%s" % name, "/etc/%s" % name
    else:
        dest, inside = "/escape", "/etc"
    b.add_mount(dest, "tmpfs", "tmpfs", ["size=64k"])
    b.script(["mounts"], ["read", "/etc/passwd"])
    try:
        res = rt.run(b)
        assert res.rc == 0, res
        steps = parse_steps(["mounts", "read"], res.out)
        by = mounts_by_target(steps[0].json())
        assert inside in by and by[inside]["fstype"] == "tmpfs", sorted(by)
        if through == "below":
            assert os.path.isdir(os.path.join(b.rootfs, "etc", name)), "target not created inside the rootfs"
    finally:
        escaped = os.path.exists(host_target)
        host_hit = [m for m in host_mounts() if m == "/etc" or m.startswith("/etc/")]
        for m in host_hit:
            umount_lazy(m)
        if escaped:
            os.rmdir(host_target)
    assert not escaped, "the runtime created %s on the host" % host_target
    assert not host_hit, "the runtime mounted on the host's /etc: %s" % host_hit
    with open("/etc/passwd") as f:
        assert "root:" in f.read()


@pytest.mark.parametrize("case", ["file-onto-link", "file-below-link", "readonly-path-link"])
def test_a_link_to_the_host_is_not_followed_out_of_the_rootfs(rt, bundle, test_dir, case):
    """Each of these asks the runtime to act on a name the rootfs makes a symlink to a host
    path: a file bound onto a link to a host file, a file whose mount point must be made
    below a link to a host directory (the mount point is made with O_CREAT|O_EXCL and
    mounted on through that same descriptor), and a readonlyPaths entry that is a link
    to a host directory (made read-only with mount_setattr).  Whatever happens inside,
    the host's file keeps its content, nothing appears in the host's directory, and no
    mount or read-only flag lands on the host."""
    host = os.path.join(test_dir, "host-%s" % case)
    os.makedirs(host)
    victim = os.path.join(host, "victim")
    with open(victim, "w") as f:
        f.write("host content\n")
    b = bundle()
    with open(os.path.join(b.path, "payload"), "w") as f:
        f.write("from the bundle\n")
    if case == "file-onto-link":
        os.symlink(victim, os.path.join(b.rootfs, "target"))
        b.add_mount("/target", "bind", "payload", ["bind", "ro"])
    elif case == "file-below-link":
        os.symlink(host, os.path.join(b.rootfs, "escape"))
        b.add_mount("/escape/made", "bind", "payload", ["bind", "ro"])
    else:
        os.symlink(host, os.path.join(b.rootfs, "ro-link"))
        b.linux.setdefault("readonlyPaths", []).append("/ro-link")
    b.script(["read", "/proc/self/mounts"])
    try:
        res = rt.run(b)
    finally:
        leaked = [m for m in host_mounts() if m == host or m.startswith(host + "/") or m == victim]
        for m in leaked:
            umount_lazy(m)
    assert not leaked, "a mount landed on the host: %s" % leaked
    with open(victim) as f:
        assert f.read() == "host content\n", "the host's file was bound over or written"
    assert sorted(os.listdir(host)) == ["victim"], "the runtime made something in the host's directory"
    if case == "file-below-link":
        # the link was resolved inside the rootfs, where the point was made
        assert res.rc == 0, res
        assert os.path.isfile(os.path.join(b.rootfs, host.lstrip("/"), "made")), res
    probe = os.path.join(host, "still-writable")
    with open(probe, "w") as f:
        f.write("x")
    os.unlink(probe)


def test_masked_paths(rt, bundle):
    # (this kernel has no /proc/kcore or /proc/sysrq-trigger: the masks
    # asserted here are the podman entries that exist on the CI machine)
    b = bundle()
    steps = rt.run_script(b, ["read", "/proc/timer_list"], ["read", "/proc/keys"], ["ls", "/sys/firmware"],
                          ["ls", "/proc/acpi"], ["write", "/sys/firmware/planted"], ["read", "/proc/uptime"],
                          ["mounts"])
    assert steps[0].json() == {"ok": True, "size": 0, "data": ""}
    assert steps[1].json() == {"ok": True, "size": 0, "data": ""}
    assert steps[2].json() == {"ok": True, "entries": []}
    assert steps[3].json() == {"ok": True, "entries": []}
    assert steps[4].line == "EROFS", "a masked directory must not be writable"
    assert steps[5].json()["size"] > 0, "an unmasked proc file must keep its content"
    # masks are read-only mounts (a write to a masked *file* still succeeds:
    # it is /dev/null, and a read-only mount does not stop writes to devices)
    by = mounts_by_target(steps[6].json())
    for p in ("/proc/timer_list", "/proc/keys", "/sys/firmware", "/proc/acpi"):
        assert p in by and "ro" in opts(by[p]), (p, by.get(p))

    b2 = bundle()
    b2.linux["maskedPaths"] = []
    steps = rt.run_script(b2, ["ls", "/sys/firmware"], ["read", "/proc/timer_list"])
    assert steps[0].json()["entries"] == sorted(os.listdir("/sys/firmware"))
    assert steps[1].json()["size"] > 0


def test_readonly_paths(rt, bundle):
    with open("/proc/sys/kernel/hostname") as f:
        hostname = f.read()
    b = bundle()
    steps = rt.run_script(b, ["write", "/proc/sys/kernel/hostname", "changed"], ["hostname"], ["mounts"])
    assert steps[0].line == "EROFS"
    assert steps[1].json()["hostname"] == "bento-test"
    by = mounts_by_target(steps[2].json())
    for p in ("/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys"):
        assert p in by and "ro" in opts(by[p]), (p, by.get(p))
    assert "ro" not in opts(by["/proc"]), "only the listed paths are read-only"

    b2 = bundle()
    b2.linux["readonlyPaths"] = []
    steps = rt.run_script(b2, ["write", "/proc/sys/kernel/hostname", "changed"], ["hostname"])
    assert steps[0].line == "OK"
    assert steps[1].json()["hostname"] == "changed"
    with open("/proc/sys/kernel/hostname") as f:
        assert f.read() == hostname


@pytest.mark.parametrize("propagation,marker", [("shared", "shared:"), ("private", None),
                                                ("unbindable", "unbindable")])
def test_rootfs_propagation(rt, bundle, propagation, marker):
    b = bundle()
    b.linux["rootfsPropagation"] = propagation
    root = mounts_by_target(rt.run_probe(b, "mounts").json())["/"]
    if marker:
        assert marker in root["optional"], root
    else:
        assert root["optional"] == "", root


def test_devpts_is_a_new_instance(rt, bundle):
    b = bundle()
    steps = rt.run_script(b, ["stat", "/dev/pts"], ["ls", "/dev/pts"], ["stat", "/dev/ptmx"])
    host = os.stat("/dev/pts")
    st = steps[0].json()
    assert (st["dev_major"], st["dev_minor"]) != (os.major(host.st_dev), os.minor(host.st_dev))
    assert steps[1].json()["entries"] == ["ptmx"], "a new devpts instance holds no host terminals"
    ptmx = steps[2].json()
    assert ptmx.get("target") in ("pts/ptmx", "/dev/pts/ptmx") or \
        (ptmx["type"] == "chr" and (ptmx["rdev_major"], ptmx["rdev_minor"]) == (5, 2)), ptmx


def test_sysfs_readonly(rt, bundle):
    b = bundle()
    steps = rt.run_script(b, ["write", "/sys/class/net/lo/mtu", "1500"])
    assert steps[0].line == "EROFS"
    b2 = bundle()
    for m in b2.config["mounts"]:
        if m["destination"] == "/sys":
            m["options"] = ["nosuid", "noexec", "nodev"]
    steps = rt.run_script(b2, ["write", "/sys/class/net/lo/mtu", "1500"])
    assert steps[0].line != "EROFS", "sysfs mounted without ro must not be read-only"


def test_cgroup_mount_readonly(rt, bundle):
    b = bundle()
    b.add_mount("/sys/fs/cgroup", "cgroup", "cgroup", ["nosuid", "noexec", "nodev", "relatime", "ro"])
    steps = rt.run_script(b, ["mounts"], ["ls", "/sys/fs/cgroup"])
    cg = [m for m in steps[0].json() if m["target"].startswith("/sys/fs/cgroup/") or m["target"] == "/sys/fs/cgroup"]
    hier = [m for m in cg if m["fstype"] in ("cgroup", "cgroup2")]
    assert hier, "no cgroup filesystem under /sys/fs/cgroup: %s" % cg
    assert all("ro" in opts(m) for m in hier), hier
    assert steps[1].json()["entries"], "empty /sys/fs/cgroup"
    target = hier[0]["target"]
    steps = rt.run_script(b, ["write", target + "/cgroup.procs", "1"])
    assert steps[0].line == "EROFS"


DEVICES = {"/dev/null": (1, 3), "/dev/zero": (1, 5), "/dev/full": (1, 7), "/dev/random": (1, 8),
           "/dev/urandom": (1, 9), "/dev/tty": (5, 0)}


def test_default_devices(rt, bundle):
    b = bundle()
    cmds = [["stat", d] for d in DEVICES] + [["stat", "/dev/fd"], ["stat", "/dev/stdin"], ["stat", "/dev/stdout"],
                                             ["stat", "/dev/stderr"], ["write", "/dev/null"], ["write", "/dev/full"],
                                             ["stat", "/dev/kmsg"], ["mknod", "/dev/extra", "c", "1", "3"]]
    steps = rt.run_script(b, *cmds)
    for dev, step in zip(DEVICES, steps):
        st = step.json()
        assert st["ok"] and st["type"] == "chr", (dev, st)
        assert (st["rdev_major"], st["rdev_minor"]) == DEVICES[dev], (dev, st)
        assert st["mode"] & 0o666 == 0o666, (dev, oct(st["mode"]))
    n = len(DEVICES)
    assert steps[n].json()["target"] == "/proc/self/fd"
    assert [steps[n + i].json()["target"] for i in (1, 2, 3)] == ["/proc/self/fd/0", "/proc/self/fd/1",
                                                                   "/proc/self/fd/2"]
    assert steps[n + 4].line == "OK"
    assert steps[n + 5].line == "ENOSPC"
    assert steps[n + 6].json() == {"ok": False, "errno": "ENOENT"}, "host device leaked into /dev"
    assert steps[n + 7].line == "EPERM", "mknod without CAP_MKNOD must fail"


def test_linux_devices_created(rt, bundle):
    b = bundle()
    b.linux["devices"] = [
        {"path": "/dev/bento-null", "type": "c", "major": 1, "minor": 3, "fileMode": 0o640, "uid": 0, "gid": 0},
        {"path": "/dev/sub/bento-zero", "type": "c", "major": 1, "minor": 5, "fileMode": 0o600, "uid": 1000,
         "gid": 1000},
    ]
    steps = rt.run_script(b, ["stat", "/dev/bento-null"], ["stat", "/dev/sub/bento-zero"], ["write", "/dev/bento-null"])
    a, z = steps[0].json(), steps[1].json()
    assert (a["type"], a["rdev_major"], a["rdev_minor"], a["mode"]) == ("chr", 1, 3, 0o640), a
    assert (z["type"], z["rdev_major"], z["rdev_minor"], z["mode"], z["uid"], z["gid"]) == \
        ("chr", 1, 5, 0o600, 1000, 1000), z
    assert steps[2].line == "OK"
    assert not os.path.exists(os.path.join(b.rootfs, "dev", "bento-null")), "device made in the rootfs, not /dev"


def test_bad_device_type_rejected(rt, bundle):
    b = bundle()
    b.linux["devices"] = [{"path": "/dev/bad", "type": "x", "major": 1, "minor": 3}]
    expect_create_failure(rt, b, message="linux.devices[0]")


def test_failing_mount_leaves_nothing(rt, bundle, test_dir):
    b = bundle()
    b.add_mount("/data", "bind", os.path.join(test_dir, "does-not-exist"), ["bind"])
    expect_create_failure(rt, b, message="mounts[6]")
