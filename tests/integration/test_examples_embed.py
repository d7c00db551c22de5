# SPDX-License-Identifier: Apache-2.0
"""contrib/examples/embed and contrib/examples/supervise (docs/embedding.md):
Python driving `bento run --json` over the subprocess contract.  embed.py
plain (the manifest's rules alone) and with a gate admitting one host;
supervise.py under a pseudo-terminal, where the test types the human's
answers: yes to one destination, no to another, and the record file keeps
both, so that a second run asks nothing.
"""

import glob
import os
import pty
import select
import signal
import sys
import time

import pytest

import harness
from harness import REAPER, run_cmd
from test_bento_run import BENTO, net, world  # noqa: F401  (the fixtures)

pytestmark = [pytest.mark.timeout(120)]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EMBED = os.path.join(ROOT, "contrib/examples/embed/embed.py")
SUPERVISE = os.path.join(ROOT, "contrib/examples/supervise/supervise.py")

MANIFEST = """\
entrypoint: ./s.sh
interpreter: sh
exec: all
read: [./bento-probe]
network:
  - {host: 203.0.113.9, port: "443"}
"""
SCRIPT = ("./bento-probe proxy-connect 192.0.2.2:7777 hello\n"
          "./bento-probe proxy-connect 198.51.100.7:443\n")


def project(world):
    world.probe()
    m = world.manifest(MANIFEST, script=SCRIPT)
    world.approve(m)
    return m


def env(world):
    e = dict(world.env)
    e["BENTO"] = BENTO
    return e


def test_embed_plain_and_with_a_gate(world, net):
    m = project(world)
    r = run_cmd(net.wrap() + [sys.executable, EMBED, m], env=env(world), cwd=world.work,
                timeout=60)
    assert r.rc == 0, r
    assert '"status":200' not in r.out, r  # no rule for the echo server: refused
    assert "embed: egress_denied 192.0.2.2:7777" in r.out, r
    assert "embed: exit 0" in r.out

    r = run_cmd(net.wrap() + [sys.executable, EMBED, "--allow", "192.0.2.2", m], env=env(world),
                cwd=world.work, timeout=60)
    assert r.rc == 0, r
    assert '{"status":200,"echo":"hello"}' in r.out, r  # the gate let it through
    assert "embed: gate_allowed 192.0.2.2:7777" in r.out, r
    assert "embed: gate_denied 198.51.100.7:443" in r.out, r
    assert not glob.glob(os.path.join(world.tmp, "bento-gate-*")), os.listdir(world.tmp)


def _drive(argv, env, cwd, answers, limit=60):
    """Run argv on a pty; for each (prompt, reply) wait for prompt, type reply.
    Returns (exit status, everything the terminal showed)."""
    # registered with the session's orphan reaper before it can exit, so
    # that the reaper thread leaves its status to the waitpid below
    with REAPER.lock:
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        REAPER.live.add(pid)
    seen, end = b"", time.monotonic() + limit
    pending = list(answers)
    try:
        while time.monotonic() < end:
            r, _, _ = select.select([fd], [], [], 0.5)
            if r:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    break
                if not data:
                    break
                seen += data
            if pending and pending[0][0].encode() in seen:
                os.write(fd, pending.pop(0)[1].encode())
                seen += b"\n<answered>\n"
        _, status = os.waitpid(pid, 0)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        with REAPER.lock:
            REAPER.live.discard(pid)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), seen.decode(errors="replace")


def test_supervise_asks_the_human_and_records(world, net):
    m = project(world)
    record = os.path.join(world.dir, "answers.log")
    argv = net.wrap() + [sys.executable, SUPERVISE, "--record", record, m]
    argv[0] = "/usr/bin/nsenter"
    rc, seen = _drive(argv, env(world), world.work,
                      [("allow 192.0.2.2:7777? [y/N]", "y\n"),
                       ("allow 198.51.100.7:443? [y/N]", "n\n")])
    assert rc == 0, seen
    assert '{"status":200,"echo":"hello"}' in seen, seen
    assert '"status":403' in seen, seen
    with open(record) as f:
        assert f.read() == "192.0.2.2 7777 allow\n198.51.100.7 443 deny\n"

    # the answers are remembered: nothing is asked the second time
    rc, seen = _drive(argv, env(world), world.work, [])
    assert rc == 0, seen
    assert "[y/N]" not in seen, seen
    assert '{"status":200,"echo":"hello"}' in seen and '"status":403' in seen, seen
