# SPDX-License-Identifier: Apache-2.0
"""The mount namespace and bind sources (issue 15): a config without a
mount namespace of its own, joining one by path, idmapped bind mounts
(mounts[].uidMappings/gidMappings), and bind sources opened with the
runtime's credentials rather than the user namespace's.

Without a mount namespace of its own the container shares (or joins) one
that other processes use.  Its mounts are made there, as the specification
asks, but all beneath one private tree attached over root.path, recorded
(by mount id) before it is attached, and detached as a whole by delete.
A config that needs no mount is only chrooted.
"""

import json
import os
import subprocess

from harness import (REAPER, _forget, expect_create_failure, mounts_under, ns_inode, proc_alive, run_cmd,
                     spawn, wait_for)

USERNS_MAP = [{"containerID": 0, "hostID": 100000, "size": 65536}]


def own_mnt_ns():
    return os.stat("/proc/self/ns/mnt").st_ino


def bare(b):
    """No mount namespace, and nothing that would need one."""
    b.drop_ns("mount")
    b.config["mounts"] = []
    b.linux.pop("maskedPaths", None)
    b.linux.pop("readonlyPaths", None)
    b.config["root"]["readonly"] = False
    return b


def userns(b):
    b.set_ns("user")
    b.linux["uidMappings"] = list(USERNS_MAP)
    b.linux["gidMappings"] = list(USERNS_MAP)
    return b


# ---- no mount namespace ----

def test_without_mount_namespace_the_container_shares_the_runtimes(rt, bundle):
    b = bare(bundle())
    b.set_args("/bin/sh", "-c", "cat /etc/hostname; exec sleep 60")
    cid, pid = rt.create_ok(b)
    assert ns_inode(pid, "mnt") == own_mnt_ns()
    # chrooted into root.path, not pivoted: nothing was mounted anywhere
    assert os.readlink("/proc/%d/root" % pid) == os.path.realpath(b.rootfs)
    assert mounts_under(b.path) == []
    rt.start_ok(cid)
    wait_for(lambda: rt.container_output(cid).strip(), timeout=10, what="output")
    assert rt.container_output(cid).strip() == "rootfs-template"
    assert rt.kill(cid, "KILL").rc == 0
    rt.wait_status(cid, "stopped")


def mountinfo_of(pid):
    """[(id, parent, mount point, optional fields)] of /proc/<pid>/mountinfo."""
    out = []
    with open("/proc/%d/mountinfo" % pid) as f:
        for line in f:
            left, _, _ = line.partition(" - ")
            fields = left.split()
            out.append((int(fields[0]), int(fields[1]), fields[4].replace("\\040", " "), fields[6:]))
    return out


def under(entries, path):
    path = os.path.realpath(path).rstrip("/")
    return [e for e in entries if e[2] == path or e[2].startswith(path + "/")]


def recorded_root(rt, cid):
    with open(os.path.join(rt.state_dir(cid), "state.json")) as f:
        return json.load(f)["applied"]["sharedRoot"]


def test_without_mount_namespace_mounts_are_made_beneath_one_tree(rt, bundle):
    """The default config's mounts (/proc, /dev, /sys, ...) and masked
    paths in the runtime's own namespace: all under root.path, the tree
    private, recorded by id, and gone after delete."""
    b = bundle()
    b.drop_ns("mount")
    b.linux["maskedPaths"] = ["/proc/version"]
    b.set_args("/bin/sh", "-c", "cat /proc/self/stat >/dev/null && echo procfs-seen; "
               "wc -c < /proc/version; exec sleep 60")
    cid, pid = rt.create_ok(b)
    assert ns_inode(pid, "mnt") == own_mnt_ns()
    ours = under(mountinfo_of(os.getpid()), b.rootfs)
    assert ours, "no mount under %s in the shared namespace" % b.rootfs
    tree = [e for e in ours if e[2] == os.path.realpath(b.rootfs)]
    assert len(tree) == 1, ours
    rec = recorded_root(rt, cid)
    assert rec["mountId"] == tree[0][0], (rec, tree)
    assert rec["mountNamespace"] == own_mnt_ns()
    assert rec["rootfs"] == os.path.realpath(b.rootfs)
    # private: nothing below root.path propagates to another namespace
    assert not any(o.startswith("shared:") for e in ours for o in e[3]), ours
    # every other mount of the container hangs below the tree
    assert {e[2] for e in ours} >= {os.path.realpath(b.rootfs) + d for d in ("/proc", "/dev", "/sys")}, ours
    rt.start_ok(cid)
    wait_for(lambda: rt.container_output(cid).count("\n") >= 2, timeout=10, what="output")
    lines = rt.container_output(cid).split()
    assert lines == ["procfs-seen", "0"], lines  # /proc/version masked by /dev/null
    assert rt.kill(cid, "KILL").rc == 0
    rt.wait_status(cid, "stopped")
    assert rt.delete(cid).rc == 0
    assert under(mountinfo_of(os.getpid()), b.rootfs) == []
    assert mounts_under(b.path) == []


