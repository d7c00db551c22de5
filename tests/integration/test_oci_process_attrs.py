# SPDX-License-Identifier: Apache-2.0
"""runtime-spec 1.2 process attributes that live through execve:
process.scheduler, process.ioPriority, process.execCPUAffinity,
linux.personality, linux.memoryPolicy, and the LSM labels
(process.apparmorProfile, process.selinuxLabel, linux.mountLabel).

Each one is read back from inside the container (the kernel's view in
/proc, or the system call's own answer through busybox), for the init and
for an `exec` process; bad values are refused with the JSON path before a
container exists; a label for an LSM this host does not run is ignored with
a warning that names it."""

import json
import os

import pytest

from harness import expect_create_failure

PROBE = "/bin/bento-probe"


def stat_fields(text):
    """/proc/<pid>/stat after the command name: fields[0] is field 3 (state)."""
    return text[text.rfind(")") + 2:].split()


def sched_of(text):
    """(policy, rt_priority, nice) from a /proc/<pid>/stat line."""
    f = stat_fields(text)
    # stat(5): 19 nice, 40 rt_priority, 41 policy (1-based)
    return int(f[41 - 3]), int(f[40 - 3]), int(f[19 - 3])


def run_ok(rt, b):
    res = rt.run(b)
    assert res.rc == 0, res
    return res


def running(rt, bundle, configure=None):
    b = bundle(PROBE, "sleep", "600")
    if configure:
        configure(b)
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    return b, cid, pid


def exec_process(rt, test_dir, cid, args, name="process.json", **fields):
    proc = {"args": list(args), "cwd": "/", "user": {"uid": 0, "gid": 0},
            "env": ["PATH=/bin"]}
    proc.update(fields)
    path = os.path.join(test_dir, name)
    with open(path, "w") as f:
        json.dump(proc, f)
    return rt.cmd("exec", "--process", path, cid)


def read_proc(pid, name):
    with open("/proc/%d/%s" % (pid, name)) as f:
        return f.read()


# ---- process.scheduler ------------------------------------------------------


def test_scheduler_batch_with_nice(rt, bundle):
    b = bundle("/bin/cat", "/proc/self/stat")
    b.process["scheduler"] = {"policy": "SCHED_BATCH", "nice": 7}
    assert sched_of(run_ok(rt, b).out) == (3, 0, 7)
    # and without: the caller's defaults, so the above is the config's doing
    b2 = bundle("/bin/cat", "/proc/self/stat")
    assert sched_of(run_ok(rt, b2).out) == (0, 0, 0)


def test_scheduler_idle(rt, bundle):
    b = bundle("/bin/cat", "/proc/self/stat")
    b.process["scheduler"] = {"policy": "SCHED_IDLE"}
    assert sched_of(run_ok(rt, b).out)[0] == 5


def rt_group_scheduling():
    """The kernel gives realtime time to cpu cgroups by budget: a new cgroup
    has none (cpu.rt_runtime_us = 0) until linux.resources.cpu.realtimeRuntime
    gives it some."""
    return os.path.exists("/sys/fs/cgroup/cpu/cpu.rt_runtime_us") or \
        os.path.exists("/sys/fs/cgroup/cpu,cpuacct/cpu.rt_runtime_us")


def test_scheduler_fifo_and_reset_on_fork(rt, bundle):
    """The shell itself runs SCHED_FIFO 10; its child (cat) was forked with
    SCHED_FLAG_RESET_ON_FORK and is back to SCHED_OTHER.  With RT group
    scheduling and no realtime budget for the container's cgroup the kernel
    says EPERM, and the refusal must say why."""
    b = bundle("/bin/sh", "-c", "cat /proc/$$/stat; cat /proc/self/stat")
    b.process["scheduler"] = {"policy": "SCHED_FIFO", "priority": 10,
                              "flags": ["SCHED_FLAG_RESET_ON_FORK"]}
    res = rt.run(b)
    if rt_group_scheduling():
        assert res.rc not in (0, None), res
        assert "process.scheduler: sched_setattr(SCHED_FIFO)" in res.err, res
        assert "linux.resources.cpu.realtimeRuntime" in res.err and "Operation not permitted" in res.err, res
        return
    assert res.rc == 0, res
    shell, child = res.out.splitlines()
    assert sched_of(shell)[:2] == (1, 10), shell
    assert sched_of(child)[:2] == (0, 0), child


