# SPDX-License-Identifier: Apache-2.0
"""Big configs stay manageable after create (issue 16, item 3).

  * a 10,000-mount config (over 4 MiB, the old config limit) goes through
    create, start, state, exec, kill and delete --force, and nothing is
    left (the harness teardown checks process, mounts, cgroups and state);
    its state.json stays small because the record holds no mount table;
  * a config over the 64 MiB limit is refused with its size and the limit,
    and leaves nothing;
  * `bento run` with hundreds of write grants (each grant a directory with
    shield mount points, more than the 64 the run used to be able to lock)
    runs end to end and the script writes into the last grant.
    BENTO_SCALE_GRANTS=2000 runs the full 2,000-grant (10,000-mount) case,
    which takes minutes because `bento translate` is quadratic in the grants.

Container ids start with "scale-".
"""

import json
import os
import shutil
import time

import pytest

import harness
from harness import run_cmd

PROBE = "/bin/bento-probe"
BENTO = os.path.join(harness.BUILD, "bin", "bento")
MOUNTS = 10000
OLD_CONFIG_LIMIT = 4 << 20
CONFIG_LIMIT = 64 << 20

pytestmark = [pytest.mark.timeout(300)]


def destination(i, long=True):
    # two long components (a name holds at most 255 bytes)
    if long:
        return "/mnt/d%03d/%s/%s-%05d" % (i // 100, "p" * 240, "q" * 240, i)
    return "/mnt/d%03d/m%05d" % (i // 100, i)


def big_bundle(bundle, n, long=True):
    """A bundle whose config holds n read-only binds below a tmpfs at /mnt
    (so the mount points are made there, not in the shared rootfs).  Long
    destinations take the config past the old 4 MiB limit; short ones keep
    it under that, and the old record (every mountinfo line) still outgrew
    the old 1 MiB state.json limit."""
    b = bundle(PROBE, "sleep", "600")
    src = os.path.join(b.path, "src")
    os.makedirs(src)
    with open(os.path.join(src, "mark"), "w") as f:
        f.write("bound\n")
    b.add_mount("/mnt", "tmpfs", "tmpfs", ["nosuid", "nodev", "mode=0755"])
    for i in range(n):
        b.add_mount(destination(i, long), "bind", src, ["bind", "ro", "nosuid"])
    b.save()
    return b


def test_ten_thousand_mounts_through_every_verb(rt, bundle):
    b = big_bundle(bundle, MOUNTS)
    size = os.path.getsize(os.path.join(b.path, "config.json"))
    assert size > OLD_CONFIG_LIMIT, size
    cid, pid = rt.create_ok(b, rt.new_id("scale-"), timeout=120)
    record = os.path.join(rt.state_dir(cid), "state.json")
    # the record holds what later verbs need, not a copy of every mount
    assert os.path.getsize(record) < 64 << 10, os.path.getsize(record)
    with open(record) as f:
        assert "mounts" not in json.load(f)
    rt.start_ok(cid)

    st = rt.state_json(cid)
    assert st["status"] == "running" and st["pid"] == pid, st
    dests = {m["destination"] for m in st["bento"]["mounts"]}
    assert len(dests) >= MOUNTS, len(dests)
    last = destination(MOUNTS - 1)
    assert last in dests

    # exec reads the stored config copy (over the old limit too)
    res = rt.cmd("exec", cid, "/bin/cat", last + "/mark", timeout=60)
    assert res.rc == 0 and res.out == "bound\n", res
    # and the binds are read-only: the allowed read worked, the write fails
    res = rt.cmd("exec", cid, "/bin/touch", last + "/new", timeout=60)
    assert res.rc != 0, res
    assert not os.path.exists(os.path.join(b.path, "src", "new"))

    res = rt.kill(cid, "KILL")
    assert res.rc == 0, res
    assert rt.wait_pid_gone(pid, timeout=20), "the init survived kill"
    rt.wait_status(cid, "stopped")
    res = rt.delete(cid, force=True, timeout=60)
    assert res.rc == 0, res
    assert not os.path.lexists(rt.state_dir(cid))
    assert harness.cgroup_dirs_named(cid) == []
    assert harness.mounts_under(b.path) == []


def test_state_of_a_created_big_container_then_delete_force(rt, bundle):
    """delete --force of a container that was never started (the init
    waits on exec.fifo) with a big config: nothing left."""
    b = big_bundle(bundle, MOUNTS, long=False)
    assert os.path.getsize(os.path.join(b.path, "config.json")) < OLD_CONFIG_LIMIT
    cid, pid = rt.create_ok(b, rt.new_id("scale-"), timeout=120)
    assert os.path.getsize(os.path.join(rt.state_dir(cid), "state.json")) < 64 << 10
    assert rt.status(cid) == "created"
    res = rt.kill(cid, "TERM")
    assert res.rc == 0, res  # a created container can be signalled
    res = rt.delete(cid, force=True, timeout=60)
    assert res.rc == 0, res
    assert rt.wait_pid_gone(pid, timeout=20)
    assert not os.path.lexists(rt.state_dir(cid))
    assert harness.cgroup_dirs_named(cid) == []


def test_config_over_the_limit_is_refused_with_both_numbers(rt, bundle):
    b = bundle("/bin/true")
    head = json.dumps(b.config)
    # valid JSON: the config, then blanks up to one byte over the limit
    data = head[:-1] + " " * (CONFIG_LIMIT + 1 - len(head)) + "}"
    assert len(data) == CONFIG_LIMIT + 1
    b.write_raw(data)
    harness.expect_create_failure(rt, b, cid=rt.new_id("scale-"),
                                  message=["config.json' is 67,108,865 bytes; the limit is 64 MiB"])
    # the same config without the padding runs: the limit is the only reason
    b.write_raw(head)
    res = rt.run(b, rt.new_id("scale-"))
    assert res.rc == 0, res


# ---------------------------------------------------------------------------
# bento run with many write grants


GRANTS = int(os.environ.get("BENTO_SCALE_GRANTS", "300"))


def test_bento_run_with_many_write_grants(test_dir):
    if not os.access(BENTO, os.X_OK):
        pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)
    home = os.path.join(test_dir, "home")
    work = os.path.join(test_dir, "work")
    tmp = os.path.join("/tmp", "scale-run-%d" % os.getpid())
    for d in (home, work, tmp, os.path.join(test_dir, "state")):
        os.makedirs(d)
    for i in range(GRANTS):
        os.makedirs(os.path.join(work, "g", "%04d" % i))
    last = "g/%04d" % (GRANTS - 1)
    with open(os.path.join(work, "s.sh"), "w") as f:
        f.write("wc -l < /proc/self/mountinfo\necho written > %s/out\ncat %s/out\n"
                "echo stray > stray 2>/dev/null; echo escaped > /usr/outside || echo refused\n"
                % (last, last))
    grants = ", ".join('"./g/%04d"' % i for i in range(GRANTS))
    m = os.path.join(work, "m.yaml")
    with open(m, "w") as f:
        f.write("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nwrite: [%s]\n" % grants)
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "XDG_STATE_HOME": os.path.join(test_dir, "state"),
           "TMPDIR": tmp, "LANG": "C"}
    try:
        res = run_cmd([BENTO, "approve", "--yes", m], env=env, cwd=work, timeout=600)
        assert res.rc == 0, res
        t0 = time.monotonic()
        res = run_cmd([BENTO, "run", m], env=env, cwd=work, timeout=1200)
        took = time.monotonic() - t0
        assert res.rc == 0, res
        lines = res.out.split()
        # each grant brings its bind and its workspace shields
        assert int(lines[0]) > 5 * GRANTS, res
        assert lines[1:] == ["written", "refused"], res
        with open(os.path.join(work, last, "out")) as f:
            assert f.read() == "written\n"
        assert not os.path.exists("/usr/outside")
        print("bento run with %d grants (%s mounts): %.1fs" % (GRANTS, lines[0], took))
    finally:
        left = harness.mounts_under(tmp)
        if not left:
            shutil.rmtree(tmp, ignore_errors=True)
    assert not left, left
    # only the grants reach the host: the stray write outside them stayed
    # in the sandbox (approve keeps its journal in XDG_STATE_HOME)
    assert set(os.listdir(work)) == {"g", "s.sh", "m.yaml"}, os.listdir(work)


