# SPDX-License-Identifier: Apache-2.0
"""Attempts to start another program where the exec mode forbids it
(docs/exec-gate.md): under `exec: none` every execve/execveat after the
runtime's own start of the interpreter fails with EPERM, for the target and
everything it starts; `none-strict` also refuses fork, vfork and process
clones while threads work.  Under `exec: all` (and in the bundle modes, which
translate `exec: all`) the same calls are the allowed thing, and must work.

So each check asserts, mode by mode: refused where the mode forbids it, working
where the mode allows it.
"""

import os
import ctypes
import json
import struct

from advharness import Group, assert_denied, assert_ok, attempt
# The in-box functions below run in box/boxlib.py's namespace; importing its helpers
# here only names them for readers and linters.
from boxlib import call, ename, run_exec, sc  # noqa: E402

Group("exec", "read: [~], write: [./work]; starting programs under every exec mode")


def exec_outcome(r, run, what):
    """r is the outcome of an exec-like call that prints EXEC-RAN when it works."""
    if run.mode.can_exec:
        assert_ok(r, what)
        v = r["value"]
        assert isinstance(v, dict) and "EXEC-RAN" in v.get("out", "") or v == "EXEC-RAN", "%s: %r" % (what, r)
    else:
        assert not (r.get("ok") and "EXEC-RAN" in str(r.get("value"))), "%s ran under exec: %s: %r" % (
            what, run.mode.exec, r)
        assert_denied(r, what=what)


def _shell_script(c, name, body):
    p = os.path.join(c.work, name)
    with open(p, "w") as f:
        f.write(body)
    os.chmod(p, 0o755)
    return p


@attempt("exec", "exec-copied-binary", "copy /bin/echo into the write grant and exec it with subprocess")
def exec_copied(c):
    import shutil
    p = c.work + "/my-echo"
    shutil.copy("/bin/echo", p)
    os.chmod(p, 0o755)
    return {"run": run_exec([p, "EXEC-RAN"])}


@exec_copied.check
def _(r, run):
    exec_outcome(r["run"], run, "a copied binary")


@attempt("exec", "exec-system-binary", "subprocess.run(['/bin/echo']), os.system, os.posix_spawn")
def exec_system(c):
    def spawn():
        pid = os.posix_spawn("/bin/echo", ["echo", "EXEC-RAN"], {})
        return {"rc": os.waitpid(pid, 0)[1], "out": "EXEC-RAN"}
    return {"run": run_exec(["/bin/echo", "EXEC-RAN"]), "spawn": call(spawn)}


@exec_system.check
def _(r, run):
    exec_outcome(r["run"], run, "subprocess of /bin/echo")
    if run.mode.can_exec:
        assert_ok(r["spawn"], "posix_spawn")
    else:
        assert_denied(r["spawn"], what="posix_spawn")


@attempt("exec", "exec-memfd", "memfd_create, copy /bin/echo into it, execveat(fd, '', AT_EMPTY_PATH) in a "
         "child (fileless exec)")
def exec_memfd(c):
    def go():
        r = sc("memfd_create", "x", 0)
        if not r["ok"]:
            return r
        fd = r["ret"]
        with open("/bin/echo", "rb") as f:
            os.write(fd, f.read())
        argv = (ctypes.c_char_p * 3)(b"echo", b"EXEC-RAN", None)
        envp = (ctypes.c_char_p * 1)(None)
        return sc("execveat", fd, "", argv, envp, 0x1000)  # AT_EMPTY_PATH; returns only on failure
    return {"run": _exec_in_child(go)}


def _exec_in_child(go):
    """Fork, run go() (an exec) in the child with stdout on a pipe; the
    parent reads what the program printed.  Under none-strict the fork
    itself is refused, which is reported as such."""
    import select
    try:
        rfd, wfd = os.pipe()
        pid = os.fork()
    except OSError as e:
        return {"ok": False, "errno": ename(e.errno), "msg": "fork"}
    if pid == 0:
        os.dup2(wfd, 1)
        r = go()
        os.write(1, ("FAILED %s" % json.dumps(r)).encode())
        os._exit(1)
    os.close(wfd)
    data = b""
    while select.select([rfd], [], [], 8)[0]:
        b = os.read(rfd, 4096)
        if not b:
            break
        data += b
    os.close(rfd)
    os.waitpid(pid, 0)
    text = data.decode("utf-8", "replace")
    if text.startswith("FAILED "):
        return json.loads(text[7:])
    return {"ok": True, "value": {"out": text}}


