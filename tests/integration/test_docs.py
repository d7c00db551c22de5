# SPDX-License-Identifier: Apache-2.0
"""The manual pages and `--help` (docs/README.md, "How the manual pages are
made"): one source per page, docs/cli/*.md and docs/manifest.md.

  * every verb in the command table has a page, and `bento <verb> --help`
    prints exactly the text docs/gen-docs.py makes from it;
  * the usage line a usage mistake prints and the summary `bento --help`
    lists are the page's synopsis and summary, and bento(1) lists every verb;
  * the committed roff pages are what their sources make, and every page in
    docs/man renders without a warning;
  * every flag in a verb's table (cmd_<verb>_opts in translate/cli/cmd-<verb>.c,
    what bundle/argv.c parses) is in its page, every flag a page documents is
    accepted, and the page and the table agree on which flags take a value;
  * the manifest reference's example loads, and a script passed instead of
    a manifest is pointed at bento-manifest(5);
  * `make install` puts the section 1 and 5 pages in place, and every program
    it installs has a page (bento-egress(1) and bento-exec-gate(1) come from
    docs/hooks/*.md, bento-systemd-scope(1) from docs/runtime/, like the
    verb pages but without a --help of `bento`);
  * nothing cites a specification outside the repository, and every cited
    docs section exists.

Needs $BENTO_BUILD/bin/bento, python3, man-db and groff (contrib/install-deps.sh).
"""

import os
import re
import shutil
import subprocess
import sys

import pytest

import harness

BUILD = os.path.abspath(os.environ.get("BENTO_BUILD", "build"))
BENTO = os.path.join(BUILD, "bin", "bento")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "docs", "gen-docs.py")
CLI = os.path.join(ROOT, "docs", "cli")
MANDIR = os.path.join(ROOT, "docs", "man")
HOOKS_DOC = os.path.join(ROOT, "docs", "hooks")
RUNTIME_DOC = os.path.join(ROOT, "docs", "runtime")
SOURCES = sorted(os.path.join(CLI, f) for f in os.listdir(CLI) if f.endswith(".md")) + \
    sorted(os.path.join(HOOKS_DOC, f) for f in os.listdir(HOOKS_DOC) if f.endswith(".md")) + \
    sorted(os.path.join(RUNTIME_DOC, f) for f in os.listdir(RUNTIME_DOC) if f.endswith(".md")) + \
    [os.path.join(ROOT, "docs", "manifest.md")]


def run(args, **kw):
    # through the harness: conftest's reaper thread would otherwise steal the
    # exit status of a plain subprocess child and report 0
    return harness.completed_run(args, timeout=60, **kw)


def bento(*args, **kw):
    return run([BENTO] + list(args), **kw)


def gen(*args):
    r = run([sys.executable, GEN] + list(args))
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(scope="module", autouse=True)
def built():
    if not os.access(BENTO, os.X_OK):
        pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)


def table():
    """The verbs and summaries of the command table, as `bento --help` lists them."""
    r = bento("--help")
    assert r.returncode == 0
    lines = r.stdout.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    rows = [re.fullmatch(r"  (\S+) +(.+)", l).groups() for l in lines]
    assert rows
    return dict(rows)


VERBS = sorted(table()) if os.access(BENTO, os.X_OK) else []


def page(verb):
    return os.path.join(CLI, "bento-%s.md" % verb)


def section(text, title):
    """The body of '## title' in a page source."""
    m = re.search(r"^## %s\n(.*?)(?=^## |\Z)" % re.escape(title), text, re.M | re.S)
    assert m, "no section %s" % title
    return m.group(1)


# -- --help ---------------------------------------------------------------------

@pytest.mark.parametrize("verb", VERBS)
def test_help_is_the_page(verb):
    assert os.path.exists(page(verb)), "the verb %s has no page: write docs/cli/bento-%s.md" % (
        verb, verb)
    want = gen("help", page(verb))
    for args in ([verb, "--help"], [verb, "-h"], [verb, "x.yaml", "--help"]):
        r = bento(*args)
        assert r.returncode == 0, args
        assert r.stderr == ""
        assert r.stdout == want, "bento %s: rebuild bento (the help is generated)" % " ".join(args)


@pytest.mark.parametrize("verb", VERBS)
def test_usage_line_and_summary_are_the_page(verb):
    synopsis = gen("synopsis", page(verb)).splitlines()
    r = bento(verb, "--no-such-flag")
    assert r.returncode == 125
    usage = [l[len("usage: "):] for l in r.stderr.splitlines() if l.startswith("usage: ")]
    assert usage == [synopsis[0]], "the table's use line in commands.c differs from the page"
    assert table()[verb] == gen("summary", page(verb)).strip(), \
        "the table's summary in commands.c differs from the page's NAME line"