@pytest.mark.parametrize("sched, message", [
    ({"policy": "SCHED_LOTTERY"}, "process.scheduler.policy: unknown scheduling policy \"SCHED_LOTTERY\""),
    ({"policy": "SCHED_OTHER", "nice": 20}, "process.scheduler.nice: must be between -20 and 19, got 20"),
    ({"policy": "SCHED_OTHER", "nice": -21}, "process.scheduler.nice: must be between -20 and 19"),
    ({"nice": 1}, "process.scheduler.policy: required property is missing"),
    ({"policy": "SCHED_OTHER", "flags": ["SCHED_FLAG_TURBO"]},
     "process.scheduler.flags[0]: unknown scheduler flag"),
    ({"policy": "SCHED_ISO"}, "SCHED_ISO is reserved but not implemented by the Linux kernel"),
    ({"policy": "SCHED_FIFO"}, "process.scheduler.priority: SCHED_FIFO needs a priority between 1 and 99"),
    ({"policy": "SCHED_BATCH", "priority": 5}, "process.scheduler.priority: only SCHED_FIFO and SCHED_RR"),
    ({"policy": "SCHED_DEADLINE", "deadline": 20000000}, "`SCHED_DEADLINE` requires `runtime`"),
    ({"policy": "SCHED_DEADLINE", "runtime": 0, "deadline": 20000000}, "runtime must be greater than 0"),
    ({"policy": "SCHED_DEADLINE", "runtime": 30000000, "deadline": 20000000},
     "runtime (30000000) must be <= deadline (20000000)"),
])
def test_scheduler_bad_values_refused(rt, bundle, sched, message):
    b = bundle("/bin/true")
    b.process["scheduler"] = sched
    expect_create_failure(rt, b, message=message)


def test_scheduler_deadline(rt, bundle):
    """SCHED_DEADLINE is applied (policy 6 from the kernel's view); a
    deadline task cannot fork, so the program reads its own stat."""
    b = bundle("/bin/cat", "/proc/self/stat")
    b.process["scheduler"] = {"policy": "SCHED_DEADLINE", "runtime": 10000000,
                              "deadline": 20000000, "period": 20000000}
    res = rt.run(b)
    if res.rc != 0 and "SCHED_DEADLINE needs" in res.err:
        pytest.skip("SCHED_DEADLINE cannot be admitted here: %s" % res.err.strip())
    assert res.rc == 0, res
    assert sched_of(res.out)[0] == 6


# ---- process.ioPriority -------------------------------------------------------


@pytest.mark.parametrize("io, want", [
    ({"class": "IOPRIO_CLASS_BE", "priority": 4}, "best-effort: prio 4"),
    ({"class": "IOPRIO_CLASS_RT", "priority": 2}, "realtime: prio 2"),
    ({"class": "IOPRIO_CLASS_IDLE"}, "idle"),
])
def test_io_priority(rt, bundle, io, want):
    # busybox ionice without arguments prints ioprio_get(2) of itself
    b = bundle("/bin/busybox", "ionice")
    b.process["ioPriority"] = io
    assert run_ok(rt, b).out.strip() == want
    plain = bundle("/bin/busybox", "ionice")
    assert run_ok(rt, plain).out.strip() != want


@pytest.mark.parametrize("io, message", [
    ({"class": "IOPRIO_CLASS_WHATEVER", "priority": 1}, "process.ioPriority.class: unknown I/O priority class"),
    ({"class": "IOPRIO_CLASS_BE", "priority": 8}, "process.ioPriority.priority: must be between 0 and 7, got 8"),
    ({"priority": 1}, "process.ioPriority.class: required property is missing"),
])
def test_io_priority_bad_values_refused(rt, bundle, io, message):
    b = bundle("/bin/true")
    b.process["ioPriority"] = io
    expect_create_failure(rt, b, message=message)


# ---- linux.personality -----------------------------------------------------------


def test_personality_linux32(rt, bundle):
    b = bundle("/bin/sh", "-c", "cat /proc/self/personality; uname -m")
    b.linux["personality"] = {"domain": "LINUX32"}
    persona, machine = run_ok(rt, b).out.split()
    assert int(persona, 16) == 0x8
    assert machine in ("i686", "i386"), machine
    b2 = bundle("/bin/sh", "-c", "cat /proc/self/personality; uname -m")
    b2.linux["personality"] = {"domain": "LINUX"}
    persona, machine = run_ok(rt, b2).out.split()
    assert int(persona, 16) == 0 and machine == os.uname().machine


@pytest.mark.parametrize("pers, message", [
    ({"domain": "LINUX64"}, "linux.personality.domain: unknown personality domain \"LINUX64\""),
    ({"domain": "LINUX", "flags": ["ADDR_NO_RANDOMIZE"]},
     "linux.personality.flags[0]: runtime-spec defines no personality flags"),
    ({}, "linux.personality.domain: required property is missing"),
])
def test_personality_bad_values_refused(rt, bundle, pers, message):
    b = bundle("/bin/true")
    b.linux["personality"] = pers
    expect_create_failure(rt, b, message=message)


# ---- linux.memoryPolicy -----------------------------------------------------------


def numa_policy(out):
    """The policy word of the first mapping in /proc/self/numa_maps (the
    task's policy, as no mapping has its own)."""
    return out.splitlines()[0].split()[1]