exec_memfd.source += "\n" + __import__("inspect").getsource(_exec_in_child)


@exec_memfd.check
def _(r, run):
    exec_outcome(r["run"], run, "execveat of a memfd")


@attempt("exec", "exec-ldso", "run a copied binary through the dynamic loader: /lib64/ld-linux-x86-64.so.2 "
         "./my-echo (no exec bit needed on the program)")
def exec_ldso(c):
    import shutil
    p = c.work + "/noexec-echo"
    shutil.copy("/bin/echo", p)
    os.chmod(p, 0o644)
    return {"run": run_exec(["/lib64/ld-linux-x86-64.so.2", p, "EXEC-RAN"])}


@exec_ldso.check
def _(r, run):
    exec_outcome(r["run"], run, "the dynamic loader")


@attempt("exec", "exec-shebang", "write a #!/bin/sh script into the grant and exec it; a #!/usr/bin/python3 one")
def exec_shebang(c):
    sh = _shell_script(c, "s.sh", "#!/bin/sh\necho EXEC-RAN\n")
    py = _shell_script(c, "s.py", "#!/usr/bin/python3\nprint('EXEC-RAN')\n")
    return {"sh": run_exec([sh]), "py": run_exec([py])}


exec_shebang.source += "\n" + __import__("inspect").getsource(_shell_script)


@exec_shebang.check
def _(r, run):
    exec_outcome(r["sh"], run, "a shell script")
    exec_outcome(r["py"], run, "a python script")


@attempt("exec", "exec-python-c", "subprocess of python3 -c, and of the interpreter through /proc/self/exe")
def exec_python_c(c):
    return {"c": run_exec(["/usr/bin/python3", "-c", "print('EXEC-RAN')"]),
            "self": run_exec(["/proc/self/exe", "-c", "print('EXEC-RAN')"])}


@exec_python_c.check
def _(r, run):
    exec_outcome(r["c"], run, "python3 -c")
    exec_outcome(r["self"], run, "/proc/self/exe")


@attempt("exec", "exec-raw-execve-thread", "raw execve from a thread and execveat with an O_PATH descriptor of "
         "/bin/echo")
def exec_raw_thread(c):
    import threading
    box = {}

    def t():
        argv = (ctypes.c_char_p * 3)(b"echo", b"EXEC-RAN", None)
        envp = (ctypes.c_char_p * 1)(None)
        box["execveat"] = sc("execveat", os.open("/bin/echo", os.O_PATH), "", argv, envp, 0x1000)

    def go():
        threading.Thread(target=t).start()
        import time
        time.sleep(2)
        return box.get("execveat", {"ok": False, "errno": "no-answer"})
    return {"run": _exec_in_child(go)}


exec_raw_thread.source += "\n" + __import__("inspect").getsource(_exec_in_child)


@exec_raw_thread.check
def _(r, run):
    exec_outcome(r["run"], run, "execveat from a thread")


@attempt("exec", "fork-and-threads", "os.fork, raw vfork/clone3, and threads (threads always work; processes "
         "are refused only under none-strict)")
