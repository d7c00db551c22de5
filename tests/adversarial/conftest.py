# SPDX-License-Identifier: Apache-2.0
"""Fixtures for bento's adversarial suite (tests/adversarial).

Run as root with Debian's interpreter:

    BENTO_BUILD=/abs/build /usr/bin/python3 -m pytest -q tests/adversarial

The session machinery is the integration suite's, imported rather than
copied: a private mount namespace, the child subreaper and its reaper thread,
the per-test wall clock, the scratch directories and the runtime fixture
(tests/integration/conftest.py).  On top of it this file keeps one
advharness.Session (the host bait and the cached group runs) and prints, at the
end, the table of every attempt under every mode.
"""

import importlib.util
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
INTEGRATION = os.path.join(os.path.dirname(HERE), "integration")
sys.path.insert(0, INTEGRATION)
sys.path.insert(0, HERE)

_spec = importlib.util.spec_from_file_location("bento_integration_conftest",
                                               os.path.join(INTEGRATION, "conftest.py"))
_it = importlib.util.module_from_spec(_spec)
sys.modules["bento_integration_conftest"] = _it
_spec.loader.exec_module(_it)

# the integration suite's hooks and fixtures, as this directory's own
pytest_configure = _it.pytest_configure
pytest_collection_modifyitems = _it.pytest_collection_modifyitems
pytest_sessionstart = _it.pytest_sessionstart
pytest_report_header = _it.pytest_report_header
pytest_runtest_call = _it.pytest_runtest_call
binaries = _it.binaries
session_dir = _it.session_dir
rootfs_template = _it.rootfs_template
test_dir = _it.test_dir
rt = _it.rt
bundle = _it.bundle
_privilege_check = _it._privilege_check

import advharness  # noqa: E402

_state = {"session": None, "rows": {}}


def pytest_sessionfinish(session, exitstatus):
    if _state["session"] is not None:
        _state["session"].close()
    _it.pytest_sessionfinish(session, exitstatus)


@pytest.fixture(scope="session")
def adv(binaries, session_dir):
    for tool in ("runc", "crun", "git"):
        assert advharness.shutil.which(tool), "%s is not installed (contrib/install-deps.sh)" % tool
    if not os.access(advharness.BENTO, os.X_OK):
        pytest.fail("not built: %s (set BENTO_BUILD)" % advharness.BENTO, pytrace=False)
    s = advharness.Session(session_dir)
    _state["session"] = s
    return s


# -- the attempt x mode table ---------------------------------------------

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    row = getattr(item, "adv_row", None)  # (attempt, mode, description), set by the test
    if row is None:
        return
    name, mode, desc = row
    key = (name, mode)
    if rep.when == "call" or (rep.when == "setup" and rep.failed):
        _state["rows"][key] = ("pass" if rep.passed else "FAIL", desc)
    elif rep.when == "teardown" and rep.failed:
        _state["rows"][key] = ("FAIL", desc)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    rows = _state["rows"]
    if not rows:
        return
    modes = [m for m in advharness.MODE_NAMES if any(k[1] == m for k in rows)]
    others = sorted({k[1] for k in rows} - set(modes))
    modes += others
    names = []
    for k in rows:
        if k[0] not in names:
            names.append(k[0])
    tr = terminalreporter
    tr.section("adversarial attempts x modes")
    width = max(len(n) for n in names)
    tr.write_line("%-*s  %s" % (width, "attempt", "  ".join("%-10s" % m for m in modes)))
    failed = 0
    for n in names:
        cells = []
        for m in modes:
            v = rows.get((n, m))
            cells.append("%-10s" % (v[0] if v else "-"))
            failed += bool(v and v[0] != "pass")
        tr.write_line("%-*s  %s" % (width, n, "  ".join(cells)))
    tr.write_line("")
    tr.write_line("what each attempt tried:")
    seen = set()
    for n in names:
        desc = next(v[1] for k, v in rows.items() if k[0] == n)
        if n not in seen:
            seen.add(n)
            tr.write_line("  %-*s  %s" % (width, n, desc))
    tr.write_line("")
    tr.write_line("%d attempts, %d cells, %d not holding" % (len(names), len(rows), failed))
