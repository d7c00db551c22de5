#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Run a manifest from Python over bento's subprocess contract
(docs/embedding.md): `bento run --json`, its events read line by line.

    embed.py MANIFEST                 plain: the manifest's rules alone
    embed.py --allow HOST MANIFEST    plus a network gate admitting HOST only

The target's output is copied through; then one line per refused
destination and the outcome.  The exit status is bento's ($BENTO, else
`bento` on PATH).
"""

import base64
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gate import Gate  # noqa: E402


def run(manifest, gate_path=None):
    argv = [os.environ.get("BENTO", "bento"), "run", "--json"]
    if gate_path:
        argv += ["--network-gate", gate_path]
    p = subprocess.Popen(argv + ["--", manifest], stdout=subprocess.PIPE,
                         stdin=subprocess.DEVNULL)
    final = None
    for line in p.stdout:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        kind = ev.get("event")
        if kind in ("stdout", "stderr"):
            out = sys.stdout if kind == "stdout" else sys.stderr
            out.buffer.write(base64.b64decode(ev.get("data", "")))
            out.flush()
        elif kind in ("verdict", "refusal", "failed") and final is None:
            final = ev
    rc = p.wait()
    if final is None:
        print("embed: bento said nothing about the outcome", file=sys.stderr)
        return rc
    for key in ("gate_allowed", "gate_denied", "egress_denied", "guard_blocked"):
        for d in final.get(key, []):
            print("embed: %s %s:%s" % (key, d["host"], d["port"]))
    if final["event"] == "verdict":
        print("embed: exit %d" % final["exit_code"])
    else:
        print("embed: %s: %s" % (final["event"], final.get("reason", "")))
    return rc


def main(args):
    allow = None
    if len(args) == 3 and args[0] == "--allow":
        allow, args = args[1], args[2:]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if allow is None:
        return run(args[0])
    with Gate(lambda host, port: host == allow) as g:
        return run(args[0], g.path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
