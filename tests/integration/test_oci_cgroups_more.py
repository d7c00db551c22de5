# SPDX-License-Identifier: Apache-2.0
"""More of linux.resources, as runc takes it (issue 15): kernel memory limits
ignored aloud, blockIO on v1 blkio (and refused where a v2 hierarchy has no io
controller), the realtime budget, `update` with runc's and crun's flag names,
the v1 devices.list in config order, and a cgroup mount on a pure v1 view whose
mountinfo still lists the covered cgroup2 mount; and podman's
--device-read-bps.  Every value is read back from
the host's cgroup files, and every refusal is checked next to what still
works."""

import json
import os

import pytest

import harness
from harness import expect_create_failure
from test_cgroups import (UnifiedOnlyView, assert_gone, all_dirs, caller_cgroups, cg_info, mount_points,
                          pure_v2, read_host, resources_bundle, weight)
from test_engines import engine_env, explain, pm, podman_engine  # noqa: F401 (fixtures)

MiB = 1 << 20


# -- host facts ---------------------------------------------------------------

def root_disk():
    """(major, minor) of the whole disk holding / (throttles take whole disks)."""
    dev = os.stat("/").st_dev
    sysdir = "/sys/dev/block/%d:%d" % (os.major(dev), os.minor(dev))
    if os.path.exists(os.path.join(sysdir, "partition")):
        with open(os.path.join(sysdir, "..", "dev")) as f:
            return tuple(int(x) for x in f.read().strip().split(":"))
    return os.major(dev), os.minor(dev)


def blkio_child_files():
    """The files a fresh blkio cgroup has on this host (the root cgroup lacks
    some): made next to ours and removed again."""
    base = mount_points()["blkio"] + caller_cgroups()["blkio"].rstrip("/")
    probe = os.path.join(base, "cgx-probe-%d" % os.getpid())
    os.mkdir(probe)
    try:
        return set(os.listdir(probe))
    finally:
        os.rmdir(probe)


def dev_lines(info, file):
    return read_host(info, "blkio", file).splitlines()


def io_controller_files():
    """The io files a fresh cgroup has on a pure v2 host (made beside the
    caller's, where controllers are handed down, and removed again)."""
    base = mount_points()["unified"] + caller_cgroups()["unified"].rstrip("/").rsplit("/", 1)[0]
    probe = os.path.join(base, "cgx-probe-%d" % os.getpid())
    os.mkdir(probe)
    try:
        return set(os.listdir(probe))
    finally:
        os.rmdir(probe)


@pytest.fixture
def blkio_host():
    """("v1", a fresh blkio cgroup's files) on a v1 or hybrid host, or
    ("v2", a fresh cgroup's files) on a pure v2 host with the io controller."""
    if pure_v2():
        with open(os.path.join(mount_points()["unified"], "cgroup.controllers")) as f:
            if "io" not in f.read().split():
                pytest.fail("this pure v2 host has no io controller")
        return "v2", io_controller_files()
    if "blkio" not in mount_points():
        pytest.fail("this host has no v1 blkio hierarchy (see docs/conformance.md for the host)")
    return "v1", blkio_child_files()


def weight_file(files):
    return "blkio.weight" if "blkio.weight" in files else "blkio.bfq.weight"


def has_weight(blkio_host):
    """A blkio weight can be set here: v2's io.weight always; on v1
    blkio.weight (CFQ, gone since Linux 5.0) or blkio.bfq.weight (only in a
    kernel built with the BFQ scheduler)."""
    version, files = blkio_host
    return version == "v2" or "blkio.weight" in files or "blkio.bfq.weight" in files


WEIGHT_MISSING = "this kernel has no blkio.weight nor blkio.bfq.weight"


# -- memory.kernel / kernelTCP ------------------------------------------------

