# SPDX-License-Identifier: Apache-2.0
"""`bento help VERB` and `bento completion bash|zsh|fish`
(docs/cli/bento-completion.md, docs/cli/bento.md "COMMANDS").

  * `bento help VERB` prints exactly `bento VERB --help`; an unknown verb
    or a second name is a usage error (125) that prints no help;
  * each completion script parses in its shell (bash -n, zsh -n, fish -n;
    a shell that is not installed is skipped by name);
  * the bash script, sourced, completes `bento ru` to run, a verb's flags
    after it (and not another verb's), the verbs after `bento help`; so
    does the fish script, where fish is installed;
  * the scripts offer every verb and every flag of the parser's tables
    (the flags as test_docs.py reads them from `--help`);
  * `make install` puts the three scripts where the shells look.
"""

import os
import shutil

import pytest

import harness

BUILD = os.path.abspath(os.environ.get("BENTO_BUILD", "build"))
BENTO = os.path.join(BUILD, "bin", "bento")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHELLS = ("bash", "zsh", "fish")


def run(args, **kw):
    return harness.completed_run(args, timeout=60, **kw)


def bento(*args):
    return run([BENTO] + list(args))


def verbs():
    r = bento("--help")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [line.split()[0] for line in lines if line.strip()]


@pytest.mark.parametrize("verb", ["run", "validate", "completion", "version"])
def test_help_verb_is_the_verbs_help(verb):
    r = bento("help", verb)
    want = bento(verb, "--help")
    assert r.returncode == 0 and want.returncode == 0, (r.stderr, want.stderr)
    assert r.stdout == want.stdout
    # not the command list
    assert "commands:" not in r.stdout


def test_help_unknown_verb_is_a_usage_error():
    for args in (["help", "nosuchverb"], ["help", "run", "validate"]):
        r = bento(*args)
        assert r.returncode == 125, r
        assert r.stdout == "", r.stdout
        assert r.stderr.startswith("bento: "), r.stderr
    assert "nosuchverb" in bento("help", "nosuchverb").stderr
    # the allowed thing still works: `bento help` alone lists the commands
    r = bento("help")
    assert r.returncode == 0 and "commands:" in r.stdout


def script(shell, tmp_path):
    r = bento("completion", shell)
    assert r.returncode == 0, r.stderr
    p = tmp_path / ("bento." + shell)
    p.write_text(r.stdout)
    return p


@pytest.mark.parametrize("shell", SHELLS)
def test_script_parses(shell, tmp_path):
    p = script(shell, tmp_path)
    if not shutil.which(shell):
        pytest.skip("%s is not installed" % shell)
    r = run([shell, "-n", str(p)])
    assert r.returncode == 0, r.stderr


def test_completion_refuses_unknown_shell():
    for args in (["completion"], ["completion", "tcsh"], ["completion", "bash", "zsh"]):
        r = bento(*args)
        assert r.returncode == 125 and r.stdout == "", r
        assert "usage: bento completion" in r.stderr, r.stderr


def complete_bash(p, *words):
    """COMPREPLY of _bento for the command line `words` (the last word is
    the one being completed)."""
    words_sh = " ".join("'%s'" % w for w in words)
    cmd = ('source %s && COMP_WORDS=(%s) && COMP_CWORD=%d && _bento && '
           'printf "%%s\\n" "${COMPREPLY[@]}"' % (p, words_sh, len(words) - 1))
    r = run(["bash", "-c", cmd])
    assert r.returncode == 0, r.stderr
    return [w for w in r.stdout.split("\n") if w]


def test_bash_completes_verbs_and_flags(tmp_path):
    p = script("bash", tmp_path)
    assert complete_bash(p, "bento", "ru") == ["run"]
    assert complete_bash(p, "bento", "v") == ["validate", "version"]
    assert complete_bash(p, "bento", "nothing-like-it") == []
    assert "--record-exec" in complete_bash(p, "bento", "run", "--")
    assert complete_bash(p, "bento", "run", "--rec") == ["--record-exec"]
    # a flag of another verb is not offered
    assert "--relocatable" not in complete_bash(p, "bento", "run", "--")
    assert complete_bash(p, "bento", "validate", "--rel") == ["--relocatable"]
    assert complete_bash(p, "bento", "help", "tr") == ["translate"]
    assert complete_bash(p, "bento", "completion", "f") == ["fish"]
    # an operand is left to the shell's file name completion
    assert complete_bash(p, "bento", "run", "m") == []


def test_fish_completes_verbs_and_flags(tmp_path):
    p = script("fish", tmp_path)
    if not shutil.which("fish"):
        pytest.skip("fish is not installed")

    def complete(line):
        r = run(["fish", "-c", "source %s; complete -C '%s'" % (p, line)],
                env={"HOME": str(tmp_path), "PATH": os.environ["PATH"]})
        assert r.returncode == 0, r.stderr
        return [w.split("\t")[0] for w in r.stdout.splitlines()]

    assert complete("bento ru") == ["run"]
    assert complete("bento run --rec") == ["--record-exec"]
    assert "--relocatable" not in complete("bento run --")
    assert sorted(complete("bento completion ")) == ["bash", "fish", "zsh"]


def help_flags(verb):
    """The flags `bento VERB --help` documents (generated from its page,
    which test_docs.py holds equal to the parser's table)."""
    import re
    r = bento(verb, "--help")
    return set(re.findall(r"(?m)^  (?:-\w, )?(--[a-z][a-z-]*)", r.stdout))


@pytest.mark.parametrize("shell", SHELLS)
def test_scripts_offer_every_verb_and_flag(shell, tmp_path):
    text = script(shell, tmp_path).read_text()
    for verb in verbs():
        assert verb in text, (shell, verb)
        for flag in help_flags(verb):
            word = flag if shell != "fish" else "-l " + flag[2:]
            assert word in text, (shell, verb, flag)


def test_install_puts_the_scripts_in_place(tmp_path):
    dest = tmp_path / "dest"
    r = run(["make", "-s", "-C", ROOT, "-o", "all", "install", "BUILDDIR=" + BUILD,
             "DESTDIR=" + str(dest), "PREFIX=/usr"])
    assert r.returncode == 0, r.stderr
    share = dest / "usr" / "share"
    for shell, path in (("bash", "bash-completion/completions/bento"),
                        ("zsh", "zsh/site-functions/_bento"),
                        ("fish", "fish/vendor_completions.d/bento.fish")):
        assert (share / path).read_text() == bento("completion", shell).stdout, path