def test_every_namespace_inherited_still_gets_the_default_mounts(rt, bundle):
    """A config that lists no namespace at all (so no host name either)
    inherits each of the runtime's namespaces, pid and ipc included, and
    its default mounts are still made: a procfs that sees the runtime's
    processes, /dev/pts, /dev/mqueue, a read-only root.  delete leaves
    nothing mounted under the bundle in the namespace the runtime runs in."""
    b = bundle()
    b.linux["namespaces"] = []
    b.config.pop("hostname", None)
    b.set_args("/bin/sh", "-c", "test -d /proc/%d && echo host-pids; "
               "test -d /dev/pts && test -d /dev/mqueue && echo devices; "
               "touch /probe-write 2>/dev/null || echo root-ro; exec sleep 60" % os.getpid())
    cid, pid = rt.create_ok(b)
    for kind in ("cgroup", "ipc", "mnt", "net", "pid", "user", "uts"):
        assert ns_inode(pid, kind) == ns_inode(os.getpid(), kind), kind
    points = {e[2] for e in under(mountinfo_of(os.getpid()), b.rootfs)}
    root = os.path.realpath(b.rootfs)
    assert points >= {root + d for d in ("", "/proc", "/dev", "/dev/pts", "/dev/mqueue", "/sys")}, points
    rt.start_ok(cid)
    wait_for(lambda: rt.container_output(cid).count("\n") >= 3, timeout=10, what="output")
    assert rt.container_output(cid).split() == ["host-pids", "devices", "root-ro"]
    assert rt.kill(cid, "KILL").rc == 0
    rt.wait_status(cid, "stopped")
    assert rt.delete(cid).rc == 0
    assert under(mountinfo_of(os.getpid()), b.rootfs) == []
    assert mounts_under(b.path) == []


def test_without_mount_namespace_a_failed_create_leaves_no_mount(rt, bundle):
    b = bundle()
    b.drop_ns("mount")
    b.add_mount("/mnt", "bind", "/nonexistent-bento-source", ["bind"])
    expect_create_failure(rt, b, message="/nonexistent-bento-source")
    assert mounts_under(b.path) == []


def test_without_mount_namespace_a_user_namespace_is_refused_by_name(rt, bundle):
    """A container with a user namespace of its own cannot mount in a
    namespace the host's user namespace owns: refused before anything."""
    b = userns(bundle())
    b.drop_ns("mount")
    expect_create_failure(rt, b, message=["mounts needs a mount", "user namespace of its own",
                                          '{"type": "mount"}'])
    # without anything to mount, it runs chrooted
    b2 = userns(bare(bundle()))
    b2.set_args("/bin/true")
    res = rt.run(b2)
    assert res.rc == 0, res


def stopped_shared_container(rt, bundle):
    """A created container without a mount namespace, its init killed: the
    tree is still attached and recorded."""
    b = bundle()
    b.drop_ns("mount")
    b.set_args("/bin/sleep", "60")
    cid, _ = rt.create_ok(b)
    assert rt.kill(cid, "KILL").rc == 0
    rt.wait_status(cid, "stopped")
    return b, cid