def test_kernel_memory_is_ignored_with_a_warning_and_tcp_applied_on_v1(rt, bundle):
    """The kernel takes memory.kmem.limit_in_bytes and keeps no limit: a
    warning.  The TCP buffer limit still exists on v1 and is applied; v2
    has none, so there it is a warning too."""
    b = resources_bundle(bundle, {"memory": {"limit": 64 * MiB, "kernel": 32 * MiB, "kernelTCP": 8 * MiB}},
                         "/bin/bento-probe", "sleep", "30")
    cid = rt.new_id("cgx-")
    res = rt.create(b, cid)
    assert res.rc == 0, res
    line = [l for l in res.err.splitlines() if "linux.resources.memory.kernel:" in l]
    assert line and str(32 * MiB) in line[0] and "ignored" in line[0], res.err
    info = cg_info(rt, cid)
    if pure_v2():
        tcp = [l for l in res.err.splitlines() if "linux.resources.memory.kernelTCP:" in l]
        assert tcp and "ignored" in tcp[0] and "cgroup v2" in tcp[0], res.err
        assert int(read_host(info, "unified", "memory.max")) == 64 * MiB
    else:
        assert "memory.kernelTCP" not in res.err, res.err
        # the limit next to them still holds, and the TCP one is in force
        assert int(read_host(info, "memory", "memory.limit_in_bytes")) == 64 * MiB
        assert int(read_host(info, "memory", "memory.kmem.tcp.limit_in_bytes")) == 8 * MiB
    assert rt.delete(cid, force=True).rc == 0
    assert_gone(all_dirs(info))
    # ignored is not unchecked: a value of the wrong type is still refused
    expect_create_failure(rt, resources_bundle(bundle, {"memory": {"kernel": "lots"}}),
                          message="linux.resources.memory.kernel")


# -- blockIO ------------------------------------------------------------------

def test_blockio_weight_and_throttles_are_applied(rt, bundle, blkio_host):
    maj, mnr = root_disk()
    dev = {"major": maj, "minor": mnr}
    throttles = {
        "throttleReadBpsDevice": [dict(dev, rate=MiB)],       # podman --device-read-bps
        "throttleWriteBpsDevice": [dict(dev, rate=2 * MiB)],
        "throttleReadIOPSDevice": [dict(dev, rate=100)],
        "throttleWriteIOPSDevice": [dict(dev, rate=200)]}
    weighted = has_weight(blkio_host)
    if not weighted:
        # a kernel without BFQ has no v1 weight at all: refused by name,
        # never dropped, and the throttles are checked on their own
        expect_create_failure(rt, resources_bundle(bundle, {"blockIO": dict(throttles, weight=300)}),
                              message=["blockIO.weight", WEIGHT_MISSING])
        expect_create_failure(rt, resources_bundle(bundle, {"blockIO": {"weightDevice": [dict(dev, weight=300)]}}),
                              message=["blockIO.weightDevice", WEIGHT_MISSING])
    b = resources_bundle(bundle, {"blockIO": dict(throttles, **({"weight": 300} if weighted else {}))},
                         "/bin/bento-probe", "sleep", "30")
    cid, _pid = rt.create_ok(b, rt.new_id("cgx-"))
    info = cg_info(rt, cid)
    key = "%d:%d" % (maj, mnr)
    version, files = blkio_host
    if version == "v2":
        # io.max holds the four throttles on one line; the weight goes to
        # BFQ's io.bfq.weight, or onto io.weight's 1..10000 scale (runc's)
        assert read_host(info, "unified", "io.max").splitlines() == [
            "%s rbps=%d wbps=%d riops=100 wiops=200" % (key, MiB, 2 * MiB)]
        bfq = "io.bfq.weight" in files
        want = 300 if bfq else 1 + (300 - 10) * 9999 // 990
        assert read_host(info, "unified", "io.bfq.weight" if bfq else "io.weight") == "default %d" % want
    else:
        if weighted:
            assert int(read_host(info, "blkio", weight_file(files))) == 300
        for file, rate in (("read_bps_device", MiB), ("write_bps_device", 2 * MiB),
                           ("read_iops_device", 100), ("write_iops_device", 200)):
            assert dev_lines(info, "blkio.throttle." + file) == ["%s %d" % (key, rate)], file
    # the state says the same (v2 without BFQ: the io.weight value)
    if version == "v2" and "io.bfq.weight" not in files:
        assert info["blockIO"]["ioWeight"] == 1 + (300 - 10) * 9999 // 990
    elif weighted:
        assert info["blockIO"]["weight"] == 300
    assert info["blockIO"]["throttleReadBpsDevice"] == [dict(dev, rate=MiB)]
    assert rt.delete(cid, force=True).rc == 0
    assert_gone(all_dirs(info))