def test_overview_lists_every_verb():
    with open(os.path.join(CLI, "bento.md")) as f:
        commands = section(f.read(), "COMMANDS")
    listed = {}
    for m in re.finditer(r"^- `([a-z-]+)`:\n((?:  .*\n)+)", commands, re.M):
        listed[m.group(1)] = " ".join(m.group(2).split())
    rows = table()
    assert sorted(listed) == sorted(rows)
    for verb, summary in rows.items():
        assert listed[verb].startswith(summary + "."), verb


def test_top_level_help_names_the_manual():
    for args in (["--help"], ["-h"], ["help"], []):
        r = bento(*args)
        assert r.returncode == 0
        assert "bento(1)" in r.stdout and "bento-manifest(5)" in r.stdout


# -- the pages --------------------------------------------------------------------

def test_committed_pages_are_what_the_sources_make():
    r = run([sys.executable, GEN, "check", MANDIR] + SOURCES)
    assert r.returncode == 0, r.stderr


def test_every_source_has_its_page():
    names = set(os.listdir(MANDIR))
    for src in SOURCES:
        first = open(src).readline()
        m = re.match(r"# ([a-z-]+)\(([1-8])\) -- ", first)
        assert m, src
        assert "%s.%s" % m.groups() in names


@pytest.mark.parametrize("name", sorted(os.listdir(MANDIR)))
def test_page_renders_without_warnings(name):
    path = os.path.join(MANDIR, name)
    if not shutil.which("man") or not shutil.which("groff"):
        pytest.fail("man-db and groff are needed: run contrib/install-deps.sh", pytrace=False)
    r = run(["man", "--warnings", "-E", "UTF-8", "-l", path], env=dict(os.environ, MANWIDTH="80"))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "NAME" in r.stdout
    r = run(["groff", "-man", "-t", "-ww", "-z", path])
    assert r.returncode == 0 and r.stderr == "", r.stderr


# -- flags --------------------------------------------------------------------------

# A row of a verb's flag table (bundle/argv.h): {"name", 'c' or 0, BENTO_OPT_KIND, ...}
TABLE_ROW = re.compile(r'\{"([a-z][a-z0-9-]*)", *(?:\'(.)\'|0), *BENTO_OPT_(FLAG|VALUE|BOOL),')


def table_rows(verb):
    """[(name, short, kind)] of the table cmd_<verb>_opts in translate/cli/cmd-<verb>.c,
    the one list of what the verb parses."""
    with open(os.path.join(ROOT, "translate", "cli", "cmd-%s.c" % verb)) as f:
        src = f.read()
    m = re.search(r"const struct bento_opt cmd_%s_opts\[\] = \{(.*?)\n\};" % verb, src, re.S)
    assert m, "translate/cli/cmd-%s.c has no table cmd_%s_opts" % (verb, verb)
    return TABLE_ROW.findall(m.group(1))


def parsed_flags(verb):
    """The flags the verb's table names: --name, and -c for a short one."""
    flags = set()
    for name, short, _ in table_rows(verb):
        flags.add("--" + name)
        if short:
            flags.add("-" + short)
    return flags


def documented(verb):
    """[(flag, needs_value, glued)] for each flag named in the OPTIONS terms."""
    with open(page(verb)) as f:
        options = section(f.read(), "OPTIONS")
    out = []
    for m in re.finditer(r"^- (.*):$", options, re.M):
        for alt in m.group(1).split(", "):
            c = re.match(r"`(-[^`]*)`( ?\*[^*]+\*)?$", alt)
            assert c, "%s: an option term must be `--flag`, optionally with *value*: %s" % (
                verb, alt)
            flag = c.group(1)
            if flag == "--":
                continue
            out.append((flag.rstrip("="), bool(c.group(2)), flag.endswith("=")))
    return out


@pytest.mark.parametrize("verb", VERBS)
def test_every_parsed_flag_is_documented(verb):
    names = {f for f, _, _ in documented(verb)}
    missing = sorted(parsed_flags(verb) - names)
    assert not missing, "the table in translate/cli/cmd-%s.c has %s, which docs/cli/bento-%s.md does not " \
        "document" % (verb, missing, verb)
    assert {"-h", "--help"} <= names


@pytest.mark.parametrize("verb", VERBS)
def test_documented_values_are_the_tables(verb):
    """A flag the page shows with a value is one the table gives a value,
    and the other way round."""
    takes = {}
    for name, short, kind in table_rows(verb):
        takes["--" + name] = kind == "VALUE"
        if short:
            takes["-" + short] = kind == "VALUE"
    for flag, needs_value, glued in documented(verb):
        if flag in takes:
            assert takes[flag] == (needs_value or glued), (verb, flag)


