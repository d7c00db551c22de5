# SPDX-License-Identifier: Apache-2.0
"""The adversarial suite's entrypoint: runs INSIDE the sandbox.

argv[1] is a JSON plan the host wrote (read-only to the box): the facts the
attempts need (paths, the secret marker, host pids and ports) and the attempts
themselves as source text.  Each attempt runs in turn with a time limit; its
JSON result goes to stdout on one "@@ADV " line, so one box answers for a whole
group of attempts and a crash or a hang costs only that attempt.
"""

import json
import os
import signal
import sys
import types

# boxlib.py sits beside the plan (the entrypoint itself is a copy of this
# file placed inside a write grant, so that its read-only re-bind is tested)
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[1])))
import boxlib  # noqa: E402


class Alarm(Exception):
    pass


def on_alarm(signum, frame):
    raise Alarm("attempt timed out")


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    ctx = types.SimpleNamespace(**plan["ctx"])
    signal.signal(signal.SIGALRM, on_alarm)
    for a in plan["attempts"]:
        ns = dict(vars(boxlib))
        ns["ctx"] = ctx
        signal.alarm(a.get("timeout", 15))
        try:
            exec(compile(a["source"], "<attempt %s>" % a["name"], "exec"), ns)
            result = ns[a["func"]](ctx)
        except Alarm:
            result = {"crash": "timeout"}
        except BaseException as e:  # noqa: BLE001 - every outcome is reported
            result = {"crash": "%s: %s" % (type(e).__name__, str(e)[:300])}
        finally:
            signal.alarm(0)
        boxlib.emit(a["name"], result)
    sys.stdout.write("@@ADV-DONE\n")


main()
