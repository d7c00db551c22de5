# SPDX-License-Identifier: Apache-2.0
"""Many runtime invocations at once: nothing is lost, doubled or left behind."""

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness import REAPER, mounts_under, proc_alive, proc_children

pytestmark = pytest.mark.timeout(600)

SLOW = 180  # per-command timeout when 50 runtimes share 2 CPUs


def test_fifty_containers_concurrently(rt, bundle):
    n = 50
    bundles = [bundle() for _ in range(n)]
    for b in bundles:
        b.probe("sleep", "120")
        b.save()
    ids = [rt.new_id("cc") for _ in range(n)]

    def lifecycle(i):
        cid, b = ids[i], bundles[i]
        res = rt.create(b, cid, timeout=SLOW)
        if res.rc != 0 or not res.pid:
            return "create %s:\n%s" % (cid, res)
        res = rt.start(cid, timeout=SLOW)
        if res.rc != 0:
            return "start %s:\n%s" % (cid, res)
        res = rt.state(cid, timeout=SLOW)
        if res.rc != 0 or res.json()["status"] != "running":
            return "state %s:\n%s" % (cid, res)
        res = rt.delete(cid, force=True, timeout=SLOW)
        if res.rc != 0:
            return "delete %s:\n%s" % (cid, res)
        return None

    with ThreadPoolExecutor(max_workers=n) as pool:
        errors = [e for e in pool.map(lifecycle, range(n)) if e]
    assert not errors, "%d of %d lifecycles failed; first:\n%s" % (len(errors), n, errors[0])

    assert len(rt.pids) == n
    for cid, (pid, start) in rt.pids.items():
        assert rt.wait_pid_gone(pid, start), "container %s pid %d still alive" % (cid, pid)
    assert not os.path.exists(rt.root) or os.listdir(rt.root) == [], os.listdir(rt.root)
    for b in bundles:
        assert mounts_under(b.path) == []
    res = rt.cmd("list", "-q")
    assert res.rc == 0 and res.out.strip() == "", res


def test_same_id_created_concurrently_only_once(rt, bundle):
    n = 10
    bundles = [bundle() for _ in range(n)]
    for b in bundles:
        b.probe("sleep", "120")
        b.save()
    cid = rt.new_id("same")
    REAPER.reap_now()
    before = set(proc_children(os.getpid()))

    with ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(lambda b: rt.create(b, cid, pid_file=False, timeout=SLOW), bundles))
    assert all(r.rc is not None for r in results), [str(r) for r in results if r.rc is None]
    winners = [r for r in results if r.rc == 0]
    assert len(winners) == 1, "%d creates of one id succeeded" % len(winners)

    st = rt.state_json(cid)
    assert st["status"] == "created"
    pid = st["pid"]
    rt.pids[cid] = (pid, None)
    REAPER.reap_now()
    with REAPER.lock:
        live = set(REAPER.live)
    extra = [p for p in proc_children(os.getpid()) if p not in before and p not in live and proc_alive(p)]
    assert extra == [pid], "expected only the winner's init, found %s" % extra
    assert rt.delete(cid, force=True).rc == 0
    assert rt.wait_pid_gone(pid)


def test_delete_races_kill_and_state(rt, bundle):
    b = bundle()
    b.probe("sleep", "120")
    cid, pid = rt.create_ok(b)
    rt.start_ok(cid)
    calls = [("delete", lambda: rt.delete(cid, force=True, timeout=SLOW))]
    calls += [("kill", lambda: rt.kill(cid, "KILL", timeout=SLOW))] * 4
    calls += [("state", lambda: rt.state(cid, timeout=SLOW))] * 10
    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        futures = [(name, pool.submit(fn)) for name, fn in calls]
        results = [(name, f.result()) for name, f in futures]
    for name, res in results:
        assert res.rc is not None, "%s hung:\n%s" % (name, res)
        if res.rc != 0:
            assert res.err.strip(), "%s failed silently:\n%s" % (name, res)
        if name == "state" and res.rc == 0:
            assert res.json()["status"] in ("running", "stopped"), res
    assert results[0][1].rc == 0, "delete --force lost the race:\n%s" % results[0][1]
    assert rt.wait_pid_gone(pid)
    res = rt.state(cid)
    assert res.rc != 0 and "container does not exist" in res.err, res
    assert not os.path.exists(rt.state_dir(cid))


def test_concurrent_runs_keep_their_exit_codes(rt, bundle):
    n = 20
    bundles = [bundle() for _ in range(n)]
    for i, b in enumerate(bundles):
        b.probe("exit", str(i + 1))

    with ThreadPoolExecutor(max_workers=n) as pool:
        results = list(pool.map(lambda b: rt.run(b, timeout=SLOW), bundles))
    codes = [r.rc for r in results]
    assert codes == list(range(1, n + 1)), [str(r) for r, c in zip(results, range(1, n + 1)) if r.rc != c][:3]
    assert not os.path.exists(rt.root) or os.listdir(rt.root) == [], os.listdir(rt.root)
