# SPDX-License-Identifier: Apache-2.0
"""`make bench` still works: bench/run.sh with the smallest settings.

The benchmark's numbers are reported, never asserted (docs/performance.md);
what is asserted here is that the benchmark itself runs on this machine and
writes a whole report: every runtime in every measurement with a number, the
manifest rows, the profile rows, the nine targets each with a verdict, and the check that
nothing (containers, cgroups, mounts, processes) was left behind.  It also
refuses to run without root and without a built runtime, and says why.

Two timed runs per command in one round and four containers for the
throughput: about five seconds.  The run gets a build directory of its own
(its bin/ is the real build's) and no BENCH_DIR or BENCH_RESULTS, so the test
also shows where the benchmark writes by default: the report and the scratch
bundle land under that build directory, and nothing in the source tree
(bench/results/ is not kept in git).
"""

import os
import pathlib
import re
import shutil
import tempfile

import pytest

import harness

BUILD = os.path.abspath(os.environ.get("BENTO_BUILD", "build"))
ROOT_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN_SH = os.path.join(ROOT_DIR, "bench", "run.sh")

SMALLEST = {"BENCH_RUNS": "2", "BENCH_ROUNDS": "1", "BENCH_WARMUP": "0", "BENCH_RSS_N": "1",
            "BENCH_TP_N": "4", "BENCH_TP_PARALLEL": "2", "BENCH_TP_RUNS": "1",
            "BENCH_EXTRA_MOUNTS": "0", "BENCH_MOUNTS_RUNS": "1", "BENCH_SCALE_RUNS": "1"}

TARGETS = ["run /bin/true ≤ 0.7 × crun", "run /bin/true ≤ 1.3 × bwrap (floor)",
           "create+start+delete ≤ 0.7 × crun",
           "run /bin/true with limits ≤ 0.7 × crun with limits",
           "create+start+delete with limits ≤ 0.7 × crun with limits",
           "peak RSS of run ≤ crun's", "bento run end to end ≤ 2 × bubblewrap by hand",
           "bento translate of the small manifest ≤ 0.5 × bubblewrap by hand",
           "bento translate of the large manifest ≤ 1.5 × bubblewrap by hand",
           "bento translate of 10,000 write grants < 1 s",
           "bento profile ≤ 3 × bento run of the same program"]


def bench_env(tmp, **extra):
    env = dict(os.environ)
    env.setdefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
    env.update(SMALLEST)
    env.update(BENCH_DIR=str(tmp / "scratch"), BENCH_RESULTS=str(tmp / "results"))
    env.update(extra)
    return env


def table_rows(report, heading):
    """The cells of every data row of the first table after heading."""
    part = report.split(heading, 1)
    assert len(part) == 2, "no section %r in the report" % heading
    rows = []
    for line in part[1].split("\n## ", 1)[0].splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows[1:]  # the header row


def number(cell):
    return re.fullmatch(r"\d+(\.\d+)?", cell) is not None


def source_tree_files():
    """Every file under bench/ (tracked or not), with its size and mtime."""
    found = {}
    for top, _, files in os.walk(os.path.join(ROOT_DIR, "bench")):
        for f in files:
            st = os.lstat(os.path.join(top, f))
            found[os.path.join(top, f)] = (st.st_size, st.st_mtime_ns)
    return found