def test_without_mount_namespace_delete_refuses_a_covered_tree(rt, bundle, test_dir):
    """Something mounted over root.path after create hides the tree: delete
    says so and keeps the record; once uncovered, delete removes it."""
    b, cid = stopped_shared_container(rt, bundle)
    assert run_cmd(["mount", "-t", "tmpfs", "cover", b.rootfs]).rc == 0
    try:
        res = rt.delete(cid)
        assert res.rc != 0, res
        assert "is not what %s shows" % os.path.realpath(b.rootfs) in res.err, res
        assert os.path.exists(rt.state_dir(cid))
    finally:
        assert run_cmd(["umount", b.rootfs]).rc == 0
    assert rt.delete(cid).rc == 0
    assert mounts_under(b.path) == []


def test_without_mount_namespace_a_bundle_moved_under_a_link_unmounts_nothing_else(rt, bundle, test_dir):
    """The attacker's swap: the bundle directory (with the attached tree in
    it) is renamed away and root.path becomes a symlink to a directory with
    a mount of the host's.  delete must not unmount that mount, nor anything
    the link leads to; put back, delete removes the tree."""
    b, cid = stopped_shared_container(rt, bundle)
    moved = b.path + ".moved"
    decoy = os.path.join(test_dir, "decoy")
    os.makedirs(decoy)
    assert run_cmd(["mount", "-t", "tmpfs", "decoy", decoy]).rc == 0
    try:
        os.rename(b.path, moved)
        os.makedirs(b.path)
        os.symlink(decoy, b.rootfs)
        res = rt.delete(cid)
        assert decoy in mounts_under(test_dir), "delete unmounted the host's mount behind the link: %s" % res
        assert mounts_under(moved), "the tree went although root.path no longer led to it: %s" % res
        # refused, and the record kept for a delete once the tree is back
        assert res.rc != 0 and os.path.exists(rt.state_dir(cid)), res
    finally:
        if os.path.islink(b.rootfs):
            os.unlink(b.rootfs)
            os.rmdir(b.path)
            os.rename(moved, b.path)
        run_cmd(["umount", decoy])
    assert rt.delete(cid).rc == 0
    assert mounts_under(b.path) == []


def test_without_mount_namespace_a_forged_record_touches_no_mount(rt, bundle, test_dir):
    """The state record is hostile input: a sharedRoot naming another mount
    (here the host's /) is not unmounted, and a malformed one is an error
    that names the JSON path."""
    b, cid = stopped_shared_container(rt, bundle)
    path = os.path.join(rt.state_dir(cid), "state.json")
    with open(path) as f:
        good = json.load(f)
    real = dict(good["applied"]["sharedRoot"])
    host_root = [e for e in mountinfo_of(os.getpid()) if e[2] == "/"][-1]
    forged = json.loads(json.dumps(good))
    forged["applied"]["sharedRoot"].update({"mountId": host_root[0], "rootfs": "/"})
    forged["applied"]["sharedRoot"].pop("mountIdUnique", None)
    with open(path, "w") as f:
        json.dump(forged, f)
    before = mountinfo_of(os.getpid())
    res = rt.delete(cid)
    # "/" is a mount root with that id, but not the recorded directory
    assert res.rc != 0, res
    assert [e for e in mountinfo_of(os.getpid()) if e[2] == "/"] == [e for e in before if e[2] == "/"]
    # a rootfs spelled through a symlink that leads to the real tree: the
    # walk does not follow it, so nothing is unmounted
    link = os.path.join(test_dir, "rootfs-link")
    os.symlink(b.rootfs, link)
    forged["applied"]["sharedRoot"] = dict(real, rootfs=link)
    with open(path, "w") as f:
        json.dump(forged, f)
    res = rt.delete(cid)
    assert res.rc != 0 and "symbolic links" in res.err, res
    assert under(mountinfo_of(os.getpid()), b.rootfs) != []
    forged["applied"]["sharedRoot"] = dict(real, mountId="12")
    with open(path, "w") as f:
        json.dump(forged, f)
    res = rt.delete(cid)
    assert res.rc != 0 and "applied.sharedRoot.mountId" in res.err, res
    with open(path, "w") as f:
        json.dump(good, f)
    assert rt.delete(cid).rc == 0
    assert mounts_under(b.path) == []


# ---- joining by path ----

