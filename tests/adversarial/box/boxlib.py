# SPDX-License-Identifier: Apache-2.0
"""Helpers for the attempts' in-box code (tests/adversarial).

This file runs INSIDE the sandbox, under Debian's python3, with nothing but the
standard library: no pytest, no harness.  Every helper turns an outcome into
plain JSON (ok / errno / data) so the host side can judge it; none of them
raises for an OS error.  The attempts' functions are sent to the box as source
text and executed in this module's namespace, so they can use these names
directly.
"""

import ctypes
import ctypes.util
import errno
import json
import os
import socket
import struct
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

# x86-64 system call numbers the standard library does not wrap
NR = {
    "ptrace": 101, "pivot_root": 155, "chroot": 161, "mount": 165, "umount2": 166, "swapon": 167,
    "reboot": 169, "sethostname": 170, "iopl": 172, "ioperm": 173, "init_module": 175,
    "delete_module": 176, "add_key": 248, "request_key": 249, "keyctl": 250, "unshare": 272,
    "perf_event_open": 298, "name_to_handle_at": 303, "open_by_handle_at": 304, "setns": 308,
    "process_vm_readv": 310, "finit_module": 313, "memfd_create": 319, "execveat": 322,
    "bpf": 321, "userfaultfd": 323, "open_tree": 428, "move_mount": 429, "fsopen": 430,
    "io_uring_setup": 425, "openat2": 437, "pidfd_open": 434, "pidfd_getfd": 438,
    "fchmodat2": 452, "clock_settime": 227, "mknodat": 259, "setxattr": 188, "fsetxattr": 190,
    "kexec_load": 246, "renameat2": 316, "clone3": 435, "chmod": 90, "fchmod": 91, "fchmodat": 268,
    "mknod": 133, "open": 2, "clone": 56, "fork": 57, "vfork": 58, "execve": 59,
}


def ename(e):
    return errno.errorcode.get(e, str(e))


def sc(name, *args):
    """Raw system call: {"ok": True, "ret": n} or {"ok": False, "errno": NAME}."""
    conv = []
    for a in args:
        if isinstance(a, str):
            a = a.encode()
        if isinstance(a, bytes):
            a = ctypes.c_char_p(a)
        elif isinstance(a, int):
            a = ctypes.c_long(a)
        conv.append(a)
    ctypes.set_errno(0)
    ret = libc.syscall(ctypes.c_long(NR[name]), *conv)
    if ret < 0:
        return {"ok": False, "errno": ename(ctypes.get_errno())}
    return {"ok": True, "ret": ret}


def call(fn, *args, **kw):
    """Run fn; {"ok": True, "value": ...} or {"ok": False, "errno": NAME}."""
    try:
        v = fn(*args, **kw)
    except OSError as e:
        return {"ok": False, "errno": ename(e.errno) if e.errno else type(e).__name__, "msg": str(e)[:200]}
    except Exception as e:  # noqa: BLE001 - every outcome becomes data
        return {"ok": False, "errno": type(e).__name__, "msg": str(e)[:200]}
    try:
        json.dumps(v)
    except (TypeError, ValueError):
        v = repr(v)[:500]
    return {"ok": True, "value": v}


def read(path, n=4096):
    """Read a file; the data comes back as text (a secret in it shows)."""
    def go():
        with open(path, "rb") as f:
            return f.read(n).decode("utf-8", "replace")
    r = call(go)
    if r["ok"]:
        r["data"] = r.pop("value")
    return r


def write(path, data="planted by the box\n", mode="w"):
    def go():
        with open(path, mode) as f:
            f.write(data)
        return len(data)
    return call(go)


def listdir(path):
    return call(lambda: sorted(os.listdir(path)))


def connect_unix(path, abstract=False):
    def go():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(3)
        try:
            s.connect(("\0" + path) if abstract else path)
            return "connected"
        finally:
            s.close()
    return call(go)


def connect_tcp(host, port, family=socket.AF_INET):
    def go():
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(3)
        try:
            s.connect((host, port))
            return "connected"
        finally:
            s.close()
    return call(go)


def run_exec(argv, **kw):
    """subprocess.run: the exec outcome (PermissionError under exec: none)."""
    import subprocess

    def go():
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10, **kw)
        return {"rc": p.returncode, "out": p.stdout.decode("utf-8", "replace")[:300]}
    return call(go)


def in_child(fn, timeout=8):
    """Run fn() in a forked child (so a namespace or root change stays
    there) and bring its JSON result back through a pipe.  Where fork is
    refused (exec: none-strict) fn runs in a thread of this process, which
    the process-wide calls then refuse on their own (unshare of a user
    namespace needs a single-threaded caller)."""
    try:
        rfd, wfd = os.pipe()
        pid = os.fork()
    except OSError as e:
        import threading
        box = {}
        t = threading.Thread(target=lambda: box.setdefault("r", _safe(fn)))
        t.start()
        t.join(timeout)
        r = box.get("r", {"ok": False, "errno": "TIMEOUT"})
        if isinstance(r, dict):
            r["fork"] = ename(e.errno)
        return r
    if pid == 0:
        os.close(rfd)
        try:
            data = json.dumps(_safe(fn)).encode()
        except BaseException as e:  # noqa: BLE001
            data = json.dumps({"ok": False, "errno": "child-crash", "msg": repr(e)[:200]}).encode()
        os.write(wfd, data[:60000])
        os._exit(0)
    os.close(wfd)
    chunks = []
    import select
    while True:
        ready, _, _ = select.select([rfd], [], [], timeout)
        if not ready:
            break
        b = os.read(rfd, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(rfd)
    try:
        os.kill(pid, 9)
    except OSError:
        pass
    os.waitpid(pid, 0)
    try:
        return json.loads(b"".join(chunks) or b'{"ok": false, "errno": "no-answer"}')
    except ValueError:
        return {"ok": False, "errno": "bad-answer"}


def _safe(fn):
    try:
        return fn()
    except BaseException as e:  # noqa: BLE001
        return {"ok": False, "errno": type(e).__name__, "msg": str(e)[:200]}


def cbuf(data):
    return ctypes.create_string_buffer(data)


def open_how(flags, mode=0, resolve=0):
    return struct.pack("QQQ", flags, mode, resolve)


def mode_of(path):
    try:
        return os.lstat(path).st_mode
    except OSError as e:
        return ename(e.errno)


def emit(name, result):
    sys.stdout.write("@@ADV " + json.dumps({"name": name, "r": result}) + "\n")
    sys.stdout.flush()