@pytest.fixture
def short_dir():
    """A directory with a short path: the benchmark's deepest unix socket
    (the exec gate's, in a translated bundle under the scratch directory)
    must fit in sun_path's 107 bytes, which pytest's own tmp_path can
    exceed (the benchmark refuses a scratch directory that deep; see
    test_refused_when_the_scratch_is_too_deep)."""
    d = pathlib.Path(tempfile.mkdtemp(prefix="bb-", dir="/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.timeout(480)
def test_a_whole_report_from_the_smallest_run(short_dir):
    tmp_path = short_dir
    build = tmp_path / "build"
    build.mkdir()
    (build / "bin").symlink_to(os.path.join(BUILD, "bin"))
    env = bench_env(tmp_path)
    del env["BENCH_DIR"], env["BENCH_RESULTS"]
    before = source_tree_files()
    res = harness.run_cmd([RUN_SH, str(build)], timeout=460, env=env)
    assert res.rc == 0, res
    # Everything under the build directory given, nothing in the source tree.
    assert source_tree_files() == before
    assert not os.path.exists(os.path.join(ROOT_DIR, "bench", "results"))
    assert (build / "bench" / "scratch" / "plain" / "config.json").is_file()
    assert not (tmp_path / "results").exists() and not (tmp_path / "scratch").exists()
    reports = sorted((build / "bench" / "results").glob("*.md"))
    assert len(reports) == 1, reports
    report = reports[0].read_text()
    stem = reports[0].with_suffix("")
    assert (stem / "db.tsv").stat().st_size > 0

    times = {(r[0], r[1].strip("*")): r for r in table_rows(report, "## Time per command")}
    times.update({(r[0], r[1].strip("*")): r
                  for r in table_rows(report, "### With a memory (64 MiB) and a pids (64) limit")})
    for suffix in ("", " (limits)"):
        for what in ("run /bin/true", "create", "start", "delete -f", "create+start+delete -f"):
            for runtime in ("bento-runtime", "crun", "runc"):
                row = times.get((what + suffix, runtime))
                assert row and number(row[2]), (what + suffix, runtime, row)
        assert number(times[("run /bin/true" + suffix, "bento-runtime")][6].rstrip("×"))
    assert number(times[("run /bin/true", "bwrap (floor)")][2])

    rss = {(r[0], r[1].strip("*")) for r in table_rows(report, "## Peak RSS") if number(r[2])}
    for what in ("run /bin/true", "create", "start", "delete -f"):
        for runtime in ("bento-runtime", "crun", "runc"):
            assert (what, runtime) in rss, (what, runtime)

    tput = {r[0].strip("*"): r for r in table_rows(report, "## Throughput")}
    for runtime in ("bento-runtime", "crun", "runc"):
        assert runtime in tput and number(tput[runtime][3]), tput

    cli = table_rows(report, "## The manifest CLI")
    assert len(cli) == 4 and all(number(r[1]) for r in cli), cli

    scaling = table_rows(report, "## Translate and the number of write grants")
    assert [r[0] for r in scaling] == ["1000", "2000", "5000", "10000"], scaling
    assert all(number(r[1]) and r[5].endswith("×") for r in scaling), scaling
    assert scaling[0][5] == "1.00×", scaling

    watched = table_rows(report, "## Watching a program")
    assert len(watched) == 4 and all(number(r[1]) for r in watched), watched
    assert watched[1][5] == "1.00×", watched

    targets = {r[0]: r for r in table_rows(report, "## Targets")}
    assert sorted(targets) == sorted(TARGETS), sorted(targets)
    for name, row in targets.items():
        assert row[2] in ("met", "**not met**"), row
        assert re.search(r"→ \d+\.\d\d×|^\d+\.\d\d ms$", row[1]), row

    left = report.split("## Left behind", 1)[1]
    assert left.lstrip().startswith("Nothing:"), left


def test_refused_without_root(tmp_path):
    os.chmod(tmp_path, 0o755)
    res = harness.run_cmd(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                           RUN_SH, BUILD], timeout=60, env=bench_env(tmp_path))
    assert res.rc == 1, res
    assert "must run as root" in res.err, res.err
    assert not (tmp_path / "results").exists()


def test_refused_without_a_built_runtime(tmp_path):
    empty = tmp_path / "no-build"
    empty.mkdir()
    res = harness.run_cmd([RUN_SH, str(empty)], timeout=120, env=bench_env(tmp_path))
    assert res.rc == 1, res
    assert "bento-runtime missing (make first)" in res.err, res.err
    assert not (tmp_path / "results").exists()


def test_refused_when_the_scratch_is_too_deep(tmp_path):
    """A scratch directory whose bundle's gate socket would not fit a unix
    socket address is refused up front, saying what to do, before anything
    is measured or written."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    res = harness.run_cmd([RUN_SH, BUILD], timeout=120,
                          env=bench_env(tmp_path, BENCH_DIR=str(deep)))
    assert res.rc == 1, res
    assert "too deep for a unix socket path" in res.err + res.out, res
    assert "set BENCH_DIR to a shorter one" in res.err + res.out, res
    assert not (tmp_path / "results").exists() or not any((tmp_path / "results").iterdir())