def test_join_the_mount_namespace_of_a_container(rt, bundle):
    a = bundle()
    a.add_mount("/tmp", "tmpfs", "tmpfs", ["mode=1777"])
    a.config["root"]["readonly"] = False
    a.set_args("/bin/sh", "-c", "echo from-a > /tmp/marker && exec sleep 60")
    cid_a, pid_a = rt.create_ok(a)
    rt.start_ok(cid_a)
    wait_for(lambda: os.path.exists("/proc/%d/root/tmp/marker" % pid_a), timeout=10, what="marker")
    a_root = os.listdir("/proc/%d/root" % pid_a)

    b = bare(bundle())
    b.set_ns("mount", "/proc/%d/ns/mnt" % pid_a)
    # root.path is looked up in the joined namespace: "/" is a's root there
    b.config["root"]["path"] = "/"
    b.set_args("/bin/cat", "/tmp/marker")
    res = rt.run(b)
    assert res.rc == 0, res
    assert rt.container_output(res.cid).strip() == "from-a"
    # a is untouched: no pivot_root moved its root
    assert proc_alive(pid_a)
    assert sorted(os.listdir("/proc/%d/root" % pid_a)) == sorted(a_root)
    assert rt.kill(cid_a, "KILL").rc == 0
    rt.wait_status(cid_a, "stopped")


def test_join_the_mount_namespace_of_a_process_leaves_its_root(rt, bundle, test_dir):
    """As runtime-tools does it (unshare --mount): the joined namespace
    shows a tmpfs only it has; the process already there keeps its root."""
    b = bare(bundle())
    shown = os.path.join(b.rootfs, "mnt")
    p = spawn(["unshare", "--mount", "--propagation", "private", "sh", "-c",
               'mount -t tmpfs x "$0" && echo only-there > "$0/file" && exec sleep 60', shown],
              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: os.path.exists("/proc/%d/root%s/file" % (p.pid, shown)), timeout=10, what="tmpfs")
        b.set_ns("mount", "/proc/%d/ns/mnt" % p.pid)
        b.set_args("/bin/sh", "-c", "cat /mnt/file; exec sleep 60")
        cid, pid = rt.create_ok(b)
        assert ns_inode(pid, "mnt") == ns_inode(p.pid, "mnt")
        rt.start_ok(cid)
        wait_for(lambda: rt.container_output(cid).strip(), timeout=10, what="output")
        assert rt.container_output(cid).strip() == "only-there"
        assert os.readlink("/proc/%d/root" % p.pid) == "/"
        assert not os.path.exists(os.path.join(shown, "file")), "the tmpfs leaked into our namespace"
        assert rt.kill(cid, "KILL").rc == 0
        rt.wait_status(cid, "stopped")
    finally:
        p.kill()
        p.wait(timeout=10)
        _forget(p)


def test_join_a_mount_namespace_by_path_mounts_there_and_delete_unmounts_there(rt, bundle):
    """The default config's mounts in a namespace joined by path (runtime-
    tools' linux_ns_path): made in that namespace only, and delete enters it
    again to detach them while its process is still there."""
    b = bundle()
    p = spawn(["unshare", "--mount", "--propagation", "private", "sleep", "60"],
              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: ns_inode(p.pid, "mnt") != own_mnt_ns(), timeout=10, what="unshare")
        b.set_ns("mount", "/proc/%d/ns/mnt" % p.pid)
        b.set_args("/bin/sh", "-c", "test -e /proc/self/stat && echo proc-there; exec sleep 60")
        cid, pid = rt.create_ok(b)
        assert ns_inode(pid, "mnt") == ns_inode(p.pid, "mnt")
        theirs = under(mountinfo_of(p.pid), b.rootfs)
        assert len(theirs) > 3, theirs
        assert under(mountinfo_of(os.getpid()), b.rootfs) == [], "the mounts showed in our namespace"
        rec = recorded_root(rt, cid)
        assert rec["mountNamespacePath"] == "/proc/%d/ns/mnt" % p.pid
        rt.start_ok(cid)
        wait_for(lambda: rt.container_output(cid).strip(), timeout=10, what="output")
        assert rt.container_output(cid).strip() == "proc-there"
        assert rt.kill(cid, "KILL").rc == 0
        rt.wait_status(cid, "stopped")
        assert rt.delete(cid).rc == 0
        assert under(mountinfo_of(p.pid), b.rootfs) == []
    finally:
        p.kill()
        p.wait(timeout=10)
        _forget(p)