def fork_threads(c):
    import threading
    out = {}

    def fork():
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    out["fork"] = call(fork)
    args = ctypes.create_string_buffer(88)  # struct clone_args, exit_signal SIGCHLD
    struct.pack_into("Q", args, 32, 17)
    r = sc("clone3", args, 88)
    if r["ok"] and r["ret"] == 0:
        os._exit(0)
    if r["ok"]:
        os.waitpid(r["ret"], 0)
    out["clone3"] = r
    box = []
    ts = [threading.Thread(target=lambda: box.append(1)) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out["threads"] = len(box)
    return out


@fork_threads.check
def _(r, run):
    assert r["threads"] == 4, "threads must work in every mode: %r" % r
    if run.mode.can_fork:
        assert r["fork"] == {"ok": True, "value": 7}, r["fork"]
    else:
        assert_denied(r["fork"], "EPERM", what="fork under none-strict")
        assert_denied(r["clone3"], "ENOSYS", what="clone3 under none-strict")


def _read_to_end(fd):
    """Everything until EOF on fd, which is then closed."""
    data = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    os.close(fd)
    return data


@attempt("exec", "exec-orphan-of-the-init", "fork twice and let the middle process exit, so the grandchild "
         "is reparented to process 1 (bento-init) and becomes its direct child, then exec from it: the gate's "
         "allowance for the init's child was spent on the target's own start")
def exec_orphan(c):
    def go():
        r, w = os.pipe()
        mid = os.fork()
        if mid == 0:
            os.close(r)
            if os.fork() == 0:
                import time
                for _ in range(100):  # wait until the middle process is gone
                    if os.getppid() != os.getpid() and os.getppid() == 1:
                        break
                    time.sleep(0.02)
                parent = os.getppid()
                res = run_exec(["/bin/echo", "EXEC-RAN"])
                res["parent"] = parent
                os.write(w, json.dumps(res).encode())
                os._exit(0)
            os._exit(0)
        os.close(w)
        os.waitpid(mid, 0)
        data = _read_to_end(r)
        return json.loads(data.decode()) if data else {"ok": False, "errno": "no-answer"}
    return {"run": call(go)}


exec_orphan.source += "\n" + __import__("inspect").getsource(_read_to_end)


@exec_orphan.check
def _(r, run):
    outer = r["run"]
    if not run.mode.can_fork:
        return  # none-strict refuses the forks themselves (exec-strict attempts say so)
    assert_ok(outer, "the double fork")
    inner = outer["value"]
    exec_outcome({k: v for k, v in inner.items() if k != "parent"}, run, "an orphan of the init")


@attempt("exec", "exec-clone-parent", "raw clone(CLONE_PARENT) so the new process is a direct child of "
         "process 1 (bento-init), as the target-to-be is, then exec from it; and the raw fork call")
def exec_clone_parent(c):
    def go():
        r, w = os.pipe()
        res = sc("clone", 0x8000 | 17, 0, 0, 0, 0)  # CLONE_PARENT | SIGCHLD
        if res["ok"] and res["ret"] == 0:
            os.close(r)
            os.dup2(w, 1)
            argv = (ctypes.c_char_p * 3)(b"/bin/echo", b"EXEC-RAN", None)
            envp = (ctypes.c_char_p * 1)(None)
            e = sc("execve", b"/bin/echo", argv, envp)
            os.write(w, json.dumps({"exec": e, "ppid": os.getppid()}).encode())
            os._exit(0)
        os.close(w)
        if not res["ok"]:
            os.close(r)
            return {"clone": res}
        data = _read_to_end(r)
        return {"clone": res, "child": data.decode("utf-8", "replace")}
    out = {"run": call(go)}
    r = sc("fork")  # the raw call, not glibc's clone-based fork()
    if r["ok"] and r["ret"] == 0:
        os._exit(0)
    if r["ok"]:
        os.waitpid(r["ret"], 0)
    out["fork"] = r
    return out


exec_clone_parent.source += "\n" + __import__("inspect").getsource(_read_to_end)


@exec_clone_parent.check
def _(r, run):
    v = r["run"]
    assert_ok(v, "the clone attempt")
    v = v["value"]
    if not run.mode.can_fork:
        assert_denied(v["clone"], "EPERM", what="clone(CLONE_PARENT) under none-strict")
        assert_denied(r["fork"], "EPERM", what="raw fork under none-strict")
        return
    assert v["clone"]["ok"], v
    assert r["fork"]["ok"], r
    ran = "EXEC-RAN" in v["child"]
    if run.mode.can_exec:
        assert ran, "exec from a CLONE_PARENT child must work under exec: %s: %r" % (run.mode.exec, v)
    else:
        assert not ran, "a direct child of the init made by CLONE_PARENT could exec: %r" % v
        assert '"errno": "EPERM"' in v["child"], v
