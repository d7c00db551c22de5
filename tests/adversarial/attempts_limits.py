# SPDX-License-Identifier: Apache-2.0
"""Attempts to exhaust the host (limits: processes, memory, the box's /tmp)
and to read credentials through second names the host already has (a hard
link, a bind mount) in a granted tree, which the credential-alias scan must
refuse (bento-manifest(5), LIMITS; issue 14, "Also": /tmp gets a default size
cap).
"""

import os

from advharness import Group, assert_denied, attempt
# The in-box functions below run in box/boxlib.py's namespace; importing its helpers
# here only names them for readers and linters.
from boxlib import ename, read  # noqa: E402

import harness

Group("limits", "read: [~], write: [./work], limits: {pids: 64, memory: 256M, tmp: 64M}",
      limits={"pids": 64, "memory": "256M", "tmp": "64M"})

TMP_CAP = 64 << 20  # the group's limits.tmp (the 1 GiB default is an integration test's)


@attempt("limits", "thread-bomb", "start threads until the pids cap stops them (bounded at 300)")
def thread_bomb(c):
    import threading
    stop = threading.Event()
    n, err = 0, None
    ts = []
    try:
        for _ in range(300):
            t = threading.Thread(target=stop.wait)
            t.start()
            ts.append(t)
            n += 1
    except RuntimeError as e:
        err = str(e)
    stop.set()
    for t in ts:
        t.join()
    return {"started": n, "error": err}


@thread_bomb.check
def _(r, run):
    assert r["started"] < 64, "the pids cap did not stop threads: %r" % r
    assert r["started"] >= 4, "threads must still work under the cap: %r" % r


@attempt("limits", "fork-bomb", "fork children until the pids cap (or none-strict) stops them (bounded at 300)")
def fork_bomb(c):
    import signal as sg
    kids, err = [], None
    for _ in range(300):
        try:
            pid = os.fork()
        except OSError as e:
            err = ename(e.errno)
            break
        if pid == 0:
            sg.pause()
            os._exit(0)
        kids.append(pid)
    for k in kids:
        os.kill(k, 9)
        os.waitpid(k, 0)
    return {"forked": len(kids), "errno": err}


@fork_bomb.check
def _(r, run):
    assert r["forked"] < 64, "the pids cap did not stop fork: %r" % r
    if not run.mode.can_fork:
        assert r["forked"] == 0 and r["errno"] == "EPERM", r


@attempt("limits", "tmp-size-cap", "fill the box's /tmp: it must have the manifest's size cap (64M) and "
         "writing twice the cap must end in ENOSPC", timeout=60)
def tmp_cap(c):
    st = os.statvfs("/tmp")
    size = st.f_blocks * st.f_frsize
    out = {"size": size}
    if size > (128 << 20):  # twice the group's limits.tmp (the box sees only this function)
        out["note"] = "uncapped: not filled"
        return out
    chunk = b"\0" * (1 << 20)
    written = 0
    try:
        with open("/tmp/fill", "wb") as f:
            while written < 2 * size:
                f.write(chunk)
                written += len(chunk)
            f.flush()
    except OSError as e:
        out["errno"] = ename(e.errno)
    out["written"] = written
    os.unlink("/tmp/fill")
    return out


@tmp_cap.check
def _(r, run):
    assert r["size"] == TMP_CAP, "the box's /tmp is not capped at limits.tmp: %d bytes (%s)" % (
        r["size"], r.get("note"))
    assert r.get("errno") == "ENOSPC" and r["written"] <= r["size"] + (1 << 20), r


@attempt("limits", "memory-hog", "allocate and touch 512 MiB under a 256M memory cap: the kernel must stop it "
         "(MemoryError or the run killed for the cap)", solo=True, killed_ok=True, timeout=60)
def memory_hog(c):
    try:
        b = b"\x01" * (512 << 20)
        return {"allocated": len(b)}
    except MemoryError:
        return {"allocated": 0, "error": "MemoryError"}


@memory_hog.check
def _(r, run):
    assert r["allocated"] == 0, "512 MiB was allocated under a 256M cap: %r" % r


# ---------------------------------------------------------------------------
# second names for credentials, made on the host before the run


def setup_aliases(w):
    os.link(os.path.join(w.home, ".ssh", "id_ed25519"), os.path.join(w.work, "key-link"))
    bind = os.path.join(w.proj, "aws-bind")
    os.makedirs(bind)
    assert harness._libc.mount(os.path.join(w.home, ".aws").encode(), bind.encode(), None, 4096, None) == 0
    w.session.cleanup_mounts.append(bind)


Group("alias", "read: [~], write: [./work]; the host has a hard link work/key-link to ~/.ssh/id_ed25519 and "
      "~/.aws bind-mounted at proj/aws-bind", setup=setup_aliases)


@attempt("alias", "alias-hardlink-key", "read ~/.ssh/id_ed25519 through a host-made hard link in the write "
         "grant", refusal_ok=True)
def alias_hardlink(c):
    return {"read": read(c.work + "/key-link")}


@alias_hardlink.check
def _(r, run):
    assert_denied(r["read"], what="the hard link (the run should have been refused)")


@attempt("alias", "alias-bind-mount", "read ~/.aws/credentials through a host bind mount inside the read "
         "grant", refusal_ok=True)
def alias_bind(c):
    return {"read": read(c.proj + "/aws-bind/credentials")}


@alias_bind.check
def _(r, run):
    assert_denied(r["read"], what="the bind alias (the run should have been refused)")
