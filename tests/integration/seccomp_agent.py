# SPDX-License-Identifier: Apache-2.0
"""A small seccomp user-notification agent for the integration tests.

It listens on a unix stream socket (linux.seccomp.listenerPath), takes one
connection, and reads what the runtime sends there: the "container process
state" JSON and, in the same message (SCM_RIGHTS), the seccomp listener fd.
Then it answers notifications: the first --allow notifications are let
through (SECCOMP_USER_NOTIF_FLAG_CONTINUE), later ones fail with --errno.
After --deny-max denials it closes the listener (from then on the kernel
fails the gated calls with ENOSYS) and creates --gone.

Everything it learns goes to --report as JSON, rewritten after every
event: {"state": ..., "fds": N, "notifications": [{"nr", "pid", "answer"}],
"closed": bool, "error": str?}.  --ready is created once the socket
listens.  Every wait is bounded by --timeout.

    python3 seccomp_agent.py --socket S --report R --ready F [--allow 1]
        [--errno 1] [--deny-max N] [--gone G] [--timeout 60]
"""

import argparse
import errno
import fcntl
import json
import os
import select
import socket
import struct
import sys
import time

# <linux/seccomp.h>: struct seccomp_notif is 80 bytes on 64-bit (id, pid,
# flags, then struct seccomp_data: nr, arch, ip, args[6]); the response is
# 24 bytes (id, val, error, flags).  _IOWR('!', nr, type).
NOTIF_FMT = "=QIIiIQ6Q"
RESP_FMT = "=QqiI"
IOC_WRITE_READ = 3


def _iowr(nr, size):
    return (IOC_WRITE_READ << 30) | (size << 16) | (ord("!") << 8) | nr


SECCOMP_IOCTL_NOTIF_RECV = _iowr(0, struct.calcsize(NOTIF_FMT))
SECCOMP_IOCTL_NOTIF_SEND = _iowr(1, struct.calcsize(RESP_FMT))
SECCOMP_USER_NOTIF_FLAG_CONTINUE = 1


class Agent:
    def __init__(self, opts):
        self.opts = opts
        self.report = {"state": None, "fds": 0, "notifications": [], "closed": False}
        self.deadline = time.monotonic() + opts.timeout

    def left(self):
        return max(0.0, self.deadline - time.monotonic())

    def save(self):
        tmp = self.opts.report + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.report, f)
        os.replace(tmp, self.opts.report)

    def receive(self, conn):
        """The one message: JSON text, the listener fd alongside; the rest
        of the text (if any) until the runtime closes the socket."""
        conn.settimeout(self.left())
        data, fds, _, _ = socket.recv_fds(conn, 65536, 4)
        while True:
            more = conn.recv(65536)
            if not more:
                break
            data += more
        self.report["fds"] = len(fds)
        self.report["state"] = json.loads(data.decode())
        self.save()
        if len(fds) != 1:
            raise RuntimeError("expected one fd, got %d" % len(fds))
        return fds[0]

    def answer(self, fd, allowed):
        buf = bytearray(struct.calcsize(NOTIF_FMT))  # must be zeroed
        try:
            fcntl.ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, buf, True)
        except OSError as e:
            if e.errno == errno.ENOENT:  # the caller went away meanwhile
                return None
            raise
        nid, pid, _, nr = struct.unpack_from(NOTIF_FMT, buf)[:4]
        if allowed:
            resp = struct.pack(RESP_FMT, nid, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE)
            what = "continue"
        else:
            resp = struct.pack(RESP_FMT, nid, 0, -self.opts.errno, 0)
            what = "errno %d" % self.opts.errno
        try:
            fcntl.ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, bytearray(resp), True)
        except OSError as e:
            if e.errno != errno.ENOENT:
                raise
        self.report["notifications"].append({"nr": nr, "pid": pid, "answer": what})
        self.save()
        return what

    def serve(self, fd):
        allowed = denied = 0
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while self.left() > 0:
            if self.opts.deny_max is not None and denied >= self.opts.deny_max:
                break
            events = poller.poll(min(self.left(), 0.5) * 1000)
            if not events:
                continue
            if events[0][1] & select.POLLHUP:  # no task uses the filter any more
                break
            what = self.answer(fd, allowed < self.opts.allow)
            if what == "continue":
                allowed += 1
            elif what is not None:
                denied += 1
        os.close(fd)
        self.report["closed"] = True
        self.save()
        if self.opts.gone:
            with open(self.opts.gone, "w") as f:
                f.write("closed\n")

    def run(self):
        if os.path.lexists(self.opts.socket):
            os.unlink(self.opts.socket)
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(self.opts.socket)
        srv.listen(1)
        self.save()
        with open(self.opts.ready, "w") as f:
            f.write("%d\n" % os.getpid())
        srv.settimeout(self.left())
        conn, _ = srv.accept()
        srv.close()
        with conn:
            fd = self.receive(conn)
        self.serve(fd)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--socket", required=True)
    p.add_argument("--report", required=True)
    p.add_argument("--ready", required=True)
    p.add_argument("--allow", type=int, default=1)
    p.add_argument("--errno", type=int, default=errno.EPERM)
    p.add_argument("--deny-max", type=int, default=None)
    p.add_argument("--gone", default=None)
    p.add_argument("--timeout", type=float, default=60.0)
    opts = p.parse_args()
    agent = Agent(opts)
    try:
        agent.run()
    except Exception as e:  # the report says what went wrong
        agent.report["error"] = "%s: %s" % (type(e).__name__, e)
        agent.save()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
