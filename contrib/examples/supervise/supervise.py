#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Run a manifest and ask a human about every undeclared destination.

    supervise.py [--record FILE] MANIFEST

Each connection the target makes to a host:port the manifest's `network:`
rules do not allow is put to you on the terminal (/dev/tty): "allow
HOST:PORT? [y/N]".  Only "y" or "yes" admits it; anything else, or no
answer within two minutes, refuses.  Every answer is appended to FILE
(default supervise.log) as "HOST PORT allow|deny", and an answer already in
FILE is used again without asking.  Built on bento's subprocess contract
and network gate (docs/embedding.md); the target's output is copied
through, and the exit status is bento's ($BENTO, else `bento` on PATH).
"""

import base64
import json
import os
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "embed"))
from gate import Gate  # noqa: E402

TIMEOUT = 120


class Supervisor:
    def __init__(self, record):
        self.record = record
        self.known = {}
        self.lock = threading.Lock()
        if os.path.exists(record):
            with open(record) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 3 and parts[2] in ("allow", "deny"):
                        self.known[(parts[0], parts[1])] = parts[2] == "allow"

    def decide(self, host, port):
        with self.lock:
            if (host, port) in self.known:
                return self.known[(host, port)]
            with open("/dev/tty", "r+b", buffering=0) as tty:
                tty.write(("allow %s:%s? [y/N] " % (host, port)).encode())
                answer = tty.readline().decode(errors="replace").strip().lower()
            yes = answer in ("y", "yes")
            self.known[(host, port)] = yes
            with open(self.record, "a") as f:
                f.write("%s %s %s\n" % (host, port, "allow" if yes else "deny"))
            return yes


def main(args):
    record = "supervise.log"
    if len(args) == 3 and args[0] == "--record":
        record, args = args[1], args[2:]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    sup = Supervisor(record)
    with Gate(sup.decide) as g:
        p = subprocess.Popen([os.environ.get("BENTO", "bento"), "run", "--json",
                              "--network-gate", g.path, "--network-gate-timeout", str(TIMEOUT),
                              "--", args[0]], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        final = None
        for line in p.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            if ev.get("event") in ("stdout", "stderr"):
                out = sys.stdout if ev["event"] == "stdout" else sys.stderr
                out.buffer.write(base64.b64decode(ev.get("data", "")))
                out.flush()
            elif final is None and ev.get("event") in ("verdict", "refusal", "failed"):
                final = ev
        rc = p.wait()
    if final and final["event"] != "verdict":
        print("supervise: %s: %s" % (final["event"], final.get("reason", "")), file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