@pytest.mark.parametrize("policy, want", [
    ({"mode": "MPOL_BIND", "nodes": "0"}, "bind:0"),
    ({"mode": "MPOL_INTERLEAVE", "nodes": "0"}, "interleave:0"),
    ({"mode": "MPOL_PREFERRED", "nodes": "0"}, "prefer:0"),
    ({"mode": "MPOL_LOCAL"}, "local"),
    ({"mode": "MPOL_BIND", "nodes": "0", "flags": ["MPOL_F_STATIC_NODES"]}, "bind=static:0"),
])
def test_memory_policy(rt, bundle, policy, want):
    if not os.path.exists("/proc/self/numa_maps"):
        pytest.skip("no NUMA support in this kernel")
    b = bundle("/bin/cat", "/proc/self/numa_maps")
    b.linux["memoryPolicy"] = policy
    assert numa_policy(run_ok(rt, b).out) == want
    plain = bundle("/bin/cat", "/proc/self/numa_maps")
    assert numa_policy(run_ok(rt, plain).out) == "default"


def missing_node():
    with open("/sys/devices/system/node/possible") as f:
        text = f.read().strip()
    return int(text.replace(",", "-").split("-")[-1]) + 1


@pytest.mark.parametrize("policy, message", [
    ({}, "linux.memoryPolicy.mode: required property is missing"),
    ({"mode": "MPOL_SOMETIMES"}, "linux.memoryPolicy.mode: unknown memory policy mode"),
    ({"mode": "MPOL_PREFERRED", "flags": ["MPOL_F_FAST"]}, "linux.memoryPolicy.flags[0]: unknown memory policy flag"),
    ({"mode": "MPOL_PREFERRED", "nodes": "bad"}, "linux.memoryPolicy.nodes: \"bad\" is not a node list"),
    ({"mode": "MPOL_PREFERRED", "nodes": "10284838"}, "linux.memoryPolicy.nodes: node 10284838 is past the largest"),
    ({"mode": "MPOL_INTERLEAVE"}, "linux.memoryPolicy.nodes: MPOL_INTERLEAVE needs at least one node"),
    ({"mode": "MPOL_DEFAULT", "nodes": "0"}, "linux.memoryPolicy.nodes: MPOL_DEFAULT takes no nodes"),
])
def test_memory_policy_bad_values_refused(rt, bundle, policy, message):
    b = bundle("/bin/true")
    b.linux["memoryPolicy"] = policy
    expect_create_failure(rt, b, message=message)


def test_memory_policy_kernel_refusal_names_the_path(rt, bundle):
    """A node this machine does not have: the kernel's EINVAL, reported with
    the JSON path; the container never runs."""
    if not os.path.exists("/proc/self/numa_maps"):
        pytest.skip("no NUMA support in this kernel")
    b = bundle("/bin/true")
    b.linux["memoryPolicy"] = {"mode": "MPOL_BIND", "nodes": str(missing_node())}
    expect_create_failure(rt, b, message=["linux.memoryPolicy: set_mempolicy(MPOL_BIND", "invalid argument"])
    b2 = bundle("/bin/true")
    b2.linux["memoryPolicy"] = {"mode": "MPOL_PREFERRED", "flags": ["MPOL_F_NUMA_BALANCING"]}
    expect_create_failure(rt, b2, message="linux.memoryPolicy: set_mempolicy(MPOL_PREFERRED")


# ---- process.execCPUAffinity ---------------------------------------------------------


def cpus_allowed(status_text):
    for line in status_text.splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError("no Cpus_allowed_list in:\n" + status_text)


def online_cpus():
    return sorted(os.sched_getaffinity(0))


def test_exec_cpu_affinity_applies_to_exec_not_init(rt, bundle, test_dir):
    cpus = online_cpus()
    if len(cpus) < 2:
        pytest.skip("needs two CPUs")
    last = str(cpus[-1])

    def configure(b):
        b.process["execCPUAffinity"] = {"initial": str(cpus[0]), "final": last}

    _, cid, pid = running(rt, bundle, configure)
    # runtime-spec: not for the init
    assert cpus_allowed(read_proc(pid, "status")) != last
    # an exec of the container's own process takes it
    res = rt.cmd("exec", cid, "/bin/cat", "/proc/self/status")
    assert res.rc == 0, res
    assert cpus_allowed(res.out) == last
    # and so does a --process file's
    res = exec_process(rt, test_dir, cid, ["/bin/cat", "/proc/self/status"],
                       execCPUAffinity={"final": str(cpus[0])})
    assert res.rc == 0, res
    assert cpus_allowed(res.out) == str(cpus[0])


