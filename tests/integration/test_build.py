# SPDX-License-Identifier: Apache-2.0
"""How the programs are linked (Makefile, "Link mode"; README, "Building").

  * the binaries of $BENTO_BUILD are linked as its link-mode file says:
    with STATIC=1 none of them needs the shared yajl, libseccomp, libcap,
    libyaml or libcrypto, and every program has libc in it too and needs
    no library at all (a SANITIZE=1 build, whose programs need the
    sanitizer runtimes, keeps libc shared); with STATIC=0 each needs the
    ones it uses;
  * bento-systemd-scope, which bento-runtime runs for --systemd-cgroup,
    is the exception: linked shared in every mode, and the only program
    that needs libsystemd;
  * STATIC=1 with an archive missing stops before linking, naming the
    archive and the Debian package that ships it, and STATIC=0 does not
    need it; any other value of STATIC is refused.

The make runs are dry (-n) with a compiler wrapper that pretends one
archive is not installed: nothing is built and nothing is written.
Needs binutils (readelf).
"""

import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.abspath(os.environ.get("BENTO_BUILD", os.path.join(ROOT, "build")))

# The libraries the mode is about, by soname prefix, and which program
# uses which (what a shared link makes each binary need).
SANITIZER_RUNTIMES = ("libasan.so", "libubsan.so", "liblsan.so")
LIBS = ("libyajl.so", "libseccomp.so", "libcap.so", "libyaml-0.so", "libcrypto.so")
USES = {
    "bento-runtime": ("libyajl.so", "libseccomp.so", "libcap.so"),
    "bento": ("libyajl.so", "libyaml-0.so", "libcrypto.so"),
    "bento-exec-gate": ("libyajl.so", "libseccomp.so"),
    "bento-egress": ("libyajl.so",),
    "bento-observe": (),
}


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, **kw)


def needed(path):
    r = run(["readelf", "--dynamic", "--wide", path])
    assert r.returncode == 0, r.stderr
    return [line.split("[", 1)[1].rstrip("]") for line in r.stdout.splitlines() if "(NEEDED)" in line]


def link_mode():
    path = os.path.join(BUILD, "link-mode")
    assert os.path.exists(path), "%s is missing: the Makefile writes it with every link" % path
    with open(path) as f:
        mode = f.read().strip()
    assert mode in ("static", "shared"), mode
    return mode


def libc_inside(mode):
    """STATIC=1 puts libc into the programs, unless this is a sanitizer
    build (its runtime needs the dynamic loader; bento-runtime shows it)."""
    runtime = needed(os.path.join(BUILD, "bin", "bento-runtime"))
    return mode == "static" and not any(lib.startswith(SANITIZER_RUNTIMES) for lib in runtime)


@pytest.mark.parametrize("program", sorted(USES))
def test_binaries_are_linked_as_the_mode_says(program):
    mode = link_mode()
    path = os.path.join(BUILD, "bin", program)
    assert os.path.exists(path), "not built: %s" % path
    libs = needed(path)
    if libc_inside(mode):
        assert libs == [], "%s is linked with libc in it yet needs %s" % (program, libs)
        return
    assert "libc.so.6" in libs, libs
    linked = [lib for lib in libs if lib.startswith(LIBS)]
    if mode == "static":
        assert linked == [], "%s is linked statically yet needs %s" % (program, linked)
    else:
        for want in USES[program]:
            assert any(lib.startswith(want) for lib in linked), \
                "%s is linked shared yet does not need %s: %s" % (program, want, libs)


def test_only_the_scope_helper_links_libsystemd():
    """bento-systemd-scope needs libsystemd and libc, shared in either mode
    (a static libc cannot load libsystemd); no other program needs
    libsystemd, so none but it pays for loading it."""
    bindir = os.path.join(BUILD, "bin")
    helper = needed(os.path.join(bindir, "bento-systemd-scope"))
    assert any(lib.startswith("libsystemd.so") for lib in helper), helper
    assert "libc.so.6" in helper, helper
    others = {p: needed(os.path.join(bindir, p)) for p in sorted(os.listdir(bindir))
              if p != "bento-systemd-scope"}
    assert "bento-runtime" in others, sorted(others)
    linking = [p for p, libs in others.items() if any(lib.startswith("libsystemd") for lib in libs)]
    assert linking == [], linking