@pytest.mark.parametrize("verb", VERBS)
def test_every_documented_flag_is_parsed(verb, tmp_path):
    """Each documented flag, given with a value when it takes one, gets past
    the parser (the manifest does not exist, so nothing runs)."""
    known = parsed_flags(verb) | {"-h", "--help"}
    positional = {"version": [], "doctor": []}.get(verb, [str(tmp_path / "none.yaml")])
    required = ["-o", str(tmp_path / "b")] if verb == "translate" else []
    for flag, needs_value, glued in documented(verb):
        assert flag in known, "docs/cli/bento-%s.md documents %s, which the table in " \
            "translate/cli/cmd-%s.c does not have" % (verb, flag, verb)
        if flag in ("-h", "--help"):
            continue
        args = [flag + "=" + "x"] if glued else [flag] + (["ID_1"] if needs_value else [])
        r = bento(verb, *positional, *required, *args, cwd=str(tmp_path))
        assert "unknown flag" not in r.stderr, (args, r.stderr)


# -- words that point at the pages ------------------------------------------------------

def test_script_instead_of_manifest_points_at_the_reference(tmp_path):
    script = tmp_path / "build.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    for verb in ("validate", "run"):
        r = bento(verb, str(script))
        assert r.returncode == 125
        assert "looks like a script, not a manifest" in r.stderr
        assert "man 5 bento-manifest" in r.stderr


def test_manifest_reference_example_loads(tmp_path):
    with open(os.path.join(ROOT, "docs", "manifest.md")) as f:
        example = section(f.read(), "EXAMPLE")
    yaml = example.split("```\n", 2)[1]
    (tmp_path / "build.manifest.yaml").write_text(yaml)
    (tmp_path / "build.sh").write_text("#!/bin/sh\n")
    r = bento("validate", "--json", str(tmp_path / "build.manifest.yaml"),
              env=dict(os.environ, HOME=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    assert '"exec": "all"' in r.stdout


def test_install_puts_every_page_in_place(tmp_path):
    dest = tmp_path / "dest"
    r = run(["make", "-s", "-C", ROOT, "-o", "all", "install", "BUILDDIR=" + BUILD,
             "DESTDIR=" + str(dest), "PREFIX=/usr"])
    assert r.returncode == 0, r.stderr
    man = dest / "usr" / "share" / "man"
    for name in os.listdir(MANDIR):
        assert (man / ("man" + name.rsplit(".", 1)[1]) / name).exists(), name
    assert (man / "man5" / "bento-manifest.5").exists()
    assert (man / "man1" / "bento-run.1").exists()
    # every program `make install` puts in bin/ has its page in man1/
    programs = sorted(os.listdir(dest / "usr" / "bin"))
    assert "bento-egress" in programs and "bento-exec-gate" in programs, programs
    missing = [p for p in programs if not (man / "man1" / (p + ".1")).exists()]
    assert not missing, "installed without a manual page: %s" % missing


# --- the docs stand alone -------------------------------------------------------

TRACKED_DIRS = ["bundle", "runtime", "translate", "hooks", "tests", "contrib", "docs",
                "bench", "Makefile", "README.md"]


def tracked_texts():
    """(path, text) of every tracked file under TRACKED_DIRS that is text."""
    r = run(["git", "-C", ROOT, "ls-files", "-z", "--"] + TRACKED_DIRS)
    assert r.returncode == 0, r.stderr
    for rel in r.stdout.split("\0"):
        if not rel:
            continue
        try:
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                yield rel, f.read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue


def test_no_reference_outside_the_tree():
    """Comments and docs cite docs/ by file and heading, never sections of a
    specification the repository does not hold (the section sign, or a path
    to spec/bento.md or spec/oci.md)."""
    me = os.path.relpath(os.path.abspath(__file__), ROOT)
    bad = []
    for rel, text in tracked_texts():
        if rel == me:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if "\u00a7" in line or "spec/bento.md" in line or "spec/oci.md" in line:
                bad.append("%s:%d: %s" % (rel, n, line.strip()[:100]))
    assert not bad, "\n".join(bad)


def headings(path):
    with open(path, encoding="utf-8") as f:
        return {m.group(1).strip() for m in re.finditer(r"^#+ (.+)$", f.read(), re.M)}


CITE = re.compile(r'(docs/\w[\w./-]*\.md),\s+"([^"\n]+)"')


def test_cited_doc_sections_exist():
    """Every `docs/<page>.md, "<Heading>"` a comment cites names a heading of that
    page, so a renamed section cannot leave the code pointing at nothing.
    A citation may wrap onto the next comment line."""
    bad = []
    for rel, text in tracked_texts():
        flat = re.sub(r"\n\s*(?:\*|#|//)?\s*", " ", text)
        for m in CITE.finditer(flat):
            doc, title = m.group(1), m.group(2)
            path = os.path.join(ROOT, doc)
            if not os.path.exists(path):
                bad.append("%s: %s does not exist" % (rel, doc))
            elif title.upper() not in {h.upper() for h in headings(path)}:
                bad.append('%s: %s has no heading "%s"' % (rel, doc, title))
    assert not bad, "\n".join(sorted(set(bad)))
