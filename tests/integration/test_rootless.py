# SPDX-License-Identifier: Apache-2.0
"""bento-runtime run by an unprivileged user (uid 65534) with a user
namespace mapping container root to that user."""

import json
import os

import pytest

from harness import (ROOTLESS_GID, ROOTLESS_UID, expect_create_failure, ns_inode, proc_status, run_cmd,
                     wait_for)

pytestmark = pytest.mark.rootless


def test_unprivileged_user_namespaces_work(rootless_supported):
    res = run_cmd(["setpriv", "--reuid=%d" % ROOTLESS_UID, "--regid=%d" % ROOTLESS_GID, "--clear-groups",
                   "unshare", "-Ur", "id", "-u"], timeout=20)
    assert res.rc == 0 and res.out.strip() == "0", res


def test_rootless_container_root_is_the_user_on_the_host(rrt, rbundle):
    b = rbundle()
    b.set_args("/bin/sh", "-c", "/bin/bento-probe ids; exec /bin/bento-probe sleep 60")
    cid, pid = rrt.create_ok(b)
    # default state root for an unprivileged user
    assert os.path.isdir(os.path.join(rrt.xdg, "bento-runtime", cid)), os.listdir(rrt.xdg)
    rrt.start_ok(cid)
    wait_for(lambda: rrt.container_output(cid).strip(), timeout=10, what="probe output")
    ids = json.loads(rrt.container_output(cid).splitlines()[0])
    assert (ids["uid"], ids["euid"], ids["gid"], ids["egid"]) == (0, 0, 0, 0)

    st = proc_status(pid)
    assert st["Uid"].split() == [str(ROOTLESS_UID)] * 4, st["Uid"]
    assert st["Gid"].split() == [str(ROOTLESS_GID)] * 4, st["Gid"]
    with open("/proc/%d/uid_map" % pid) as f:
        assert f.read().split() == ["0", str(ROOTLESS_UID), "1"]
    with open("/proc/%d/gid_map" % pid) as f:
        assert f.read().split() == ["0", str(ROOTLESS_GID), "1"]
    assert ns_inode(pid, "user") != os.stat("/proc/self/ns/user").st_ino

    state = rrt.state_json(cid)
    assert state["status"] == "running" and state["pid"] == pid
    assert str(ROOTLESS_UID) in state["bento"]["uidMap"]

    rrt.terminate_and_delete(cid, pid)


@pytest.mark.parametrize("uid_map", [
    [{"containerID": 0, "hostID": 0, "size": 1}],
    [{"containerID": 0, "hostID": ROOTLESS_UID, "size": 2}],
    [{"containerID": 0, "hostID": 1000, "size": 1}],
], ids=["host-root", "two-ids", "other-user"])
def test_rootless_cannot_map_other_users(rrt, rbundle, uid_map):
    b = rbundle()
    b.linux["uidMappings"] = uid_map
    expect_create_failure(rrt, b)


def test_rootless_busybox_id_reports_root(rrt, rbundle):
    b = rbundle()
    b.set_args("/bin/id")
    res = rrt.run(b)
    assert res.rc == 0, res
    assert res.out.split()[0] == "uid=0(root)" and "gid=0(root)" in res.out, res


def test_rootless_root_cannot_write_host_root_files(rrt, rbundle):
    b = rbundle()
    b.config["root"]["readonly"] = False
    steps = rrt.run_script(b, ["write", "/owned-by-host-root"], ["write", "/dev/shm/ok"], ["stat", "/bin/busybox"])
    assert steps[0].line == "EACCES", steps[0]
    assert steps[1].line == "OK"
    assert steps[2].json()["uid"] == 65534, "unmapped owners show as the overflow uid"
    assert not os.path.exists(os.path.join(b.rootfs, "owned-by-host-root"))


def test_rootless_root_writes_its_own_rootfs(rrt, rbundle):
    b = rbundle(owner=(ROOTLESS_UID, ROOTLESS_GID))
    b.config["root"]["readonly"] = False
    steps = rrt.run_script(b, ["write", "/mine"], ["stat", "/bin/busybox"])
    assert steps[0].line == "OK"
    assert steps[1].json()["uid"] == 0
    st = os.stat(os.path.join(b.rootfs, "mine"))
    assert (st.st_uid, st.st_gid) == (ROOTLESS_UID, ROOTLESS_GID)


def test_rootless_capabilities_stay_in_the_namespace(rrt, rbundle):
    b = rbundle()
    caps = ["CAP_SYS_ADMIN", "CAP_MKNOD", "CAP_SETUID"]
    b.process["capabilities"] = {k: list(caps) for k in ("bounding", "effective", "permitted")}
    steps = rrt.run_script(b, ["mount-tmpfs", "/tmp"], ["sethostname", "mine"], ["mknod", "/dev/shm/null", "c", "1", "3"],
                           ["setuid", "1"], ["read", "/proc/self/setgroups"])
    assert steps[0].line == "OK", "mount in the container's own mount namespace"
    assert steps[1].line == "OK", "sethostname in the container's own uts namespace"
    assert steps[2].line == "EPERM", "device nodes cannot be made in a user namespace"
    assert steps[3].line == "EINVAL", "uid 1 is not mapped"
    assert steps[4].json()["data"].strip() == "deny"


def test_rootless_default_mounts_and_devices(rrt, rbundle):
    b = rbundle()
    steps = rrt.run_script(b, ["mounts"], ["stat", "/dev/null"], ["write", "/dev/null"], ["write", "/dev/full"],
                           ["netdevs"], ["pid"])
    targets = {m["target"]: m["fstype"] for m in steps[0].json()}
    for t in ("/proc", "/dev", "/dev/pts", "/dev/shm", "/dev/mqueue", "/sys"):
        assert t in targets, (t, sorted(targets))
    null = steps[1].json()
    assert (null["type"], null["rdev_major"], null["rdev_minor"]) == ("chr", 1, 3)
    assert steps[2].line == "OK"
    assert steps[3].line == "ENOSPC"
    assert [d["name"] for d in steps[4].json()] == ["lo"]
    assert steps[5].json()["ppid"] == 1


def test_rootless_spec(rrt, rbundle, test_dir, rootfs_template):
    b = rbundle()
    d = os.path.join(test_dir, "rspec")
    os.makedirs(d)
    os.chown(d, ROOTLESS_UID, ROOTLESS_GID)
    res = rrt.cmd("spec", "--rootless", "--bundle", d)
    assert res.rc == 0, res
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    assert "user" in {n["type"] for n in cfg["linux"]["namespaces"]}
    assert cfg["linux"]["uidMappings"][0]["hostID"] == ROOTLESS_UID
    assert cfg["linux"]["gidMappings"][0]["hostID"] == ROOTLESS_GID
    # the generated config, pointed at our rootfs, runs as this user
    cfg["root"] = {"path": b.rootfs, "readonly": True}
    cfg["process"]["terminal"] = False
    cfg["process"]["args"] = ["/bin/bento-probe", "ids"]
    b.config = cfg
    res = rrt.run(b)
    assert res.rc == 0, res
    ids = res.json()
    assert (ids["uid"], ids["gid"]) == (0, 0)
