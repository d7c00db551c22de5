# SPDX-License-Identifier: Apache-2.0
"""libbento-embed (docs/embedding.md, "The C library"): `make install` into
a DESTDIR puts the header, the shared and static libraries and bento.pc in
place; a C program (tests/embed/embed-test.c) is compiled against that
install with `pkg-config --cflags --libs bento`, as an embedder would, and
run: validation lists every problem with its place, and a run drives the
installed bento with a network gate callback (one host admitted, one
refused, as the proxy asked) and an observer that sees the target's output,
the refused destination and the verdict.
"""

import glob
import os
import shutil
import subprocess

import pytest

import harness
from harness import run_cmd
from test_bento_run import net, world  # noqa: F401  (the fixtures)

pytestmark = [pytest.mark.timeout(300)]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    dest = str(tmp_path_factory.mktemp("dest"))
    # the check-debug tree is built with SANITIZE=1: what links against its
    # library needs the sanitizer runtimes too
    sanitized = harness.SANITIZER_SLOWDOWN > 1
    san = ["-fsanitize=address,undefined"] if sanitized else []
    r = run_cmd(["make", "-s", "-C", ROOT, "BUILDDIR=" + harness.BUILD, "DESTDIR=" + dest,
                 "PREFIX=/usr", "install"] + (["SANITIZE=1"] if sanitized else []), timeout=280)
    assert r.rc == 0, r
    pc_env = dict(os.environ, PKG_CONFIG_SYSROOT_DIR=dest,
                  PKG_CONFIG_PATH=os.path.join(dest, "usr/lib/pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "bento"], env=pc_env,
                           capture_output=True, text=True, check=True).stdout.split()
    exe = os.path.join(dest, "embed-test")
    static = os.path.join(dest, "embed-test-static")
    subprocess.run(["cc", "-Wall", "-Wextra", "-Werror", "-o", exe,
                    os.path.join(ROOT, "tests/embed/embed-test.c")] + san + flags, check=True)
    sflags = subprocess.run(["pkg-config", "--static", "--cflags", "--libs", "bento"], env=pc_env,
                            capture_output=True, text=True, check=True).stdout.split()
    # the static build: the archive instead of the shared library, by name
    subprocess.run(["cc", "-Wall", "-Wextra", "-Werror", "-o", static,
                    os.path.join(ROOT, "tests/embed/embed-test.c")] + san
                   + ["-l:libbento-embed.a" if f == "-lbento-embed" else f for f in sflags],
                   check=True)
    yield {"dest": dest, "exe": exe, "static": static,
           "env": {"LD_LIBRARY_PATH": os.path.join(dest, "usr/lib"),
                   "BENTO": os.path.join(dest, "usr/bin/bento")}}
    shutil.rmtree(dest, ignore_errors=True)


def test_install_lays_out_the_library(installed):
    d = os.path.join(installed["dest"], "usr")
    for f in ("include/bento/bento.h", "lib/libbento-embed.a", "lib/libbento-embed.so",
              "lib/libbento-embed.so.0", "lib/pkgconfig/bento.pc"):
        assert os.path.exists(os.path.join(d, f)), f
    so = os.path.realpath(os.path.join(d, "lib/libbento-embed.so"))
    dyn = subprocess.run(["readelf", "-d", so], capture_output=True, text=True).stdout
    assert "Library soname: [libbento-embed.so.0]" in dyn
    syms = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True).stdout
    exported = sorted(l.split()[-1].split("@")[0] for l in syms.splitlines() if " T " in l)
    # bento.h's functions and nothing else (no internal bento_json_*, bento_err_*)
    assert exported == ["bento_embed_version", "bento_result_done", "bento_run",
                        "bento_run_options_init", "bento_validate", "bento_validation_free"]
    # the static build does not need the shared library
    needed = subprocess.run(["readelf", "-d", installed["static"]], capture_output=True,
                            text=True).stdout
    assert "libbento-embed" not in needed


def embed(world, installed, *args, wrap=(), static=False):
    env = dict(world.env)
    env.update(installed["env"])
    exe = installed["static" if static else "exe"]
    return run_cmd(list(wrap) + [exe] + list(args), env=env, cwd=world.work, timeout=90)


@pytest.mark.parametrize("static", [False, True])
def test_validation_lists_every_problem_at_its_place(world, installed, static):
    bad = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: maybe\nnetwork:\n"
                         "  - {host: \"a b\", port: \"443\"}\n", script="exit 0\n", name="bad.yaml")
    r = embed(world, installed, "validate", bad, static=static)
    assert r.rc == 0, r
    lines = r.out.splitlines()
    assert "loaded 0" in lines, r
    problems = [l for l in lines if l.startswith("problem ")]
    assert len(problems) == 2, r
    assert problems[0].startswith("problem 3:7 ") and "exec" in problems[0], r
    assert problems[1].startswith("problem 5:") and "a b" in problems[1], r

    good = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\n", script="exit 0\n")
    r = embed(world, installed, "validate", good, static=static)
    assert r.out.splitlines()[1:] == ["loaded 1", "approved 0"], r
    world.approve(good)
    r = embed(world, installed, "validate", good, static=static)
    assert r.out.splitlines()[1:] == ["loaded 1", "approved 1"], r


def test_a_run_with_gate_and_observer(world, net, installed):
    world.probe()
    m = world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nread: [./bento-probe]\n",
                       script=("./bento-probe proxy-connect 192.0.2.2:7777 via-library\n"
                               "./bento-probe proxy-connect 198.51.100.7:443\n"
                               "./bento-probe proxy-connect 127.0.0.1:9\n"
                               "exit 3\n"))
    world.approve(m)
    r = embed(world, installed, "run", m, "192.0.2.2", wrap=net.wrap())
    assert r.rc == 0, r
    lines = r.out.splitlines()
    assert [l for l in lines if l.startswith("asked ")] == ["asked 192.0.2.2 7777",
                                                           "asked 198.51.100.7 443"], r
    out = "".join(l[len("stdout "):] for l in lines if l.startswith("stdout "))
    assert '{"status":200,"echo":"via-library"}' in out, r
    assert "denial gate_denied 198.51.100.7 443" in lines, r
    assert "denial egress_denied 127.0.0.1 9" in lines, r  # refused unasked
    assert lines[-2:] == ["verdict 3", "result 3"], r
    # the gate's private directory and socket are gone with the run
    assert not glob.glob(os.path.join(world.tmp, "bento-gate-*")), os.listdir(world.tmp)

    # unapproved: a refusal, the target never ran, the gate never asked
    world.manifest("entrypoint: ./s.sh\ninterpreter: sh\nexec: none\nread: [./bento-probe]\n")
    r = embed(world, installed, "run", m, "192.0.2.2", wrap=net.wrap())
    lines = r.out.splitlines()
    assert lines[-2:] == ["refusal 125", "result 125"], r
    assert not [l for l in lines if l.startswith(("asked", "stdout"))], r