def test_state_survives_a_mount_name_the_container_made_up(rt, bundle):
    """The mount table `state` shows is the container's own now, and the
    container names its mount points: a name that is not UTF-8 (which JSON
    cannot carry) leaves the table out with a warning; `state` itself, and
    kill and delete after it, still work."""
    b = bundle("/bin/sh", "-c", 'd=$(printf "/dev/shm/\\377"); mkdir "$d" && '
               'mount -t tmpfs t "$d" && echo ok > /dev/shm/ready; exec sleep 600')
    for s in ("bounding", "effective", "permitted"):
        b.process["capabilities"][s].append("CAP_SYS_ADMIN")
    cid, pid = rt.create_ok(b, rt.new_id("scale-"))
    st = rt.state_json(cid)
    assert len(st["bento"]["mounts"]) > 5, st  # before the container mounts
    rt.start_ok(cid)
    harness.wait_for(lambda: os.path.exists("/proc/%d/root/dev/shm/ready" % pid), timeout=20,
                     what="the container's own mount")
    res = rt.state(cid)
    assert res.rc == 0, res
    st = res.json()
    assert st["status"] == "running" and "mounts" not in st["bento"], st
    assert "namespaces" in st["bento"], st
    assert "not UTF-8" in res.err, res
    res = rt.kill(cid, "KILL")
    assert res.rc == 0, res
    assert rt.wait_pid_gone(pid, timeout=20)
    res = rt.delete(cid)
    assert res.rc == 0, res