def test_blockio_what_the_kernel_lacks_is_refused_as_runc_does(rt, bundle, blkio_host):
    version, files = blkio_host
    if "blkio.leaf_weight" in files:
        pytest.skip("this kernel still has blkio.leaf_weight (CFQ)")
    leaf = resources_bundle(bundle, {"blockIO": dict({"leafWeight": 300},
                                                     **({"weight": 200} if has_weight(blkio_host) else {}))})
    if version == "v2":
        # v2 never had leaf weights: ignored aloud, as runc ignores them
        leaf.set_args("/bin/true")
        res = rt.run(leaf)
        assert res.rc == 0, res
        assert "blockIO.leafWeight: 300 ignored: cgroup v2 has no leaf weights" in res.err, res
    else:
        res = expect_create_failure(rt, leaf, message="blockIO.leafWeight")
        assert "blkio.leaf_weight" in res.err, res
    # a device that is not there: the kernel's answer, named
    expect_create_failure(rt, resources_bundle(bundle, {"blockIO": {
        "throttleReadBpsDevice": [{"major": 4095, "minor": 77, "rate": MiB}]}}),
        message="blockIO.throttleReadBpsDevice[0]")
    # an out-of-range weight never reaches the kernel
    expect_create_failure(rt, resources_bundle(bundle, {"blockIO": {"weight": 5}}),
                          message="linux.resources.blockIO.weight")


def test_blockio_without_the_io_controller_is_refused_on_v2(rt, bundle):
    mp = mount_points()
    if "unified" not in mp:
        pytest.fail("this host has no cgroup2 mount; the v2 view needs one")
    with open(os.path.join(mp["unified"], "cgroup.controllers")) as f:
        if "io" in f.read().split():
            pytest.skip("the io controller is on this host's cgroup2 hierarchy")
    v2rt = UnifiedOnlyView(rt, sorted(m for k, m in mp.items() if k != "unified"))
    maj, mnr = root_disk()
    b = resources_bundle(bundle, {"blockIO": {"throttleReadBpsDevice": [{"major": maj, "minor": mnr, "rate": MiB}]}})
    expect_create_failure(v2rt, b, message="the io controller is not available")
    # the same view still runs a container without blockIO
    v2rt.run_probe(resources_bundle(bundle, {"blockIO": {}}), "exit", "0")


# -- cpu.realtimeRuntime / realtimePeriod -------------------------------------

def rt_files_here():
    base = mount_points()["cpu"] if "cpu" in mount_points() else None
    return base and os.path.exists(os.path.join(base, "cpu.rt_runtime_us"))


def test_realtime_budget_is_applied(rt, bundle):
    if not rt_files_here():
        pytest.skip("no cpu.rt_runtime_us here (CONFIG_RT_GROUP_SCHED off)")
    b = resources_bundle(bundle, {"cpu": {"realtimePeriod": 500000, "realtimeRuntime": 10000}},
                         "/bin/bento-probe", "sleep", "30")
    cid, _pid = rt.create_ok(b, rt.new_id("cgx-"))
    info = cg_info(rt, cid)
    assert read_host(info, "cpu", "cpu.rt_period_us") == "500000"
    assert read_host(info, "cpu", "cpu.rt_runtime_us") == "10000"
    assert info["cpu"]["realtimeRuntime"] == 10000 and info["cpu"]["realtimePeriod"] == 500000
    assert rt.delete(cid, force=True).rc == 0
    assert_gone(all_dirs(info))
    # a budget larger than its period is the kernel's refusal, passed on
    expect_create_failure(rt, resources_bundle(bundle, {"cpu": {"realtimePeriod": 10000, "realtimeRuntime": 20000}}),
                          message="cpu.realtime")


# -- update with runc's and crun's flags --------------------------------------

