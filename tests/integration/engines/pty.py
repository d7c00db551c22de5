# SPDX-License-Identifier: Apache-2.0
"""A command on a pseudo-terminal of its own, for the engines' -t tests."""

import fcntl
import os
import pty
import select
import struct
import subprocess
import termios
import time

import harness
from harness import REAPER


def run_on_pty(argv, env, timeout=60):
    """Run argv with a pty as its stdin/stdout/stderr; returns (rc, text)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    try:
        p = harness.spawn(argv, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
    finally:
        os.close(slave)
    data = b""
    deadline = time.monotonic() + timeout
    exited_at = None
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: no slave left open
                    break
                if not chunk:
                    break
                data += chunk
                continue
            if p.poll() is not None:
                exited_at = exited_at or time.monotonic()
                if time.monotonic() - exited_at > 0.5:
                    break
        try:
            rc = p.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            p.wait(timeout=10)
            rc = None
    finally:
        with REAPER.lock:
            REAPER.live.discard(p.pid)
        os.close(master)
    return rc, data.decode("utf-8", "replace").replace("\r\n", "\n")