def test_join_mount_namespace_path_must_be_a_mount_namespace(rt, bundle, test_dir):
    plain = os.path.join(test_dir, "not-a-namespace")
    with open(plain, "w") as f:
        f.write("x")
    b = bare(bundle())
    b.set_ns("mount", plain)
    idx = len(b.linux["namespaces"]) - 1
    expect_create_failure(rt, b, message="linux.namespaces[%d].path: '%s' is not a namespace file" % (idx, plain))
    b.set_ns("mount", "/proc/self/ns/net")
    expect_create_failure(rt, b, message="is not a mount namespace")
    # the runtime's own namespace by path is a mount namespace: it runs
    b.set_ns("mount", "/proc/%d/ns/mnt" % os.getpid())
    b.set_args("/bin/true")
    res = rt.run(b)
    assert res.rc == 0, res


# ---- idmapped bind mounts ----

def idmapped_dir(test_dir, owner):
    d = os.path.join(test_dir, "idmapped")
    os.makedirs(d)
    os.chown(d, owner, owner)
    with open(os.path.join(d, "owned"), "w") as f:
        f.write("x")
    os.chown(os.path.join(d, "owned"), owner, owner)
    return d


def test_idmapped_bind_mount(rt, bundle, test_dir):
    host = 1234
    d = idmapped_dir(test_dir, host)
    b = userns(bundle())
    m = b.add_mount("/mnt", "bind", d, ["bind"])
    # on-disk 1234 shows as 100000, the container's root
    m["uidMappings"] = [{"containerID": host, "hostID": 100000, "size": 1}]
    m["gidMappings"] = [{"containerID": host, "hostID": 100000, "size": 1}]
    steps = rt.run_script(b, ["stat", "/mnt/owned"], ["write", "/mnt/new", "y"])
    st = steps[0].json()
    assert (st["uid"], st["gid"]) == (0, 0), st
    assert steps[1].rc == 0, steps[1]
    # the write went through the map back to the host id
    st = os.stat(os.path.join(d, "new"))
    assert (st.st_uid, st.st_gid) == (host, host)
    # without the map the same file is not the container's
    b2 = userns(bundle())
    b2.add_mount("/mnt", "bind", d, ["bind"])
    steps = rt.run_script(b2, ["stat", "/mnt/owned"])
    assert steps[0].json()["uid"] == 65534