class Limits:
    """The host files that hold one container's limits, on a v1 or hybrid
    host or a pure v2 one.  v2 keeps shares and blkio weights on other
    scales (cpu.weight, io.weight), and the conversion loses precision, so
    what is read there is compared with the converted value (want_*)."""

    def __init__(self, info, blkio_host):
        self.info = info
        self.v2 = pure_v2()
        self.version, self.files = blkio_host

    def read(self, v1ctrl, v1file, v2file):
        return read_host(self.info, "unified" if self.v2 else v1ctrl, v2file if self.v2 else v1file)

    def shares(self):
        return self.read("cpu", "cpu.shares", "cpu.weight")

    def want_shares(self, n):
        return str(weight(n) if self.v2 else n)

    def blkio_weight(self):
        if self.v2:
            bfq = "io.bfq.weight" in self.files
            return read_host(self.info, "unified", "io.bfq.weight" if bfq else "io.weight").split()[-1]
        return read_host(self.info, "blkio", weight_file(self.files))

    def want_blkio_weight(self, n):
        if self.v2 and "io.bfq.weight" not in self.files:
            return str(1 + (n - 10) * 9999 // 990)
        return str(n)


def test_update_takes_runc_and_crun_flag_names(rt, bundle, test_dir, blkio_host):
    b = resources_bundle(bundle, {"memory": {"limit": 64 * MiB, "swap": 64 * MiB}, "pids": {"limit": 30}},
                         "/bin/bento-probe", "sleep", "60")
    cid, _pid = rt.create_ok(b, rt.new_id("cgx-"))
    rt.start_ok(cid)
    info = cg_info(rt, cid)
    lim = Limits(info, blkio_host)
    cpus = "1" if (os.cpu_count() or 1) > 1 else "0"
    weighted = has_weight(blkio_host)
    if not weighted:
        res = rt.cmd("update", "--blkio-weight", "500", cid)
        assert res.rc != 0 and WEIGHT_MISSING in res.err, res
    res = rt.cmd("update", "--cpu-share", "300", "--cpu-period", "200000", "--cpu-quota", "50000",
                 "--cpuset-cpus", cpus, "--cpuset-mems", "0", "--memory", str(96 * MiB),
                 "--memory-swap", str(128 * MiB), "--memory-reservation", str(32 * MiB), "--pids-limit", "55",
                 *(["--blkio-weight", "500"] if weighted else []), cid)
    assert res.rc == 0, res
    assert lim.shares() == lim.want_shares(300)
    if lim.v2:
        assert read_host(info, "unified", "cpu.max") == "50000 200000"
        # memory.swap is memory+swap: 128 MiB of it with 96 of memory is 32 of swap
        assert int(read_host(info, "unified", "memory.swap.max")) == 32 * MiB
    else:
        assert read_host(info, "cpu", "cpu.cfs_period_us") == "200000"
        assert read_host(info, "cpu", "cpu.cfs_quota_us") == "50000"
        assert int(read_host(info, "memory", "memory.memsw.limit_in_bytes")) == 128 * MiB
    assert lim.read("cpuset", "cpuset.cpus", "cpuset.cpus") == cpus
    assert lim.read("cpuset", "cpuset.mems", "cpuset.mems") == "0"
    assert int(lim.read("memory", "memory.limit_in_bytes", "memory.max")) == 96 * MiB
    assert int(lim.read("memory", "memory.soft_limit_in_bytes", "memory.low")) == 32 * MiB
    assert lim.read("pids", "pids.max", "pids.max") == "55"
    if weighted:
        assert lim.blkio_weight() == lim.want_blkio_weight(500)
        now = cg_info(rt, cid)
        assert str(now["blockIO"].get("weight", now["blockIO"].get("ioWeight"))) == lim.want_blkio_weight(500)
    now = cg_info(rt, cid)
    if not lim.v2:
        assert now["cpu"]["shares"] == 300
    if rt_files_here():
        res = rt.cmd("update", "--cpu-rt-period", "400000", "--cpu-rt-runtime", "8000", cid)
        assert res.rc == 0, res
        assert read_host(info, "cpu", "cpu.rt_period_us") == "400000"
        assert read_host(info, "cpu", "cpu.rt_runtime_us") == "8000"
    # --kernel-memory is accepted and ignored aloud; --kernel-memory-tcp applies on v1
    res = rt.cmd("update", "--kernel-memory", str(16 * MiB), "--kernel-memory-tcp", str(4 * MiB),
                 "--pids-limit", "66", cid)
    assert res.rc == 0, res
    assert "resources.memory.kernel: %d ignored" % (16 * MiB) in res.err, res
    if lim.v2:
        assert "resources.memory.kernelTCP: %d ignored" % (4 * MiB) in res.err, res
    else:
        assert "kernelTCP" not in res.err, res
        assert int(read_host(info, "memory", "memory.kmem.tcp.limit_in_bytes")) == 4 * MiB
    assert lim.read("pids", "pids.max", "pids.max") == "66"
    # -r FILE and -r - (stdin)
    f = os.path.join(test_dir, "res.json")
    with open(f, "w") as fh:
        json.dump(dict({"pids": {"limit": 77}}, **({"blockIO": {"weight": 600}} if weighted else {})), fh)
    res = rt.cmd("update", "-r", f, cid)
    assert res.rc == 0, res
    assert lim.read("pids", "pids.max", "pids.max") == "77"
    if weighted:
        assert lim.blkio_weight() == lim.want_blkio_weight(600)
    res = rt.cmd("update", "-r", "-", cid, input=json.dumps({"cpu": {"shares": 700}}))
    assert res.rc == 0, res
    assert lim.shares() == lim.want_shares(700)
    # refusals still change nothing and say why
    res = rt.cmd("update", "--blkio-weight", "5", cid)
    assert res.rc != 0 and "blockIO.weight" in res.err, res
    res = rt.cmd("update", "--cpu-share", "many", cid)
    assert res.rc != 0 and "--cpu-share" in res.err, res
    if weighted:
        assert lim.blkio_weight() == lim.want_blkio_weight(600)
    assert lim.shares() == lim.want_shares(700)
    assert rt.delete(cid, force=True).rc == 0
    assert_gone(all_dirs(info))


def test_update_help_names_the_runc_flags(rt):
    res = rt.cmd("update", "--help")
    assert res.rc == 0, res
    text = res.out + res.err
    for flag in ("--cpu-share", "--blkio-weight", "--cpu-rt-period", "--cpu-rt-runtime", "--kernel-memory",
                 "--kernel-memory-tcp"):
        assert flag in text, (flag, text)


# -- devices.list in config order ---------------------------------------------

def test_devices_list_reads_in_config_order(rt, bundle):
    rules = [{"allow": False, "access": "rwm"},
             {"allow": True, "type": "c", "major": 10, "minor": 229, "access": "rwm"},
             {"allow": True, "type": "b", "major": 8, "minor": 20, "access": "rw"},
             {"allow": True, "type": "b", "major": 10, "minor": 200, "access": "r"},
             # narrows a default: /dev/zero can be read but not written
             {"allow": False, "type": "c", "major": 1, "minor": 5, "access": "w"}]
    b = resources_bundle(bundle, {"devices": rules}, "/bin/bento-probe", "sleep", "30")
    cid, _pid = rt.create_ok(b, rt.new_id("cgx-"))
    info = cg_info(rt, cid)
    if pure_v2():
        # v2: the eBPF program's rules as recorded, the defaults first and
        # then the config's, in its order
        rec = info["devices"]
        mine = ["allow c 10:229 rwm", "allow b 8:20 rw", "allow b 10:200 r", "deny c 1:5 w"]
        at = [rec.index(r) for r in mine]
        assert at == sorted(at) and at[0] > rec.index("allow c 1:5 rwm"), rec
        assert rt.delete(cid, force=True).rc == 0
    else:
        check_v1_device_list(rt, cid, read_host(info, "devices", "devices.list").splitlines())
    # and the narrowed default is enforced, the others are not touched
    b2 = resources_bundle(bundle, {"devices": rules})
    steps = rt.run_script(b2, ["write", "/dev/zero"], ["write", "/dev/null"])
    assert steps[0].line == "EPERM" and steps[1].line == "OK", steps


def check_v1_device_list(rt, cid, devs):
    assert devs[:3] == ["c 10:229 rwm", "b 8:20 rw", "b 10:200 r"], devs
    assert "c 1:5 rm" in devs and "c 1:5 rwm" not in devs, devs
    for want in ("c 1:3 rwm", "c 136:* rwm", "c *:* m", "b *:* m"):
        assert want in devs, (want, devs)
    assert "a *:* rwm" not in devs, devs
    assert rt.delete(cid, force=True).rc == 0


# -- a cgroup mount on a pure v1 view -----------------------------------------

class LegacyView(harness.Runtime):
    """The runtime in a private mount namespace where a fresh tmpfs covers
    /sys/fs/cgroup and only the v1 hierarchies are mounted again inside it
    (what crun needs on this host): mountinfo still lists the covered
    mounts, the cgroup2 one among them, before the tmpfs that hides them.
    `at` places the re-mounted hierarchies: "usual" at their usual names,
    "moved" at "<name>-2", so the runtime must read mountinfo to find them."""

    SCRIPT = (
        "v1=$(awk '{ for (i = 1; i <= NF; i++) if ($i == \"-\") { if ($(i+1) == \"cgroup\" && "
        "$5 ~ /^\\/sys\\/fs\\/cgroup\\//) print $5, $(i+3); break } }' /proc/self/mountinfo) && "
        "mount -t tmpfs -o mode=755 cgx-view /sys/fs/cgroup && "
        "echo \"$v1\" | while read -r path opts; do p=$path$SUFFIX; mkdir -p \"$p\" && "
        "mount -t cgroup -o \"${opts#rw,}\" cgroup \"$p\" || exit 99; done && exec \"$@\"")

    def __init__(self, rt, at="usual"):
        super().__init__(root=rt.root, scratch=rt.scratch)
        self.suffix = "" if at == "usual" else "-2"
        self.ids = rt.ids  # the fixture's teardown deletes them, from the host's view
        self.pids = rt.pids

    def argv(self, args, global_opts=()):
        return ["unshare", "-m", "--propagation", "private", "env", "SUFFIX=" + self.suffix,
                "sh", "-c", self.SCRIPT, "sh"] + super().argv(args, global_opts)


def host_has_cgroup2_at_unified():
    return mount_points().get("unified") == "/sys/fs/cgroup/unified"


@pytest.mark.parametrize("cgroupns", [False, True])
def test_cgroup_mount_on_a_pure_v1_view(rt, bundle, cgroupns):
    if not host_has_cgroup2_at_unified():
        pytest.skip("the covered-cgroup2 case needs the hybrid layout's /sys/fs/cgroup/unified")
    lrt = LegacyView(rt)
    b = bundle()
    if cgroupns:
        b.set_ns("cgroup")
    else:
        b.drop_ns("cgroup")
    b.add_mount("/sys/fs/cgroup", type="cgroup", source="cgroup", options=["nosuid", "noexec", "nodev", "ro"])
    steps = lrt.run_script(b, ["ls", "/sys/fs/cgroup"], ["read", "/sys/fs/cgroup/pids/pids.max"])
    names = steps[0].json()["entries"]
    assert "unified" not in names, names
    for want in ("pids", "memory", "devices", "freezer"):
        assert want in names, (want, names)
    assert steps[1].json()["data"].strip() == "max", steps
    # nothing of the view reached this namespace
    with open("/proc/self/mountinfo") as f:
        assert "cgx-view" not in f.read()


def test_layout_from_mountinfo_skips_the_covered_cgroup2_mount(rt, bundle):
    if not host_has_cgroup2_at_unified():
        pytest.skip("the covered-cgroup2 case needs the hybrid layout's /sys/fs/cgroup/unified")
    lrt = LegacyView(rt, at="moved")
    b = resources_bundle(bundle, {"pids": {"limit": 44}}, "/bin/bento-probe", "sleep", "30")
    cid, _pid = lrt.create_ok(b, lrt.new_id("cgx-"))
    info = cg_info(lrt, cid)
    assert info["version"] == "v1" and "unified" not in info["paths"], info
    assert read_host(info, "pids", "pids.max") == "44"
    dirs = all_dirs(info)
    assert lrt.delete(cid, force=True).rc == 0
    assert_gone(dirs)


# -- podman --device-read-bps -------------------------------------------------


def disk_node(maj, mnr):
    with open("/sys/dev/block/%d:%d/uevent" % (maj, mnr)) as f:
        name = [l.split("=", 1)[1].strip() for l in f if l.startswith("DEVNAME=")][0]
    return "/dev/" + name


def test_podman_device_read_bps(pm, blkio_host):
    maj, mnr = root_disk()
    node = disk_node(maj, mnr)
    opts = ["--device-read-bps", node + ":1mb", "--device-write-iops", node + ":150"]
    if blkio_host[0] == "v2":
        res = pm.run("cat", "/sys/fs/cgroup/io.max", opts=opts)
        assert res.rc == 0, explain(res)
        assert res.out.split("\n")[0] == "%d:%d rbps=%d wbps=max riops=max wiops=150" % (maj, mnr, MiB), \
            explain(res)
        return
    res = pm.run("cat", "/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device",
                 "/sys/fs/cgroup/blkio/blkio.throttle.write_iops_device", opts=opts)
    assert res.rc == 0, explain(res)
    assert res.out.split("\n")[:2] == ["%d:%d %d" % (maj, mnr, MiB), "%d:%d 150" % (maj, mnr)], explain(res)
