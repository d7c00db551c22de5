# SPDX-License-Identifier: Apache-2.0
"""A network gate for `bento run --network-gate` (docs/embedding.md, "The
network gate protocol"), shared by the two examples beside this one.

Gate(decide) listens on a unix socket in a fresh private directory and
answers each question of the egress proxy with decide(host, port) -> bool,
from a thread.  Use it as a context manager; .path is the socket to pass.
"""

import os
import shutil
import socket
import tempfile
import threading

GREETING = b"bento-network-gate 1"


class Gate:
    def __init__(self, decide):
        self.decide = decide
        self.dir = tempfile.mkdtemp(prefix="bento-gate-")  # 0700: no one else gets in
        self.path = os.path.join(self.dir, "gate.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        self.sock.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.sock.close()  # accept() in the thread fails and it returns
        shutil.rmtree(self.dir, ignore_errors=True)

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                self._talk(conn.makefile("rwb", buffering=0))

    def _talk(self, f):
        if f.readline().rstrip(b"\n") != GREETING:
            return
        for line in f:
            try:
                qid, host, port = line.decode().split()
            except ValueError:
                return  # not the protocol: hang up (the proxy then denies)
            try:
                yes = bool(self.decide(host, port))
            except Exception:  # a gate that fails refuses, and goes on answering
                yes = False
            f.write(("%s %s\n" % (qid, "allow" if yes else "deny")).encode())