def test_the_observer_needs_only_libc():
    """bento-observe runs inside the sandbox: libc and nothing else, in
    either mode (Makefile, HOOKS_LIBC_ONLY), and with libc in it not even
    that."""
    # the sanitizer build (make check-debug) adds its own runtimes
    libs = [lib for lib in needed(os.path.join(BUILD, "bin", "bento-observe"))
            if not lib.startswith(SANITIZER_RUNTIMES)]
    assert libs == ([] if libc_inside(link_mode()) else ["libc.so.6"]), libs


def test_the_observers_library_needs_nothing():
    """bento-observe-shim.so is preloaded into whatever program bento profile
    watches: it names no library (not even libc, whose functions it finds in
    the program's), exports only what it stands in for, and carries no
    sanitizer or stack protector even in a sanitizer build."""
    path = os.path.join(BUILD, "lib", "bento", "bento-observe-shim.so")
    assert needed(path) == []
    r = run(["nm", "-D", "--defined-only", path])
    assert r.returncode == 0, r.stderr
    exported = sorted(line.split()[-1] for line in r.stdout.splitlines())
    assert exported == sorted(["__open64_2", "__open_2", "__openat64_2", "__openat_2", "access",
                               "fstatat", "fstatat64", "lstat", "lstat64", "open", "open64",
                               "openat", "openat64", "stat", "stat64"]), exported
    r = run(["nm", "-D", "--undefined-only", path])
    undefined = sorted(line.split()[-1] for line in r.stdout.splitlines())
    assert not [u for u in undefined if u.startswith(("__asan", "__ubsan", "__stack_chk"))], \
        undefined


@pytest.fixture
def no_seccomp_archive(tmp_path):
    """A compiler that answers like gcc without libseccomp.a installed."""
    cc = tmp_path / "cc"
    cc.write_text('#!/bin/sh\ncase "$1" in\n-print-file-name=libseccomp.a) echo libseccomp.a ;;\n'
                  '*) exec cc "$@" ;;\nesac\n')
    cc.chmod(0o755)
    return str(cc)


def dry_make(tmp_path, cc, *args):
    out = tmp_path / "build"
    return run(["make", "-n", "-C", ROOT, "BUILDDIR=" + str(out), "CC=" + cc] + list(args)
               + [str(out / "bin" / "bento-runtime")])


def test_static_link_without_an_archive_stops_and_names_it(tmp_path, no_seccomp_archive):
    r = dry_make(tmp_path, no_seccomp_archive, "STATIC=1")
    assert r.returncode != 0, r.stdout
    assert "STATIC=1: libseccomp.a is not installed; Debian's libseccomp-dev ships it" in r.stderr, r.stderr
    assert "STATIC=0" in r.stderr
    # control: the same machine links shared without the archive
    r = dry_make(tmp_path, no_seccomp_archive, "STATIC=0")
    assert r.returncode == 0, r.stderr
    link = [line for line in r.stdout.splitlines() if " -o " + str(tmp_path / "build" / "bin") in line]
    assert len(link) == 1 and "-lseccomp" in link[0] and ".a" not in link[0].split("libbento.a")[1], link
    assert not (tmp_path / "build").exists(), "a dry run wrote files"


def test_the_default_is_static(tmp_path):
    r = run(["make", "-n", "-C", ROOT, "BUILDDIR=" + str(tmp_path / "build"),
             str(tmp_path / "build" / "bin" / "bento-runtime")])
    assert r.returncode == 0, r.stderr
    link = [line for line in r.stdout.splitlines() if " -o " + str(tmp_path / "build" / "bin") in line]
    assert len(link) == 1 and "/libseccomp.a" in link[0] and "-lseccomp" not in link[0], link


