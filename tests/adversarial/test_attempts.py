# SPDX-License-Identifier: Apache-2.0
"""Every escape attempt under every mode (advharness.MODES): one test per
attempt and mode, plus one per group and mode for what the run left on the
host.  The attempts live in attempts_*.py; a group's attempts share one
sandbox per mode (advharness.Session.run_for), so only the first test of a
group pays for its run.

    BENTO_BUILD=$PWD/build /usr/bin/python3 -m pytest -q -rA tests/adversarial -k setuid-chmod
"""

import pytest

import advharness
import attempts_exec  # noqa: F401 - the imports register the attempts
import attempts_kernel  # noqa: F401
import attempts_limits  # noqa: F401
import attempts_reach  # noqa: F401
import attempts_secrets  # noqa: F401
import attempts_workspace  # noqa: F401
from advharness import GROUPS, REGISTRY

CELLS = [(a.name, m) for a in REGISTRY.values() for m in a.modes]
RUNS = sorted({(a.name if a.solo else a.group, m, a.group) for a in REGISTRY.values() for m in a.modes},
              key=lambda t: (t[0], advharness.MODE_NAMES.index(t[1])))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name,mode", CELLS, ids=["%s.%s-%s" % (REGISTRY[c[0]].group, c[0], c[1]) for c in CELLS])
def test_attempt(adv, request, name, mode):
    a = REGISTRY[name]
    request.node.adv_row = (name, mode, a.desc)
    print("[adv] %s under %s: %s" % (name, mode, a.desc))
    run = adv.run_for(a, mode)
    advharness.judge(a, run)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("key,mode,group", RUNS, ids=["%s-%s" % r[:2] for r in RUNS])
def test_run_left_nothing(adv, request, key, mode, group):
    """After the run of a group (or of a solo attempt): no process, mount,
    /dev/shm entry, setuid file, secret in the output, change to the home
    outside the write grants, or killed host canary."""
    request.node.adv_row = ("%s:left-nothing" % key, mode, "host state after the run of %s (%s)" % (
        key, GROUPS[group].desc))
    a = REGISTRY[key] if key in REGISTRY else next(x for x in REGISTRY.values() if x.group == key and not x.solo)
    run = adv.run_for(a, mode)
    assert not run.problems, "the run of %s left:\n%s\n%s" % (run.describe(), "\n".join(run.problems), run.res)