def test_idmapped_mount_refused_where_the_file_system_cannot(rt, bundle, test_dir):
    d = os.path.join(test_dir, "ramfs")
    os.makedirs(d)
    assert run_cmd(["mount", "-t", "ramfs", "bento-ramfs", d]).rc == 0
    try:
        b = userns(bundle())
        m = b.add_mount("/mnt", "bind", d, ["bind"])
        m["uidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 1}]
        m["gidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 1}]
        idx = len(b.config["mounts"]) - 1
        expect_create_failure(rt, b, message="mounts[%d].uidMappings: the file system of %s (ramfs) does not "
                              "support idmapped mounts" % (idx, d))
        # a mapping on anything but a bind mount is refused before that
        b2 = userns(bundle())
        t = b2.add_mount("/mnt", "tmpfs", "tmpfs")
        t["uidMappings"] = m["uidMappings"]
        t["gidMappings"] = m["gidMappings"]
        expect_create_failure(rt, b2, message="only a bind mount can be idmapped")
    finally:
        run_cmd(["umount", d])


# ---- bind sources opened with the runtime's credentials ----

def secret_tree(test_dir):
    """test_dir/secret (root, 0700) holding x/ with a readable and a
    root-only file."""
    top = os.path.join(test_dir, "secret")
    os.makedirs(os.path.join(top, "x"))
    os.chmod(top, 0o700)
    os.chmod(os.path.join(top, "x"), 0o755)
    for name, mode in (("public", 0o644), ("private", 0o600)):
        p = os.path.join(top, "x", name)
        with open(p, "w") as f:
            f.write(name)
        os.chmod(p, mode)
    return os.path.join(top, "x")


def test_bind_source_below_a_root_only_directory(rt, bundle, rrt, rbundle, test_dir):
    src = secret_tree(test_dir)
    b = userns(bundle())
    b.add_mount("/mnt", "bind", src, ["bind", "ro"])
    steps = rt.run_script(b, ["read", "/mnt/public"], ["read", "/mnt/private"])
    assert steps[0].rc == 0 and "public" in steps[0].text, steps[0]
    # the container's uid is still no one on the host: the file's own
    # mode keeps it out
    assert steps[1].rc != 0, steps[1]
    # the runtime opens sources with its caller's rights, no more: an
    # unprivileged caller cannot bind what it cannot reach itself
    rb = rbundle()
    rb.add_mount("/mnt", "bind", src, ["bind", "ro"])
    expect_create_failure(rrt, rb, message="open bind source %s: Permission denied" % src)


def test_bind_source_replaced_after_the_bundle_was_made_is_refused(rt, bundle, test_dir):
    """The fd opened by the runtime is the one checked against the
    bundle's identity record and mounted."""
    src = secret_tree(test_dir)
    st = os.stat(src)
    b = userns(bundle())
    b.add_mount("/mnt", "bind", src, ["bind", "ro"])
    idx = len(b.config["mounts"]) - 1
    notes = b.config.setdefault("annotations", {})
    notes["org.bento.mount-identity"] = "%d:b:%d:%d" % (idx, st.st_dev, st.st_ino + 1)
    expect_create_failure(rt, b, message="is not what bento checked")
    notes["org.bento.mount-identity"] = "%d:b:%d:%d" % (idx, st.st_dev, st.st_ino)
    b.set_args("/bin/cat", "/mnt/public")
    res = rt.run(b)
    assert res.rc == 0, res
    assert rt.container_output(res.cid).strip() == "public"


def test_more_bind_mounts_than_the_descriptor_limit(rt, bundle, test_dir):
    """The runtime opens every bind source and passes it to the init, which
    takes them batch by batch as it mounts and closes each once mounted: a
    config with more bind mounts than RLIMIT_NOFILE allows open at once
    still runs (it failed with "unexpected setup message" while the init
    held them all), and each mount is the source it names."""
    import resource
    n, limit = 600, 256
    srcs = []
    for i in range(n):
        d = os.path.join(test_dir, "src", "s%03d" % i)
        os.makedirs(d)
        with open(os.path.join(d, "name"), "w") as f:
            f.write("s%03d" % i)
        srcs.append(d)
    b = userns(bundle())
    b.add_mount("/mnt", "tmpfs", "tmpfs", ["nosuid", "nodev"])
    for i, d in enumerate(srcs):
        b.add_mount("/mnt/m%03d" % i, "bind", d, ["bind", "ro"])
    b.set_args("/bin/sh", "-c", "cat /mnt/m000/name /mnt/m299/name /mnt/m599/name")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    try:
        res = rt.run(b)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert res.rc == 0, res
    assert rt.container_output(res.cid).strip() == "s000s299s599", res
    # the denial still holds: a bind mount is read-only as configured
    b.set_args("/bin/sh", "-c", "echo x > /mnt/m000/name")
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    try:
        res = rt.run(b)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert res.rc != 0, res


def test_a_mount_failing_midway_reports_its_own_reason(rt, bundle, test_dir):
    """While the runtime is still passing bind sources, a mount that fails
    ends the init: the runtime reports the init's reason, not a broken
    pipe."""
    srcs = []
    for i in range(200):
        d = os.path.join(test_dir, "src", "s%03d" % i)
        os.makedirs(d)
        srcs.append(d)
    b = userns(bundle())
    b.add_mount("/mnt", "tmpfs", "tmpfs", ["nosuid", "nodev"])
    for i, d in enumerate(srcs[:10]):
        b.add_mount("/mnt/m%03d" % i, "bind", d, ["bind", "ro"])
    b.add_mount("/mnt/bad", "tmpfs", "tmpfs", ["size=nonsense"])
    for i, d in enumerate(srcs[10:]):
        b.add_mount("/mnt/n%03d" % i, "bind", d, ["bind", "ro"])
    res = expect_create_failure(rt, b, message="(/mnt/bad)")
    assert "broken pipe" not in res.err.lower() and "exited during setup" not in res.err, res