def test_exec_cpu_affinity_bad_values(rt, bundle, test_dir):
    b = bundle("/bin/true")
    b.process["execCPUAffinity"] = {"final": "0-"}
    expect_create_failure(rt, b, message="process.execCPUAffinity.final: \"0-\" is not a CPU list")
    b2 = bundle("/bin/true")
    b2.process["execCPUAffinity"] = {"initial": "0,99999"}
    expect_create_failure(rt, b2, message="process.execCPUAffinity.initial: CPU 99999 is past the largest")
    # a CPU this machine does not have is refused when it is applied
    _, cid, _ = running(rt, bundle)
    res = exec_process(rt, test_dir, cid, ["/bin/true"], execCPUAffinity={"initial": "4000"})
    assert res.rc != 0 and "process.execCPUAffinity.initial" in res.err, res
    res = exec_process(rt, test_dir, cid, ["/bin/true"], execCPUAffinity={"final": "0,4000"})
    assert res.rc != 0 and "process.execCPUAffinity.final: CPU 4000" in res.err, res
    assert rt.cmd("exec", cid, "/bin/true").rc == 0


# ---- every attribute for an exec process -------------------------------------------------


def test_exec_process_gets_the_attributes(rt, bundle, test_dir):
    def configure(b):
        b.linux["personality"] = {"domain": "LINUX32"}
        b.linux["memoryPolicy"] = {"mode": "MPOL_BIND", "nodes": "0"}

    _, cid, pid = running(rt, bundle, configure)
    script = ("cat /proc/$$/stat; cat /proc/$$/personality; busybox ionice; "
              "head -n 1 /proc/$$/numa_maps")
    res = exec_process(rt, test_dir, cid, ["/bin/sh", "-c", script],
                       scheduler={"policy": "SCHED_BATCH", "nice": 3},
                       ioPriority={"class": "IOPRIO_CLASS_BE", "priority": 6})
    assert res.rc == 0, res
    stat, persona, ionice, numa = res.out.splitlines()
    assert sched_of(stat) == (3, 0, 3)
    assert int(persona, 16) == 0x8
    assert ionice.strip() == "best-effort: prio 6"
    assert numa.split()[1] == "bind:0"
    # bad values in the file are refused with the path inside the file
    res = exec_process(rt, test_dir, cid, ["/bin/true"], name="bad.json",
                       scheduler={"policy": "SCHED_OTHER", "nice": 42})
    assert res.rc != 0 and "scheduler.nice: must be between -20 and 19" in res.err, res
    res = exec_process(rt, test_dir, cid, ["/bin/true"], name="bad2.json",
                       ioPriority={"class": "IOPRIO_CLASS_BE", "priority": -1})
    assert res.rc != 0 and "ioPriority.priority: must be between 0 and 7" in res.err, res


# ---- LSM labels on a host without AppArmor or SELinux ------------------------------------------


def apparmor_enabled():
    try:
        with open("/sys/module/apparmor/parameters/enabled") as f:
            return f.read().startswith("Y") and os.path.isdir("/sys/kernel/security/apparmor")
    except OSError:
        return False


def selinux_enabled():
    if os.path.exists("/sys/fs/selinux/enforce"):
        return True
    with open("/proc/self/mountinfo") as f:
        return any(" - selinuxfs " in line for line in f)


def test_lsm_labels_ignored_with_a_warning_when_not_enabled(rt, bundle, test_dir):
    if apparmor_enabled() or selinux_enabled():
        pytest.skip("this host runs AppArmor or SELinux: the labels would be applied")
    b = bundle("/bin/cat", "/proc/self/attr/current")
    b.process["apparmorProfile"] = "bento-test-profile"
    b.process["selinuxLabel"] = "system_u:system_r:container_t:s0:c1,c2"
    b.linux["mountLabel"] = "system_u:object_r:container_file_t:s0:c1,c2"
    res = rt.run(b)
    # the container runs (as runc's and crun's would) ...
    assert res.rc in (0, 1), res
    # ... but never silently: each label is named, with the reason
    assert ('process.apparmorProfile "bento-test-profile" ignored: AppArmor is not enabled on this host'
            in res.err), res
    assert ('process.selinuxLabel "system_u:system_r:container_t:s0:c1,c2" ignored: SELinux is not enabled'
            in res.err), res
    assert 'linux.mountLabel "system_u:object_r:container_file_t:s0:c1,c2" ignored' in res.err, res
    # no context= reached a mount (it would have failed without SELinux)
    plain = bundle("/bin/true")
    assert "ignored" not in run_ok(rt, plain).err
    # an exec process's label gets the same treatment
    _, cid, _ = running(rt, bundle)
    res = exec_process(rt, test_dir, cid, ["/bin/true"], apparmorProfile="bento-exec-profile")
    assert res.rc == 0, res
    assert 'process.apparmorProfile "bento-exec-profile" ignored: AppArmor is not enabled' in res.err, res