def test_other_values_of_static_are_refused(tmp_path):
    r = run(["make", "-n", "-C", ROOT, "BUILDDIR=" + str(tmp_path / "build"), "STATIC=yes"])
    assert r.returncode != 0
    assert 'STATIC must be 1 (static libraries) or 0 (shared ones), not "yes"' in r.stderr, r.stderr


def _link_line(tmp_path, program, *args):
    r = run(["make", "-n", "-C", ROOT, "BUILDDIR=" + str(tmp_path / "build")] + list(args)
            + [str(tmp_path / "build" / "bin" / program)])
    assert r.returncode == 0, r.stderr
    link = [line for line in r.stdout.splitlines() if " -o " + str(tmp_path / "build" / "bin") in line]
    assert len(link) == 1, link
    return link[0].split()


def test_libc_goes_in_where_nothing_is_loaded_at_run_time(tmp_path):
    """STATIC=1 links bento, bento-runtime and the hook programs with
    -static-pie, but not bento-systemd-scope (it links libsystemd), nor
    anything under the sanitizers (which need the dynamic loader), nor with
    STATIC=0."""
    assert "-static-pie" in _link_line(tmp_path, "bento")
    assert "-static-pie" in _link_line(tmp_path, "bento-exec-gate")
    assert "-static-pie" in _link_line(tmp_path, "bento-runtime")
    helper = _link_line(tmp_path, "bento-systemd-scope")
    assert "-static-pie" not in helper and "-pie" in helper and "-lsystemd" in helper, helper
    for args in (("STATIC=0",), ("SANITIZE=1",)):
        for program in ("bento", "bento-runtime"):
            line = _link_line(tmp_path, program, *args)
            assert "-static-pie" not in line and "-pie" in line, (args, line)


def test_init_needs_nothing_not_even_a_loader():
    """bento-init is built without libc in every mode (Makefile, "bento-init"):
    position independent, yet no library, no interpreter and not one
    relocation (nothing runs before its _start to apply one), and no
    sanitizer or stack protector even in a sanitizer build."""
    path = os.path.join(BUILD, "bin", "bento-init")
    assert needed(path) == []
    r = run(["readelf", "--file-header", "--program-headers", "--relocs", "--wide", path])
    assert r.returncode == 0, r.stderr
    assert "DYN (Position-Independent Executable file)" in r.stdout, r.stdout
    assert "INTERP" not in r.stdout, r.stdout
    assert "There are no relocations in this file." in r.stdout, r.stdout
    r = run(["nm", path])
    assert r.returncode == 0, r.stderr
    symbols = [line.split()[-1] for line in r.stdout.splitlines()]
    assert "_start" in symbols
    assert not [s for s in symbols if s.startswith(("__asan", "__ubsan", "__stack_chk", "__libc"))], \
        symbols
    assert not [line for line in r.stdout.splitlines() if line.split()[0] == "U"], r.stdout


@pytest.mark.parametrize("args", [(), ("STATIC=0",), ("SANITIZE=1",), ("STATIC=0", "SANITIZE=1")])
def test_init_is_built_the_same_in_every_mode(tmp_path, args):
    r = run(["make", "-n", "-C", ROOT, "BUILDDIR=" + str(tmp_path / "build")] + list(args)
            + [str(tmp_path / "build" / "bin" / "bento-init")])
    assert r.returncode == 0, r.stderr
    lines = [line.split() for line in r.stdout.splitlines()]
    compiles = [line for line in lines if "-c" in line and "-o" in line
                and "/obj-init/" in line[line.index("-o") + 1]]
    links = [line for line in lines if "-o" in line and line[line.index("-o") + 1].endswith("bento-init.tmp")]
    assert compiles and len(links) == 1, r.stdout
    for line in compiles:
        assert "-ffreestanding" in line and "-fno-stack-protector" in line, line
        assert not [f for f in line if f.startswith("-fsanitize")], line
    assert "-nostdlib" in links[0] and "-static-pie" in links[0], links[0]
    assert not [f for f in links[0] if f.startswith("-fsanitize") or f.startswith("-l")], links[0]
