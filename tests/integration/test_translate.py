# SPDX-License-Identifier: Apache-2.0
"""`bento translate` end to end (issue 4, "What must be shown").

Every test builds a scratch home (an ssh key, cloud credentials, .netrc, rc
files, a git checkout with hooks and editor settings, a plain directory),
translates a manifest with HOME pointing at it (the shields anchor on $HOME
and on the passwd home), runs the bundle under bento-runtime with the static
probe as the entrypoint, and asserts from inside the sandbox.

Sections:
  A  manifest errors, each with its file:line:col (through translate, which
     must leave no bundle behind);
  E  the filesystem boundary, the environment, identity, network;
  F  credential shields (hidden, read-only, discarded, opt-in) and the
     grant refusals of docs/manifest.md, "GRANTS A RUN REFUSES" (exit 125,
     nothing created);
  H  the exec block (needs bento-exec-gate);
plus limits read back from the container's cgroup, golden config.json files
(compared structurally), determinism, and the same bundle under runc and
crun (portable and fail-closed).

Run as root:
    BENTO_BUILD=/abs/build /usr/bin/python3 -m pytest -q tests/integration/test_translate.py
BENTO_GOLDEN_UPDATE=1 rewrites the golden files from this host's output.
"""

import json
import os
import re
import shutil
import socket
import stat
import tempfile

import pytest

import harness
from harness import RUNTIME, parse_steps, run_cmd

BENTO = os.environ.get("BENTO_BIN") or os.path.join(harness.BUILD, "bin", "bento")
GATE = os.path.join(harness.BUILD, "bin", "bento-exec-gate")
GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
# bento-init, the sandbox's process 1, before the target in process.args
INIT = "/.bento/init"
HOST_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
REFUSED = 125

SECRETS = {
    ".ssh/id_rsa": "SSH-KEY-SECRET\n",
    ".aws/credentials": "[default]\naws_secret_access_key = AWS-SECRET\n",
    ".netrc": "machine example.com login u password NETRC-SECRET\n",
    ".claude/.credentials.json": '{"token": "AGENT-SECRET"}\n',
}
PLAIN_FILES = {
    ".gitconfig": "[user]\n\tname = u\n",
    ".bashrc": "# the bashrc of u\n",
    ".mytoken": "TOKEN-NOT-SHIELDED\n",
    ".claude/settings.json": "{}\n",
    "notes.txt": "plain notes\n",
    "realdir/file": "reached through a link\n",
    "proj/.git/hooks/pre-commit": "#!/bin/sh\nexit 0\n",
    "proj/.git/config": "[core]\n\tbare = false\n",
    "proj/.vscode/tasks.json": "{}\n",
    "proj/src/main.c": "int main(void) { return 0; }\n",
    "plain/readme": "a directory that is not a checkout\n",
    "afile": "a regular file\n",
}


def have_bento():
    if not os.access(BENTO, os.X_OK):
        pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)


# ---------------------------------------------------------------------------
# scratch home, manifests, bundles


class Home:
    """A scratch user home: HOME for bento, with credentials to shield."""

    def __init__(self, base):
        self.base = base
        self.home = os.path.join(base, "home", "u")
        self.proj = os.path.join(self.home, "proj")
        self.plain = os.path.join(self.home, "plain")
        for rel, text in list(SECRETS.items()) + list(PLAIN_FILES.items()):
            p = self.path(rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        for d in (".local/bin", ".config/fish", ".config/gcloud"):
            os.makedirs(self.path(d), exist_ok=True)
        os.chmod(self.path(".ssh"), 0o700)
        os.chmod(self.path(".ssh/id_rsa"), 0o600)
        os.symlink(self.path("loop2"), self.path("loop1"))
        os.symlink(self.path("loop1"), self.path("loop2"))
        os.symlink("realdir", self.path("link"))
        os.symlink(".ssh", self.path("keys"))  # a second name for a store
        os.makedirs(self.path("gitstore/hooks"))
        os.makedirs(self.path("proj2"))
        os.symlink("../gitstore", self.path("proj2/.git"))  # a checkout whose .git is a link
        self.probe = os.path.join(self.proj, "probe")
        shutil.copy2(harness.PROBE, self.probe)
        os.chmod(self.probe, 0o755)

    def path(self, rel):
        return os.path.join(self.home, rel)

    def env(self, **extra):
        env = {"PATH": HOST_PATH, "HOME": self.home, "LANG": "C.UTF-8"}
        env.update(extra)
        return env


def to_yaml(doc):
    """Block mapping at the top, every value as JSON (a subset of YAML's
    flow style): exact strings, no YAML surprises."""
    return "".join("%s: %s\n" % (k, json.dumps(v)) for k, v in doc.items())


class TranslatedBundle:
    """What harness.Runtime needs of a bundle: its path (teardown checks
    that no mount is left under it); config.json is bento's, never ours."""

    def __init__(self, path):
        self.path = path

    def save(self):
        pass

    @property
    def config(self):
        with open(os.path.join(self.path, "config.json")) as f:
            return json.load(f)


class Translator:
    def __init__(self, home, test_dir, rt=None, bundles=None):
        self.home = home
        self.test_dir = test_dir
        self.rt = rt
        self.bundles = bundles or test_dir  # a short path: the gate's socket lives in the bundle
        self.n = 0

    def write_manifest(self, manifest, name="m.yaml", where=None):
        path = os.path.join(where or self.home.proj, name)
        with open(path, "wb") as f:
            text = manifest if isinstance(manifest, (str, bytes)) else to_yaml(manifest)
            f.write(text.encode() if isinstance(text, str) else text)
        return path

    def translate(self, manifest, *flags, out=None, env=None, name="m.yaml", where=None):
        have_bento()
        path = self.write_manifest(manifest, name, where)
        if out is None:
            self.n += 1
            out = os.path.join(self.bundles, "b%d" % self.n)
        res = run_cmd([BENTO, "translate", path, "-o", out] + list(flags), env=env or self.home.env(),
                      timeout=60)
        res.bundle = TranslatedBundle(out)
        res.manifest = path
        return res

    def bundle(self, manifest, *flags, env=None):
        res = self.translate(manifest, *flags, env=env)
        assert res.rc == 0, "translate failed:\n%s" % res
        return res.bundle

    def steps(self, extra, *steps, expect_rc=0, exec_mode="all"):
        """Translate `entrypoint: ./probe, args: [steps, ...]` plus extra, run
        it under bento-runtime, and return one harness.Step per step."""
        m = {"entrypoint": "./probe", "args": ["steps"] + list(steps), "exec": exec_mode}
        m.update(extra)
        b = self.bundle(m)
        res = self.rt.run(b)
        if expect_rc is not None:
            assert res.rc == expect_rc, "expected exit %s:\n%s" % (expect_rc, res)
        got = parse_steps(steps, res.out)
        assert len(got) == len(steps), "expected %d probe outputs, got %d:\n%s" % (len(steps), len(got), res)
        return got


def refused_with(step):
    """None when the step succeeded, else its errno name."""
    text = step.text.strip()
    if text.startswith("{"):
        doc = json.loads(text)
        return None if doc.get("ok") else doc.get("errno")
    return None if text == "OK" else text


def assert_reads(step, data):
    doc = step.json()
    assert doc.get("ok") and doc["data"] == data, "%r: want %r" % (step, data)


def assert_refused(step, name):
    assert step.rc != 0 and refused_with(step) == name, "%r: want %s" % (step, name)


@pytest.fixture
def home(test_dir):
    return Home(os.path.join(test_dir, "h"))


@pytest.fixture
def bundles_dir():
    """Bundles go here, not under the (long) test directory: a unix socket
    address holds 107 bytes and the exec gate listens inside the bundle."""
    d = tempfile.mkdtemp(prefix="bt.", dir="/tmp")
    os.chmod(d, 0o755)
    yield d
    left = harness.mounts_under(d)
    for m in sorted(left, key=len, reverse=True):
        harness.umount_lazy(m)
    shutil.rmtree(d, ignore_errors=True)
    assert not left, "mounts left under %s: %s" % (d, left)


@pytest.fixture
def tr(home, test_dir, bundles_dir):
    """Translator without a runtime (manifest errors, refusals, goldens)."""
    return Translator(home, test_dir, bundles=bundles_dir)


@pytest.fixture
def trr(rt, home, test_dir, bundles_dir):
    """Translator whose bundles run under bento-runtime (harness teardown)."""
    return Translator(home, test_dir, rt, bundles=bundles_dir)


# ---------------------------------------------------------------------------
# A. manifest errors, each with its place (docs/manifest.md, "SYNTAX RULES")

NEST33 = "entrypoint: ./x\nargs: " + "[" * 33 + "1" + "]" * 33 + "\n"
TOO_BIG = "entrypoint: ./x\n#" + "a" * 1048600 + "\n"

MALFORMED = [
    # (id, manifest bytes, [expected substrings; "@" stands for the manifest path])
    ("A2-entrypoint-required", "interpreter: python3\n", ["@:1:1: policy: entrypoint is required"]),
    ("empty-file", "", ["policy: entrypoint is required"]),
    ("A3-unknown-top", "entrypoint: ./x\nunknown_grant: true\n",
     ['@:2:1: manifest: unknown field "unknown_grant"']),
    ("A4-unknown-in-rule", 'entrypoint: ./x\nnetwork:\n  - {host: a.com, port: "443", proto: tcp}\n',
     ['@:3:32: manifest: unknown field "proto" in a network rule']),
    ("unknown-in-limits", "entrypoint: ./x\nlimits: {memory: 1G, bogus: 1}\n",
     ['@:2:22: manifest: unknown field "bogus" in limits']),
    ("unknown-in-provenance", "entrypoint: ./x\nprovenance: {generated-by: x, what: 1}\n",
     ['@:2:31: manifest: unknown field "what" in provenance']),
    ("A5-bare-rule", 'entrypoint: ./x\nnetwork: ["api.example.com:443"]\n',
     ["@:2:11: manifest: network rule 0 must be a mapping with `host:` and `port:` keys",
      '- {host: api.example.com, port: "443"}']),
    ("A6-two-documents", "entrypoint: ./x\n---\nentrypoint: ./y\n",
     ["@:2:1: manifest: the input contains more than one YAML document; a manifest must be a single policy"]),
    ("A7-tag", 'entrypoint: ./x\nread: [!!binary "L2V0Yy9zaGFkb3c="]\n',
     ["@:2:8: manifest: line 2 uses an explicit YAML tag"]),
    ("A8-anchor-alias", "entrypoint: ./x\nread: &a [/x]\nwrite: *a\n",
     ["@:2:7: manifest: line 2 uses a YAML anchor, alias, or merge key"]),
    ("merge-key", "entrypoint: ./x\nlimits:\n  <<: {pids: 3}\n",
     ["@:3:3: manifest: line 3 uses a YAML anchor, alias, or merge key"]),
    ("A9-nesting", NEST33, ["@:2:", "manifest: line 2 nests more than 32 levels deep"]),
    ("A10-too-big", TOO_BIG, ["manifest: input is larger than 1048576 bytes, which is not a manifest"]),
    ("A11-not-utf8", b'entrypoint: ./x\nargs: ["\xff\xfe"]\n',
     ["manifest: input is not valid UTF-8 text, so it is not a manifest"]),
    ("type-entrypoint", "entrypoint: [a]\n", ["@:1:13: manifest: entrypoint must be a string"]),
    ("type-exec", "entrypoint: ./x\nexec: [none]\n", ["@:2:7: manifest: exec must be a string"]),
    ("duplicate-key", "entrypoint: ./x\nentrypoint: ./y\n", ['@:2:1: manifest: field "entrypoint" is given twice']),
    ("not-a-mapping", "- a\n", ["@:1:1: manifest: the top level must be a mapping"]),
    ("A13-screen-alone", 'entrypoint: ./x\nread: ["/home/u/\\u202Eexe.bat"]\nenv: ["1X"]\n',
     ["@:2:8: policy: value", "contains a bidirectional formatting character (U+202E)"]),
    ("screen-line-separator", 'entrypoint: "./x\\u2028y"\n', ["@:1:13:", "a line separator (U+2028)"]),
    ("screen-zero-width", 'entrypoint: ./x\nargs: ["a\\u200Bb"]\n', ["@:2:8:", "a zero-width or invisible character (U+200B)"]),
    ("A29-nul-in-args", 'entrypoint: ./x\nargs: ["--flag", "val\\0x"]\n', ["@:2:18:", "a control character (U+0000)"]),
    ("A28-provenance-control", 'entrypoint: ./x\nprovenance: {generated-by: "tool\\a"}\n',
     ['@:2:28: manifest: provenance value "tool" contains a control character (U+0007)']),
    ("A14-three-problems", 'entrypoint: ./x\nenv: ["OUT \u2190 note"]\nread: [""]\nlimits: {pids: -1}\n',
     ["bento: the manifest has 3 problems:\n", "@:3:8: policy: read[0] is empty",
      "@:2:7: policy: invalid env name", "@:4:16: policy: limits.pids must not be negative"]),
    ("A15-exec-yes", "entrypoint: ./x\nexec: yes\n",
     ['@:2:7: policy: invalid exec mode "yes": want one of none, none-strict, all']),
    ("A16-bare-tilde", "entrypoint: ./x\nread: [~]\n", ['@:2:8: policy: read[0] is empty', 'write "~" in quotes']),
    ("A17-other-home", 'entrypoint: ./x\nread: ["~operator/keys"]\n',
     ['@:2:8: policy: read[0] "~operator/keys" names another user\'s home directory']),
    ("other-home-everywhere", 'entrypoint: "~root/x"\ninterpreter: "~bob/py"\nwrite: ["~x"]\n',
     ["the manifest has 3 problems", '@:1:13: policy: entrypoint "~root/x" names another user\'s home',
      '@:2:14: policy: interpreter "~bob/py" names another user\'s home', '@:3:9: policy: write[0] "~x" names']),
    ("A18-home-writes", 'entrypoint: ./x\nwrite: ["~", "~/", "~/.", "~//", "~/../.."]\n',
     ["the manifest has 5 problems"] +
     ['@:2:%d: policy: write[%d] "%s" grants your home directory or a parent of it' % (c, i, v)
      for i, (c, v) in enumerate([(9, "~"), (14, "~/"), (20, "~/."), (27, "~//"), (34, "~/../..")])]),
    ("A21-env-names", 'entrypoint: ./x\nenv: ["", "1ENV", "FOO=BAR", "FOO-BAR", "_X1", "lang"]\n',
     ["the manifest has 4 problems", '@:2:7: policy: invalid env name ""', '@:2:11: policy: invalid env name "1ENV"',
      '@:2:19: policy: invalid env name "FOO=BAR"', '@:2:30: policy: invalid env name "FOO-BAR"']),
    ("A22-A23-rules", 'entrypoint: ./x\nnetwork:\n'
     '  - {host: "127.1", port: "443"}\n  - {host: "::ffff:10.0.0.1", port: "443"}\n'
     '  - {host: "foo.123", port: "1"}\n  - {host: ".", port: "1"}\n  - {host: ".10.0.0.1", port: "1"}\n'
     '  - {host: "a.com", port: ""}\n  - {host: "a.com", port: "08080"}\n  - {host: "a.com", port: "443-80"}\n'
     '  - {host: "a.com", port: "1-70000"}\n  - {host: "", port: "1"}\n  - {host: "a b", port: "1"}\n'
     '  - {host: "2130706433", port: "0"}\n  - {host: "' + "a" * 254 + '", port: "-80"}\n'
     '  - {host: "a.com", port: "65536"}\n  - {host: "127.0.0.01", port: "+443"}\n',
     ["the manifest has 15 problems",
      '@:3:12: policy: network rule 0: host "127.1" is not a canonical IP address',
      '@:4:12: policy: network rule 1: host "::ffff:10.0.0.1" is not canonical (write it as 10.0.0.1)',
      '@:5:12: policy: network rule 2: host "foo.123" is not a valid hostname',
      '@:6:12: policy: network rule 3: host ".": a suffix wildcard needs a domain after the dot',
      '@:7:12: policy: network rule 4: host ".10.0.0.1"',
      '@:8:27: policy: network rule 5: empty port',
      '@:9:27: policy: network rule 6: port "08080" must be plain decimal',
      '@:10:27: policy: network rule 7: port range "443-80" is inverted',
      '@:11:27: policy: network rule 8: port "1-70000" out of range 1-65535',
      '@:12:12: policy: network rule 9: empty host',
      '@:13:12: policy: network rule 10: host "a b" contains control or reserved characters',
      '@:14:12: policy: network rule 11: host "2130706433" is not a canonical IP address',
      "@:15:12: policy: network rule 12:", "too long",
      '@:16:27: policy: network rule 13: port "65536" out of range 1-65535',
      '@:17:12: policy: network rule 14: host "127.0.0.01" is not a canonical IP address']),
    ("A24-memory-lowercase", "entrypoint: ./x\nlimits: {memory: 128m}\n",
     ['@:2:18: policy: limits.memory: size "128m" must spell its suffix uppercase ("128M")']),
    ("A24-memory-MB", "entrypoint: ./x\nlimits: {memory: 100MB}\n",
     ['@:2:18: policy: limits.memory: invalid size "100MB", want a plain byte count or a K/M/G suffix (e.g. "128M")']),
    ("A24-memory-negative", "entrypoint: ./x\nlimits: {memory: -1G}\n", ["@:2:18: policy: limits.memory:", "cannot be negative"]),
    ("A24-memory-huge", 'entrypoint: ./x\nlimits: {memory: "8000000000000000000K"}\n',
     ['@:2:18: policy: limits.memory: size "8000000000000000000K" is too large']),
    ("A24-memory-zero", "entrypoint: ./x\nlimits: {memory: 0}\n", ['@:2:18: policy: limits.memory "0" is zero']),
    ("A25-cpu-no-percent", 'entrypoint: ./x\nlimits: {cpu: "100"}\n', ["@:2:15: policy: limits.cpu", "must be a percentage"]),
    ("A25-cpu-nan", 'entrypoint: ./x\nlimits: {cpu: "NaN%"}\n', ["@:2:15:", "must be a plain decimal percentage"]),
    ("A25-cpu-negative", 'entrypoint: ./x\nlimits: {cpu: "-10%"}\n', ["@:2:15:", "must be a plain decimal percentage"]),
    ("A25-cpu-three-decimals", 'entrypoint: ./x\nlimits: {cpu: "12.345%"}\n', ["@:2:15:", "must be a plain decimal percentage"]),
    ("A25-cpu-zero", 'entrypoint: ./x\nlimits: {cpu: "0%"}\n',
     ['@:2:15: policy: limits.cpu "0%" is zero; the smallest quota is "0.01%"']),
    ("A25-cpu-too-large", 'entrypoint: ./x\nlimits: {cpu: "21474836.48%"}\n', ["@:2:15:", "too large"]),
    ("limits-first-problem-only", 'entrypoint: ./x\nlimits: {memory: 128m, cpu: "0%"}\n',
     ["@:2:18: policy: limits.memory"]),
    ("A26-pids-zero", "entrypoint: ./x\nlimits: {memory: 128M, pids: 0}\n",
     ["@:2:30: policy: limits.pids is zero"]),
    ("empty-write", 'entrypoint: ./x\nwrite: [/ok, ""]\n', ["@:2:14: policy: write[1] is empty"]),
    ("A27-interpreter-args", "entrypoint: ./x\ninterpreter_args: [-u]\n",
     ["@:2:20: policy: interpreter_args is set but interpreter is not"]),
    ("A42-script", "#!/bin/sh\necho hi\n", ["looks like a script, not a manifest"]),
]


@pytest.mark.parametrize("case", MALFORMED, ids=[c[0] for c in MALFORMED])
def test_malformed_manifest_is_refused_with_its_place(tr, case):
    """docs/manifest.md, "SYNTAX RULES": exit 125, `bento: ` then each problem at file:line:col,
    no source region echoed, and no bundle directory written."""
    name, text, wants = case
    res = tr.translate(text)
    assert res.rc == REFUSED, res
    assert res.out == "", res
    assert res.err.startswith("bento: "), res
    for w in wants:
        assert w.replace("@", res.manifest) in res.err, "stderr should contain %r:\n%s" % (w, res)
    assert not os.path.lexists(res.bundle.path), "a refused manifest left %s" % res.bundle.path
    if name == "A7-tag":
        assert "L2V0Yy9zaGFkb3c=" not in res.err  # never echo the source
    if name == "A13-screen-alone":
        assert "invalid env name" not in res.err and "problems" not in res.err
    if name == "limits-first-problem-only":
        assert "limits.cpu" not in res.err


def test_A12_escape_bytes_are_never_printed(tr):
    res = tr.translate(b'entrypoint: ./x\n"\\e[31mkey\\a": 1\n')  # YAML escapes: a key holding ESC, BEL
    assert res.rc == REFUSED, res
    assert "@:2:1: manifest: unknown field".replace("@", res.manifest) in res.err, res
    assert "\x1b" not in res.err and "\x07" not in res.err, repr(res.err)
    res = tr.translate(b'entrypoint: ./x\n"\x1b[31mkey\x07": 1\n')  # the raw bytes
    assert res.rc == REFUSED, res
    assert "\x1b" not in res.err and "\x07" not in res.err, repr(res.err)


GOOD_SHAPES = """\
# comments, quoted & * ! and plain paths with * are plain text, not references
entrypoint: ./probe
args: ["a & b", "*star", "!bang"]
read: ["~", "./~backup", /data/*]
env: [_X1, lang]
network:
  - {host: "*", port: "*"}
  - {host: .example.com, port: "443"}
  - {host: 10.0.0.5, port: "8000-9000"}
  - {host: "2001:db8::1", port: 443}
limits: {memory: 1G, cpu: "21474836.47%", pids: 5}
exec: none-strict
"""


def test_A19_A20_valid_shapes_translate(tr):
    """`read: ["~"]`, `./~backup`, `_X1`/`lang`, every valid host and port
    shape, an integer port, the largest cpu quota: a bundle is written."""
    res = tr.translate(GOOD_SHAPES)
    assert res.rc == 0, res
    cfg = res.bundle.config
    assert cfg["process"]["args"][-3:] == ["a & b", "*star", "!bang"]
    allows = [a for a in cfg["hooks"]["createRuntime"][0]["args"] if ":" in a]
    assert allows == ["*:*", ".example.com:443", "10.0.0.5:8000-9000", "2001:db8::1:443"]
    for ok in ("128M", "1048576", "50%", "12.5%", "250%"):
        key = "cpu" if ok.endswith("%") else "memory"
        r = tr.translate("entrypoint: ./probe\nlimits: {%s: \"%s\"}\n" % (key, ok))
        assert r.rc == 0, r


def test_A32_A33_entrypoint_and_interpreter_must_exist(tr, home):
    res = tr.translate({"entrypoint": "./missing"})
    assert res.rc == REFUSED
    assert 'bento: entrypoint "%s/missing": No such file or directory' % home.proj in res.err, res
    res = tr.translate({"entrypoint": "./probe", "interpreter": "no-such-interp-xyz"})
    assert res.rc == REFUSED
    assert 'interpreter "no-such-interp-xyz" not found' in res.err, res
    assert not os.path.lexists(res.bundle.path)


def test_home_expansion_needs_a_usable_HOME(tr, home):
    """docs/manifest.md, "PATH RESOLUTION": `~` needs HOME set, absolute, and clean of control characters."""
    m = {"entrypoint": "./probe", "read": ["~/notes.txt"]}
    env = home.env()
    del env["HOME"]
    res = tr.translate(m, env=env)
    assert res.rc == REFUSED and 'cannot expand "~/notes.txt": resolving home directory' in res.err, res
    res = tr.translate(m, env=home.env(HOME="relative/home"))
    assert res.rc == REFUSED and 'home directory "relative/home" is not absolute' in res.err, res
    res = tr.translate(m, env=home.env(HOME=home.home + "\x01x"))
    assert res.rc == REFUSED and "HOME contains a control character" in res.err, res
    assert "\x01" not in res.err
    assert not os.path.lexists(res.bundle.path)


def test_D3_env_overrides_are_checked(tr):
    m = {"entrypoint": "./probe", "env": ["ALLOWED"]}
    res = tr.translate(m, "--env", "NOTAPAIR")
    assert res.rc == REFUSED and "want NAME=VALUE" in res.err, res
    res = tr.translate(m, "--env", "=v")
    assert res.rc == REFUSED and "want NAME=VALUE" in res.err, res
    res = tr.translate(m, "--env", "OTHER=v")
    assert res.rc == REFUSED and "not in the manifest's env allowlist" in res.err, res
    assert not os.path.lexists(res.bundle.path)


# ---------------------------------------------------------------------------
# docs/manifest.md, "GRANTS A RUN REFUSES" refusals: exit 125, the documented sentence, no bundle, no write dir made

REFUSALS = [
    ("E8-write-root", {"write": ["/"]},
     ['write grant "/" would make the entire host root writable; grant a specific directory']),
    ("F4-write-home-absolute", {"write": ["{home}"]},
     ['write grant "{home}" contains the always-shielded path "{home}/.', "grant a narrower directory instead"]),
    ("write-home-tilde", {"write": ["~"]}, ['write[1] "~" grants your home directory or a parent of it']),
    ("F2-read-inside-ssh", {"read": ["~/.ssh/id_rsa"]},
     ['grant "{home}/.ssh/id_rsa" is inside the always-shielded path "{home}/.ssh" and cannot be honored',
      'granting "{home}/.ssh" itself under read: would opt that store in']),
    ("read-store-through-a-link", {"read": ["~/keys"]},
     ['grant "{home}/keys" is inside the always-shielded path "{home}/.ssh" and cannot be honored']),
    ("F5-write-ssh", {"write": ["~/.ssh"]},
     ['write grant "{home}/.ssh" is inside the always-shielded path "{home}/.ssh" and cannot be honored; '
      'there is no opt-in for a write']),
    ("write-opted-in-store", {"read": ["~/.ssh"], "write": ["~/.ssh"]}, ["there is no opt-in for a write"]),
    ("write-inside-aws", {"write": ["~/.aws/x"]}, ['write grant "{home}/.aws/x" is inside the always-shielded path']),
    ("F6-write-local-bin", {"write": ["~/.local/bin"]},
     ['write grant "{home}/.local/bin" is at or inside the write-shielded path "{home}/.local/bin" '
      'and cannot be honored']),
    ("F6-write-config-fish", {"write": ["~/.config/fish"]},
     ['write grant "{home}/.config/fish" is at or inside the write-shielded path "{home}/.config/fish"']),
    ("write-config", {"write": ["~/.config"]},
     ['write grant "{home}/.config" contains the always-shielded path "{home}/.config/']),
    ("F9-write-hooks-of-checkout", {"write": ["~/proj", "~/proj/.git/hooks"]},
     ['write grant "{home}/proj/.git/hooks" is at or inside the write-shielded path "{home}/proj/.git/hooks"']),
    ("workspace-shield-redirected", {"write": ["~/proj2"]},
     ['write grant "{home}/proj2" shields "{home}/proj2/.git/', "but a symlinked directory component redirects it"]),
    ("E9-proc-self", {"read": ["/proc/self"]},
     ['grant "/proc/self" resolves to "/proc/', "a host process's directory in /proc"]),
    ("E9-etc-mtab", {"read": ["/etc/mtab"]}, ['grant "/etc/mtab" resolves to "/proc/', "a host process's directory"]),
    ("E9-tmp", {"read": ["/tmp"]},
     ['grant "/tmp" resolves to "/tmp", a pseudo-filesystem the sandbox mounts fresh; grant a specific path inside it']),
    ("E9-proc", {"read": ["/proc"]}, ['grant "/proc" resolves to "/proc", a pseudo-filesystem']),
    ("E9-dev", {"read": ["/dev"]}, ['grant "/dev" resolves to "/dev", a pseudo-filesystem']),
    ("write-dev-shm", {"write": ["/dev/shm"]}, ['grant "/dev/shm" resolves to "/dev/shm", a pseudo-filesystem']),
    ("E10-symlink-loop", {"read": ["~/loop1"]}, ['grant "{home}/loop1" loops through itself on the host']),
    ("D13-write-grant-is-a-file", {"write": ["../afile"]},
     ['write grant "{home}/afile" is a file; grant its parent directory instead']),
    ("F16-entrypoint-in-shield", {"entrypoint": "~/.ssh/id_rsa", "interpreter": "cat"},
     ['entrypoint "{home}/.ssh/id_rsa" would expose the shielded path "{home}/.ssh"']),
]


def words(text):
    """Unwrapped text; /proc/self names each process's own pid."""
    return re.sub(r"/proc/[0-9]+", "/proc/PID", " ".join(text.split()))


@pytest.mark.parametrize("case", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_refusal_leaves_nothing_behind(tr, home, case):
    """docs/manifest.md, "GRANTS A RUN REFUSES": exit 125 with the documented sentence, no bundle
    directory, no write grant created (the manifest holds a valid one that
    is missing); validate --strict predicts the same refusal."""
    name, extra, wants = case
    m = {"entrypoint": "./probe", "exec": "all"}
    for k, v in extra.items():
        v = [p.replace("{home}", home.home) for p in v] if isinstance(v, list) else v
        m[k] = ["~/wanted/new"] + v if k == "write" else v
    if "write" not in m:
        m["write"] = ["~/wanted/new"]  # a valid write grant that must not be created
    res = tr.translate(m)
    assert res.rc == REFUSED, res
    for w in wants:
        w = w.replace("{home}", home.home)
        assert w in res.err, "stderr should contain %r:\n%s" % (w, res)
    assert res.out == ""
    assert not os.path.lexists(res.bundle.path), "a refused translate left %s" % res.bundle.path
    assert not os.path.lexists(home.path("wanted")), "a refused translate created a write grant"
    # validate predicts the same refusal in the same words, and --strict fails
    sentence = words(res.err.strip()[len("bento: "):])
    val = run_cmd([BENTO, "validate", "--strict", res.manifest], env=tr.home.env(), timeout=60)
    assert val.rc == REFUSED, val
    assert sentence in words(val.out + val.err), "validate should say %r:\n%s" % (sentence, val)
    assert not os.path.lexists(home.path("wanted"))


# ---------------------------------------------------------------------------
# E. the filesystem boundary, environment, identity, network


def test_E_granted_read_works_ungranted_is_absent(trr, home):
    """read: [~/proj]: files there read; a sibling in the home, the host's
    /etc/passwd, /etc/hosts, /etc/resolv.conf, /run, /root do not exist;
    writes anywhere but /tmp fail EROFS; /tmp is private."""
    marker = "/tmp/bento-translate-%s" % os.urandom(4).hex()
    s = trr.steps({"read": ["~/proj"]},
                  "read %s/src/main.c" % home.proj,
                  "read %s" % home.path(".mytoken"),
                  "read %s" % home.path("proj/../.mytoken"),
                  "read /proc/self/root%s" % home.path(".mytoken"),
                  "read /etc/passwd", "read /etc/hosts", "read /etc/resolv.conf", "read /etc/hostname",
                  "ls /run", "ls /root", "ls /home",
                  "write %s/src/main.c" % home.proj,
                  "write %s/new" % home.proj,
                  "write /newfile",
                  "write %s" % marker,
                  "read %s" % marker,
                  "stat /etc/ld.so.cache", "stat /usr/bin")
    assert_reads(s[0], PLAIN_FILES["proj/src/main.c"])
    for i in range(1, 11):
        assert_refused(s[i], "ENOENT")
    assert_refused(s[11], "EROFS")  # E4
    assert_refused(s[12], "EROFS")
    assert_refused(s[13], "EROFS")  # E7: read-only root
    assert refused_with(s[14]) is None, s[14]
    assert_reads(s[15], "bento\n")
    assert not os.path.exists(marker), "the sandbox's /tmp reached the host"
    assert s[16].json()["ok"] and s[17].json()["type"] == "dir"


def test_E2_home_sibling_is_not_granted(trr, home):
    s = trr.steps({"read": ["~/proj"]}, "read %s" % home.path(".mytoken"))
    assert_refused(s[0], "ENOENT")
    s = trr.steps({"read": ["~"]}, "read %s" % home.path(".mytoken"))
    assert_reads(s[0], PLAIN_FILES[".mytoken"])  # the control


def test_E11_grant_through_a_symlink(trr, home):
    """read: [<dir>/link] (link -> real): the file reads at the granted name
    and at the real one.  Outside /tmp: the sandbox's /tmp is a fresh
    tmpfs, which would cover a recreated link."""
    base = tempfile.mkdtemp(prefix="bento-e11.", dir="/var/tmp")
    try:
        os.mkdir(os.path.join(base, "real"))
        with open(os.path.join(base, "real", "file"), "w") as f:
            f.write("through the link\n")
        os.symlink("real", os.path.join(base, "link"))
        s = trr.steps({"read": [base + "/link"]}, "read %s/link/file" % base, "read %s/real/file" % base,
                      "stat %s/link" % base)
        assert_reads(s[0], "through the link\n")
        assert_reads(s[1], "through the link\n")
        assert s[2].json()["type"] == "lnk" and s[2].json()["target"] == "real"
    finally:
        shutil.rmtree(base)


def test_E3_escapes_from_a_write_grant(trr, home):
    link = os.path.join(home.proj, "l")
    s = trr.steps({"write": ["~/proj"]},
                  "read %s" % home.path("proj/../.mytoken"),
                  "read /proc/self/root%s" % home.path(".mytoken"),
                  "syscall 88 s:%s s:%s" % (home.path(".mytoken"), link),  # symlink(2)
                  "read %s" % link,
                  "syscall 86 s:%s s:%s" % (home.path(".mytoken"), link + "h"))  # link(2)
    assert_refused(s[0], "ENOENT")
    assert_refused(s[1], "ENOENT")
    assert refused_with(s[2]) is None, s[2]
    assert_refused(s[3], "ENOENT")
    assert_refused(s[4], "ENOENT")


def test_E5_E6_E12_write_grants(trr, home):
    """write: [./out] is created 0700 before the run and what is written
    there persists; a rename inside it works; with write: [.] the
    entrypoint itself stays read-only."""
    out = os.path.join(home.proj, "out")
    s = trr.steps({"write": ["./out"]},
                  "write %s/f persisted" % out,
                  "write %s/tmp.part x" % out,
                  "syscall 82 s:%s/tmp.part s:%s/g" % (out, out),  # rename(2)
                  "write %s/src/main.c" % home.proj, "write %s" % home.probe)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o700
    assert refused_with(s[0]) is None and refused_with(s[2]) is None, s
    with open(os.path.join(out, "f")) as f:
        assert f.read() == "persisted"
    assert os.path.exists(os.path.join(out, "g"))
    assert_refused(s[3], "ENOENT")  # the rest of the project is not granted
    assert refused_with(s[4]) in ("EROFS", "ETXTBSY"), s[4]  # the running entrypoint
    # E12: write: [.] over a script's directory; the script stays read-only
    # (the probe is the interpreter here: argv = probe steps SCRIPT ARGS...)
    script = os.path.join(home.proj, "s.sh")
    with open(script, "w") as f:
        f.write("echo hello\n")
    steps = ["write %s" % script, "write %s/new-file" % home.proj, "read %s" % script]
    b = trr.bundle({"entrypoint": "./s.sh", "interpreter": "./probe", "interpreter_args": ["steps"],
                    "args": steps, "write": ["."], "exec": "all"})
    res = trr.rt.run(b)
    assert res.rc == 0, res
    s = parse_steps([script] + steps, res.out)[1:]
    assert_refused(s[0], "EROFS")
    assert refused_with(s[1]) is None, s[1]
    assert_reads(s[2], "echo hello\n")


def test_interpreter_prefix_and_entrypoint_link(trr, home, test_dir):
    """docs/manifest.md, "WHAT THE PROGRAM SEES": an interpreter outside the system directories brings its
    install prefix (read-only), nothing beside it; an entrypoint reached
    through a symlink runs as its resolved path, from its directory."""
    opt = os.path.join(test_dir, "opt")
    tool = os.path.join(opt, "tool")
    for d in ("tool/bin", "tool/lib", "other"):
        os.makedirs(os.path.join(opt, d))
    runner = os.path.join(tool, "bin", "runner")
    shutil.copy2(harness.PROBE, runner)
    for rel, text in (("tool/lib/data", "tool data\n"), ("other/secret", "not granted\n")):
        with open(os.path.join(opt, rel), "w") as f:
            f.write(text)
    script = os.path.join(home.proj, "s.sh")
    with open(script, "w") as f:
        f.write("echo hello\n")
    steps = ["read %s/lib/data" % tool, "read %s/other/secret" % opt, "write %s/lib/data" % tool, "cwd"]
    b = trr.bundle({"entrypoint": "./s.sh", "interpreter": runner, "interpreter_args": ["steps"], "args": steps,
                    "exec": "all"})
    assert b.config["process"]["args"][:5] == [INIT, "--", runner, "steps", script]
    res = trr.rt.run(b)
    assert res.rc == 0, res
    s = parse_steps([script] + steps, res.out)[1:]
    assert_reads(s[0], "tool data\n")
    assert_refused(s[1], "ENOENT")
    assert_refused(s[2], "EROFS")
    assert s[3].line == home.proj
    # the entrypoint through a link in another directory
    os.makedirs(os.path.join(home.home, "links"))
    os.symlink(home.probe, os.path.join(home.home, "links", "run"))
    b = trr.bundle({"entrypoint": "../links/run", "args": ["cwd"], "exec": "all"})
    assert b.config["process"]["args"][:3] == [INIT, "--", home.probe]
    assert b.config["process"]["cwd"] == home.proj
    res = trr.rt.run(b)
    assert res.rc == 0 and res.out.strip() == home.proj, res


def test_E13_environment_identity_and_namespaces(trr, home):
    """docs/manifest.md, "ENVIRONMENT": exactly the allowlisted names that are set, HOME=/tmp and
    PATH=/usr/bin:/bin; cwd is the entrypoint's directory; the caller's
    uid; no capability; no_new_privs; only loopback; only sandbox pids; no
    inherited descriptor; no terminal."""
    env = home.env(SECRET="x", TERM="xterm", USER="u", ALLOWED_ONE="v1", TMPDIR="/var/tmp")
    b = trr.bundle({"entrypoint": "./probe", "exec": "all", "env": ["ALLOWED_ONE", "UNSET_ONE"],
                    "args": ["steps", "env", "cwd", "ids", "read /proc/self/status", "netdevs",
                             "loopback", "pids", "fds", "tty", "read /proc/net/dev"]},
                   env=env)
    res = trr.rt.run(b)
    assert res.rc == 0, res
    s = parse_steps(["env", "cwd", "ids", "status", "netdevs", "loopback", "pids", "fds", "tty", "dev"], res.out)
    assert json.loads(s[0].text) == ["ALLOWED_ONE=v1", "HOME=/tmp", "PATH=/usr/bin:/bin"]
    assert s[1].line == home.proj
    ids = s[2].json()
    assert (ids["uid"], ids["euid"], ids["suid"], ids["gid"]) == (os.getuid(),) * 3 + (os.getgid(),), ids
    status = s[3].json()["data"]
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(fields[cap].strip(), 16) == 0, (cap, fields[cap])
    assert fields["NoNewPrivs"].strip() == "1"
    assert [d["name"] for d in json.loads(s[4].text)] == ["lo"]
    assert s[5].line == "OK"
    pids = json.loads(s[6].text)
    # bento-init is pid 1 of the sandbox's own pid namespace, the probe its child
    assert pids == [1, 2], pids
    assert s[7].json()["fds"] == [0, 1, 2]
    tty = s[8].json()
    assert (tty["stdin"], tty["stdout"], tty["stderr"], tty["ttyname"]) == (False, False, False, None), tty
    devs = [line.split(":")[0].strip() for line in s[9].json()["data"].splitlines()[2:]]
    assert devs == ["lo"]
    # HOME passes through only when allowlisted, and --env wins over the host
    b = trr.bundle({"entrypoint": "./probe", "exec": "all", "env": ["HOME", "ALLOWED_ONE"], "args": ["env"]},
                   "--env", "ALLOWED_ONE=over", env=env)
    res = trr.rt.run(b)
    assert res.rc == 0, res
    assert json.loads(res.out) == ["ALLOWED_ONE=over", "HOME=%s" % home.home, "PATH=/usr/bin:/bin"]


@pytest.mark.rootless
def test_rootless_caller_keeps_its_uid_and_shields(rrt, home, test_dir):
    """Translated and run by uid 65534: the target runs as 65534 (mapped to
    itself), with the same shields."""
    uid, gid = harness.ROOTLESS_UID, harness.ROOTLESS_GID
    for dirpath, dirnames, filenames in os.walk(home.base):
        os.lchown(dirpath, uid, gid)
        for n in dirnames + filenames:
            os.lchown(os.path.join(dirpath, n), uid, gid)
    os.chmod(home.base, 0o755)
    outdir = os.path.join(test_dir, "rootless-out")
    os.makedirs(outdir)
    os.chown(outdir, uid, gid)
    bundle = os.path.join(outdir, "bundle")
    steps = ["ids", "ls %s" % home.path(".ssh"), "read %s" % home.path(".netrc"), "read %s" % home.path("notes.txt"),
             "write %s" % home.path("notes.txt"), "write %s/out/f" % home.proj]
    tr = Translator(home, test_dir)
    path = tr.write_manifest({"entrypoint": "./probe", "exec": "all", "read": ["~"], "write": ["./out"],
                              "args": ["steps"] + steps})
    os.chown(path, uid, gid)
    res = run_cmd(["setpriv", "--reuid=%d" % uid, "--regid=%d" % gid, "--clear-groups", BENTO, "translate", path,
                   "-o", bundle], env=home.env(), timeout=60)
    assert res.rc == 0, res
    cfg = TranslatedBundle(bundle).config
    assert cfg["process"]["user"] == {"uid": uid, "gid": gid}
    assert cfg["linux"]["uidMappings"] == [{"containerID": uid, "hostID": uid, "size": 1}]
    out = rrt.run(TranslatedBundle(bundle))
    assert out.rc == 0, out
    s = parse_steps(steps, out.out)
    ids = s[0].json()
    assert (ids["uid"], ids["euid"], ids["gid"], ids["egid"]) == (uid, uid, gid, gid), ids
    assert s[1].json()["entries"] == []
    assert_reads(s[2], "")
    assert_reads(s[3], PLAIN_FILES["notes.txt"])
    assert_refused(s[4], "EROFS")
    assert refused_with(s[5]) is None, s[5]
    assert os.stat(os.path.join(home.proj, "out", "f")).st_uid == uid


def test_limits_land_in_the_containers_cgroup(trr, home):
    b = trr.bundle({"entrypoint": "./probe", "exec": "all", "args": ["sleep", "30"],
                    "limits": {"memory": "64M", "cpu": "50%", "pids": 32}})
    cfg = b.config["linux"]["resources"]
    assert cfg == {"memory": {"limit": 64 << 20, "swap": 64 << 20}, "cpu": {"quota": 50000, "period": 100000},
                   "pids": {"limit": 32}}
    cid, pid = trr.rt.create_ok(b)
    cg = trr.rt.state_json(cid)["bento"]["cgroup"]
    assert cg["memory"]["limit"] == 64 << 20 and cg["memory"]["swap"] == 64 << 20, cg
    assert cg["cpu"]["quota"] == 50000 and cg["cpu"]["period"] == 100000, cg
    assert cg["pids"]["limit"] == 32, cg
    landlock = trr.rt.state_json(cid)["bento"]["landlock"]  # bento-runtime applies the backstop
    assert landlock["requested"] and "write_file" in landlock["handledAccessFS"], landlock
    # and from the files themselves, where the init really is
    with open("/proc/%d/cgroup" % pid) as f:
        where = dict((parts[1], parts[2]) for parts in (line.rstrip("\n").split(":", 2) for line in f))
    v1 = "/sys/fs/cgroup"

    def read(ctrl, name):
        key = next(k for k in where if ctrl in k.split(","))
        with open(os.path.join(v1, ctrl, where[key].lstrip("/"), name)) as f:
            return f.read().strip()

    if os.path.isdir(os.path.join(v1, "memory")):
        assert read("memory", "memory.limit_in_bytes") == str(64 << 20)
        assert read("pids", "pids.max") == "32"
        assert read("cpu", "cpu.cfs_quota_us") == "50000"
    else:  # a pure cgroup v2 host
        path = os.path.join(v1, where[""].lstrip("/"))
        with open(os.path.join(path, "memory.max")) as f:
            assert f.read().strip() == str(64 << 20)
    trr.rt.kill(cid, "KILL")


# ---------------------------------------------------------------------------
# F. shields


@pytest.mark.parametrize("grant", ["~", "parent-of-home"])
def test_F1_home_read_hides_credentials(trr, home, grant):
    """read: ["~"] (or the directory holding the home): ~/.ssh is an empty
    directory, a key in it ENOENT, ~/.aws/credentials ENOENT, ~/.netrc
    reads 0 bytes and cannot be written, ~/.bashrc and ~/.gitconfig read
    their real content but are not writable; a file beside .ssh reads."""
    if grant != "~":
        grant = os.path.dirname(home.home)
    s = trr.steps({"read": [grant]},
                  "stat %s" % home.path(".ssh"), "ls %s" % home.path(".ssh"),
                  "read %s" % home.path(".ssh/id_rsa"), "read %s" % home.path(".aws/credentials"),
                  "ls %s" % home.path(".aws"),
                  "read %s" % home.path(".netrc"), "write %s" % home.path(".netrc"),
                  "read %s" % home.path(".bashrc"), "read %s" % home.path(".gitconfig"),
                  "write %s" % home.path(".gitconfig"), "write %s" % home.path(".ssh/new"),
                  "read %s" % home.path("notes.txt"), "ls %s" % home.path(".config/gcloud"),
                  "syscall 86 s:%s s:/tmp/h" % home.path(".aws/credentials"),  # F11: link(2) it out
                  # a hidden file inside a readable write-shielded tree (docs/manifest.md, "CREDENTIAL SHIELDS")
                  "read %s" % home.path(".claude/.credentials.json"), "read %s" % home.path(".claude/settings.json"))
    assert s[0].json()["type"] == "dir"
    assert s[1].json()["entries"] == []
    assert_refused(s[2], "ENOENT")
    assert_refused(s[3], "ENOENT")
    assert s[4].json()["entries"] == []
    assert_reads(s[5], "")
    assert refused_with(s[6]) in ("EROFS", "EACCES"), s[6]
    assert_reads(s[7], PLAIN_FILES[".bashrc"])
    assert_reads(s[8], PLAIN_FILES[".gitconfig"])
    assert_refused(s[9], "EROFS")
    assert_refused(s[10], "EROFS")
    assert_reads(s[11], PLAIN_FILES["notes.txt"])
    assert s[12].json()["entries"] == []
    assert_refused(s[13], "ENOENT")
    assert_reads(s[14], "")
    assert_reads(s[15], PLAIN_FILES[".claude/settings.json"])
    with open(home.path(".netrc")) as f:
        assert f.read() == SECRETS[".netrc"]


def test_F1_json_summary_names_the_shields(tr, home):
    res = tr.translate({"entrypoint": "./probe", "read": ["~"]}, "--json")
    assert res.rc == 0, res
    doc = res.json()
    shields = {(s["path"], s["kind"]) for s in doc["shields"]}
    assert (home.path(".ssh"), "hidden") in shields
    assert (home.path(".aws"), "hidden") in shields
    assert (home.path(".netrc"), "hidden") in shields
    assert doc["exec"] == "none" and doc["exec_gate_socket"] == os.path.join(res.bundle.path, "exec-gate.sock")
    assert doc["read"][0]["on_host"] == home.home


def test_F_dotfile_farm_links_are_followed(trr, home, test_dir):
    """docs/manifest.md, "CREDENTIAL SHIELDS": a store that is a symlink (stow/chezmoi farms) is hidden where
    it really is, and a credential linked from inside a store is hidden at
    its target too."""
    h = os.path.join(test_dir, "farm", "home", "v")
    for d in ("dots/ssh", "dots/keys", "proj"):
        os.makedirs(os.path.join(h, d))
    for rel, text in (("dots/ssh/id_rsa", "K1\n"), ("dots/keys/id_ed25519", "K2\n"), ("dots/notes", "notes\n")):
        with open(os.path.join(h, rel), "w") as f:
            f.write(text)
    os.symlink("dots/ssh", os.path.join(h, ".ssh"))
    os.symlink("../keys/id_ed25519", os.path.join(h, "dots/ssh/id_ed25519"))
    shutil.copy2(harness.PROBE, os.path.join(h, "proj", "probe"))
    steps = ["read %s/.ssh/id_rsa" % h, "read %s/dots/ssh/id_rsa" % h, "ls %s/dots/ssh" % h,
             "read %s/dots/keys/id_ed25519" % h, "read %s/dots/notes" % h]
    tr = Translator(home, test_dir, trr.rt, bundles=trr.bundles)
    res = tr.translate({"entrypoint": "./probe", "read": ["~"], "exec": "all", "args": ["steps"] + steps},
                       env=home.env(HOME=h), where=os.path.join(h, "proj"))
    assert res.rc == 0, res
    out = trr.rt.run(res.bundle)
    assert out.rc == 0, out
    s = parse_steps(steps, out.out)
    assert_refused(s[0], "ENOENT")
    assert_refused(s[1], "ENOENT")
    assert s[2].json()["entries"] == []
    assert_reads(s[3], "")
    assert_reads(s[4], "notes\n")


def test_F3_exact_opt_in_reads_the_store(trr, home):
    s = trr.steps({"read": ["~/.ssh"]},
                  "read %s" % home.path(".ssh/id_rsa"), "write %s" % home.path(".ssh/id_rsa"),
                  "read %s" % home.path(".netrc"))
    assert_reads(s[0], SECRETS[".ssh/id_rsa"])
    assert_refused(s[1], "EROFS")
    assert_refused(s[2], "ENOENT")  # not granted at all


def test_F7_write_shields_in_a_checkout(trr, home):
    """write: [~/proj] (a git checkout): hooks, .git/config and .vscode read
    their real content and reject writes and creates; other files write."""
    p = home.proj
    s = trr.steps({"write": ["~/proj"]},
                  "write %s/.git/hooks/pre-commit" % p, "read %s/.git/hooks/pre-commit" % p,
                  "write %s/.git/hooks/post-checkout" % p,
                  "write %s/.git/config" % p, "read %s/.git/config" % p,
                  "write %s/.vscode/tasks.json" % p, "write %s/.vscode/settings.json" % p,
                  "read %s/.vscode/tasks.json" % p,
                  "write %s/src/new.c" % p, "write %s/src/main.c" % p,
                  "syscall 82 s:%s/.git/hooks s:%s/hooks-moved" % (p, p),
                  # F17: mount(2) MS_REMOUNT|MS_BIND without the read-only flag
                  "syscall 165 s:none s:%s/.git/hooks s:none 0x1020 0" % p)
    for i in (0, 2, 3, 5, 6):
        assert_refused(s[i], "EROFS")
    assert_reads(s[1], PLAIN_FILES["proj/.git/hooks/pre-commit"])
    assert_reads(s[4], PLAIN_FILES["proj/.git/config"])
    assert_reads(s[7], PLAIN_FILES["proj/.vscode/tasks.json"])
    assert refused_with(s[8]) is None and refused_with(s[9]) is None, s
    assert refused_with(s[10]) in ("EBUSY", "EXDEV", "EROFS", "EPERM"), s[10]
    assert_refused(s[11], "EPERM")
    assert not os.path.exists(os.path.join(p, ".git/hooks/post-checkout"))
    with open(os.path.join(p, ".git/hooks/pre-commit")) as f:
        assert f.read() == PLAIN_FILES["proj/.git/hooks/pre-commit"]


def test_F7_gitfile_and_submodule_shields(trr, home):
    """docs/manifest.md, "CREDENTIAL SHIELDS": a checkout whose .git is a file (a linked worktree) gets that
    file write-shielded; a submodule's gitdir under .git/modules gets its
    config and hooks write-shielded."""
    wt = home.path("wt")
    os.makedirs(wt)
    with open(os.path.join(wt, ".git"), "w") as f:
        f.write("gitdir: %s/.git/worktrees/wt\n" % home.proj)
    sub = os.path.join(home.proj, ".git", "modules", "sub")
    os.makedirs(os.path.join(sub, "hooks"))
    with open(os.path.join(sub, "config"), "w") as f:
        f.write("[core]\n")
    s = trr.steps({"write": ["~/wt", "~/proj"]},
                  "write %s/.git" % wt, "read %s/.git" % wt, "write %s/file" % wt,
                  "write %s/config" % sub, "write %s/hooks/post-merge" % sub, "read %s/config" % sub)
    assert_refused(s[0], "EROFS")
    assert s[1].json()["ok"] and s[1].json()["data"].startswith("gitdir: ")
    assert refused_with(s[2]) is None, s[2]
    assert_refused(s[3], "EROFS")
    assert_refused(s[4], "EROFS")
    assert_reads(s[5], "[core]\n")


def test_F8_shields_cannot_be_created_inside_a_write_grant(trr, home):
    """write: [~/plain] (no checkout): a missing .git, .cargo or .vscode is
    scratch as a whole (one mount at the topmost missing directory), so
    .git/config, .cargo/config.toml and .git/hooks can be written but
    nothing written there reaches the host."""
    p = home.plain
    s = trr.steps({"write": ["~/plain"]},
                  "write %s/.git/config" % p, "write %s/.cargo/config.toml" % p,
                  "write %s/.git/config.worktree" % p,
                  "write %s/.git/hooks/pre-commit" % p, "write %s/.vscode/tasks.json" % p,
                  "write %s/ok" % p)
    for i in (0, 1, 2, 4, 5):
        assert refused_with(s[i]) is None, s[i]
    # the scratch .git starts empty: there is no hooks directory to write in
    assert refused_with(s[3]) == "ENOENT", s[3]
    for rel in (".git/hooks/pre-commit", ".vscode/tasks.json", ".git/config",
                ".cargo/config.toml", ".git/config.worktree"):
        assert not os.path.exists(os.path.join(p, rel)), "%s reached the host" % rel
    assert os.path.exists(os.path.join(p, "ok"))


def test_F8_shield_mount_points_are_removed_after_the_run(trr, home):
    """The mount points the runtime had to create inside the write grant
    for shields (on the host, through the bind) are gone after the run."""
    trr.steps({"write": ["~/plain"]}, "write %s/ok" % home.plain)
    left = sorted(e for e in os.listdir(home.plain) if e not in ("readme", "ok"))
    assert left == [], "shield mount points left in the write grant: %s" % left


def test_F10_F13_shields_stay_on_the_passwd_home(trr, home, test_dir):
    """HOME elsewhere cannot move the shields off the passwd home; read: /
    never shows /run."""
    import pwd
    real = pwd.getpwuid(os.getuid()).pw_dir
    store = os.path.join(real, ".terraform.d")
    made = not os.path.lexists(store)
    if made:
        os.mkdir(store, 0o700)
    secret = os.path.join(store, "bento-test-%s" % os.urandom(4).hex())
    try:
        with open(secret, "w") as f:
            f.write("PASSWD-HOME-SECRET\n")
        fake = os.path.join(test_dir, "fakehome")
        os.mkdir(fake)
        b = trr.bundle({"entrypoint": "./probe", "exec": "all", "read": ["/"],
                        "args": ["steps", "ls %s" % store, "read %s" % secret, "ls /run", "read %s" % home.probe]},
                       env=home.env(HOME=fake))
        res = trr.rt.run(b)
        assert res.rc == 0, res
        s = parse_steps(["ls", "read", "run", "probe"], res.out)
        assert s[0].json()["entries"] == []
        assert_refused(s[1], "ENOENT")
        assert s[2].json()["entries"] == [], s[2]
        assert s[3].json()["ok"]
    finally:
        os.unlink(secret)
        if made:
            os.rmdir(store)


def test_F15_F18_shields_follow_relocations(trr, home, test_dir):
    """GNUPGHOME and HISTFILE outside the home: the shield moves with the
    variable (hidden directory, 0-byte file); a relocation onto the
    entrypoint refuses the run."""
    srv = os.path.join(test_dir, "srv")
    os.makedirs(os.path.join(srv, "keys"))
    for rel, text in (("keys/secring", "GPG-SECRET\n"), ("hist", "HISTORY-SECRET\n"), ("other", "other\n")):
        with open(os.path.join(srv, rel), "w") as f:
            f.write(text)
    env = home.env(GNUPGHOME=os.path.join(srv, "keys"), HISTFILE=os.path.join(srv, "hist"))
    steps = ["ls %s/keys" % srv, "read %s/keys/secring" % srv, "read %s/hist" % srv, "read %s/other" % srv]
    b = trr.bundle({"entrypoint": "./probe", "exec": "all", "read": [srv], "args": ["steps"] + steps}, env=env)
    res = trr.rt.run(b)
    assert res.rc == 0, res
    s = parse_steps(steps, res.out)
    assert s[0].json()["entries"] == []
    assert_refused(s[1], "ENOENT")
    assert_reads(s[2], "")
    assert_reads(s[3], "other\n")
    res = trr.translate({"entrypoint": "./probe"}, env=home.env(HISTFILE=home.probe))
    assert res.rc == REFUSED, res
    assert 'entrypoint "%s" would expose the shielded path "%s"' % (home.probe, home.probe) in res.err, res
    assert not os.path.lexists(res.bundle.path)


def test_F14_runtime_dir_is_shielded_and_opt_in_is_exact(trr, home, test_dir):
    xdg = os.path.join(test_dir, "xdg")
    os.makedirs(xdg)
    with open(os.path.join(xdg, "bus"), "w") as f:
        f.write("not really a socket\n")
    env = home.env(XDG_RUNTIME_DIR=xdg)
    res = trr.translate({"entrypoint": "./probe", "read": [xdg + "/bus"]}, env=env)
    assert res.rc == REFUSED, res
    assert 'grant "%s/bus" is inside the always-shielded path "%s"' % (xdg, xdg) in res.err, res
    steps = ["read %s/bus" % xdg, "write %s/new" % xdg]
    b = trr.bundle({"entrypoint": "./probe", "exec": "all", "read": [xdg], "args": ["steps"] + steps}, env=env)
    out = trr.rt.run(b)
    assert out.rc == 0, out
    s = parse_steps(steps, out.out)
    assert_reads(s[0], "not really a socket\n")
    assert_refused(s[1], "EROFS")


def test_F12_hardlinked_credential_in_a_grant_is_refused(tr, home):
    os.link(home.path(".aws/credentials"), os.path.join(home.proj, "innocent.txt"))
    res = tr.translate({"entrypoint": "./probe", "read": ["~/proj"]})
    assert res.rc == REFUSED and "a readable path is a second name for a shielded credential" in res.err, res
    assert not os.path.lexists(res.bundle.path)


# ---------------------------------------------------------------------------
# H. exec (needs bento-exec-gate, hooks/exec-gate/)


def need_gate():
    if not os.access(GATE, os.X_OK):
        pytest.fail("bento-exec-gate is not built (%s): the exec block cannot be shown" % GATE, pytrace=False)


def run_gated(rt, bundle, timeout=30, runtime_argv=None):
    need_gate()
    cid = rt.new_id()
    rt._remember(cid)
    if bundle not in rt.bundles:
        rt.bundles.append(bundle)
    sock = os.path.join(bundle.path, "exec-gate.sock")
    argv = runtime_argv or [RUNTIME, "--root", rt.root, "run", "--bundle", bundle.path, cid]
    res = run_cmd([GATE, "--socket", sock, "--"] + argv, env=rt.env(), timeout=timeout,
                  out_path=rt.out_path(cid), err_path=rt.err_path(cid))
    res.cid = cid
    return res


def test_H_exec_none_needs_the_gate_to_start(trr, home):
    """Fail closed: a bundle with exec: none does not start when nobody
    listens on its exec-gate socket, and the target never runs.  (With
    nothing there bento-runtime starts the gate itself: test_design_card.py;
    a socket left by a gate that died is no gate and is left alone.)"""
    b = trr.bundle({"entrypoint": "./probe", "args": ["say", "TARGET-RAN", "x"]})
    sock = os.path.join(b.path, "exec-gate.sock")
    assert b.config["linux"]["seccomp"]["listenerPath"] == sock
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(sock)
    stale.close()
    res = trr.rt.run(b)
    assert res.rc not in (0, None), res
    assert "TARGET-RAN" not in res.out, res
    assert "Connection refused" in res.err, res


EXEC_STEPS = ("say TARGET-RAN x", "exec-raw execve /usr/bin/true", "exec-raw execveat /usr/bin/true",
              "fork exec-raw execve /usr/bin/true", "spawn fork", "threads 4")


def test_H_exec_none_blocks_execve_and_execveat(trr, home):
    b = trr.bundle({"entrypoint": "./probe", "args": ["steps"] + list(EXEC_STEPS)})
    res = run_gated(trr.rt, b)
    assert res.rc == 0, res
    s = parse_steps(EXEC_STEPS, res.out)
    assert len(s) == len(EXEC_STEPS), res
    assert s[0].line == "TARGET-RAN"  # the runtime's own exec of the target went through
    assert_refused(s[1], "EPERM")
    assert_refused(s[2], "EPERM")
    assert_refused(s[3], "EPERM")  # a child too
    assert refused_with(s[4]) is None  # fork alone is fine under none
    assert refused_with(s[5]) is None


@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_H1_shell_cannot_run_commands(trr, home, shell):
    """exec absent (none): the interpreter starts, `ls` in the script fails
    "Operation not permitted" and the shell exits 126."""
    with open(os.path.join(home.proj, "s.sh"), "w") as f:
        f.write("ls /\n")
    b = trr.bundle({"entrypoint": "./s.sh", "interpreter": shell})
    res = run_gated(trr.rt, b)
    assert res.rc == 126, res
    assert "Operation not permitted" in res.err, res


def test_H3_none_strict_blocks_fork_allows_threads(trr, home):
    steps = ("say TARGET-RAN x", "spawn fork", "spawn vfork", "spawn clone", "spawn clone3", "threads 4",
             "thread say in-a-thread x", "exec-raw execve /usr/bin/true")
    b = trr.bundle({"entrypoint": "./probe", "exec": "none-strict", "args": ["steps"] + list(steps)})
    res = run_gated(trr.rt, b)
    assert res.rc == 0, res
    s = parse_steps(steps, res.out)
    assert s[0].line == "TARGET-RAN"
    for i in (1, 2, 3):
        assert_refused(s[i], "EPERM")
    assert_refused(s[4], "ENOSYS")
    assert s[5].line == "OK" and s[6].line == "in-a-thread", s
    assert_refused(s[7], "EPERM")


def test_H4_exec_block_and_egress_together(trr, home):
    """exec: none with a network rule: the egress hook's proxy answers on
    127.0.0.1:3128 inside the box (here refusing a host outside the
    allowlist, so nothing is dialled) while exec stays blocked."""
    steps = ("proxy-connect denied.invalid:443", "exec-raw execve /usr/bin/true", "netdevs")
    b = trr.bundle({"entrypoint": "./probe", "args": ["steps"] + list(steps),
                    "network": [{"host": "example.com", "port": "443"}]})
    res = run_gated(trr.rt, b)
    assert res.rc == 0, res
    s = parse_steps(steps, res.out)
    assert " 403 " in json.dumps(s[0].json()) or "403" in s[0].text, s[0]
    assert "not in the manifest's network allowlist" in s[0].text, s[0]
    assert_refused(s[1], "EPERM")
    assert [d["name"] for d in json.loads(s[2].text)] == ["lo"]


def test_H6_python_subprocess_gets_permission_error(trr, home):
    with open(os.path.join(home.proj, "s.py"), "w") as f:
        f.write("import subprocess\ntry:\n    subprocess.run(['true'])\n    print('spawned')\n"
                "except PermissionError as e:\n    print('denied', e.errno)\n")
    b = trr.bundle({"entrypoint": "./s.py", "interpreter": "python3"})
    res = run_gated(trr.rt, b)
    assert res.rc == 0 and res.out.strip() == "denied 1", res


def test_H2_exec_all_can_spawn(trr, home):
    with open(os.path.join(home.proj, "s.sh"), "w") as f:
        f.write("ls / >/dev/null && echo spawned-$((6*7))\n")
    b = trr.bundle({"entrypoint": "./s.sh", "interpreter": "sh", "exec": "all"})
    names = {n for r in b.config["linux"]["seccomp"]["syscalls"] for n in r["names"]}
    # no exec rule; the privilege-bit rules of every mode (test_privilege_bits.py)
    assert "execve" not in names and "execveat" not in names and "clone" not in names, names
    assert {"chmod", "fchmodat", "openat", "openat2", "setxattr", "io_uring_setup"} <= names, names
    res = trr.rt.run(b)
    assert res.rc == 0 and res.out.strip() == "spawned-42", res


# ---------------------------------------------------------------------------
# golden config.json files, compared structurally; determinism

SYSTEM_PATHS = {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32", "/etc/ld.so.cache",
                "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ssl", "/etc/ca-certificates", "/etc/pki",
                "/etc/alternatives"}


def normalize(cfg, subst):
    """Host facts become placeholders; the system-path mounts (which exist
    on this host) are checked here for shape and then dropped."""
    text = json.dumps(cfg)
    for value, name in sorted(subst.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(json.dumps(value)[1:-1], name)
    cfg = json.loads(text)
    ann = cfg.get("annotations", {})
    if "org.bento.mount-identity" in ann:
        # device and inode numbers are this host's: kept as the mount each
        # word names and its kind (system paths are checked, then dropped)
        named = []
        for word in ann["org.bento.mount-identity"].split():
            i, kind, dev, ino = word.split(":")
            assert dev.isdigit() and ino.isdigit(), word
            d = cfg["mounts"][int(i)]["destination"]
            if not (d in SYSTEM_PATHS or any(d.startswith(p + "/") for p in SYSTEM_PATHS)):
                named.append("%s %s" % (kind, d))
        ann["org.bento.mount-identity"] = named
    kept = []
    for m in cfg.get("mounts", []):
        d = m["destination"]
        if d in SYSTEM_PATHS or any(d.startswith(p + "/") for p in SYSTEM_PATHS):
            assert m["type"] == "bind" and m["source"] == d and "ro" in m["options"], m
            continue
        kept.append(m)
    cfg["mounts"] = kept
    return cfg


GOLDEN_CASES = {"minimal": (), "workspace": ("--env", "CI_TOKEN=from-flag"), "egress": ()}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden_config(tr, home, name):
    with open(os.path.join(GOLDEN_DIR, name + ".yaml")) as f:
        manifest = f.read()
    with open(os.path.join(home.proj, "s.sh"), "w") as f:
        f.write("echo hello\n")
    env = home.env(BENTO_EGRESS="/usr/libexec/bento/bento-egress", BENTO_SELF="/usr/libexec/bento/bento",
                   BENTO_INIT="/usr/libexec/bento/bento-init",
                   CI_TOKEN="t0k", HTTPS_PROXY="http://host:1")
    res = tr.translate(manifest, *GOLDEN_CASES[name], env=env)
    assert res.rc == 0, res
    got = normalize(res.bundle.config, {res.bundle.path: "@BUNDLE@", home.home: "@HOME@",
                                        os.path.realpath(shutil.which("sh")): "@SH@"})
    got["process"]["user"] = {"uid": "@UID@" if got["process"]["user"]["uid"] == os.getuid() else "?",
                              "gid": "@GID@" if got["process"]["user"]["gid"] == os.getgid() else "?"}
    for key in ("uidMappings", "gidMappings"):
        for e in got["linux"][key]:
            assert e["containerID"] == e["hostID"] == (os.getuid() if key[0] == "u" else os.getgid())
            e["containerID"] = e["hostID"] = "@ID@"
    # the cleanup hook names each grant's device and inode: host facts
    for hook in got.get("hooks", {}).get("poststop", []):
        args = hook["args"]
        for i, a in enumerate(args[:-2]):
            if a == "--beneath":
                st = os.stat(args[i + 1].replace("@HOME@", home.home))
                assert args[i + 2] == "%d:%d" % (st.st_dev, st.st_ino), args
                args[i + 2] = "@DEV@:@INO@"
    path = os.path.join(GOLDEN_DIR, name + ".json")
    if os.environ.get("BENTO_GOLDEN_UPDATE"):
        with open(path, "w") as f:
            json.dump(got, f, indent=2, sort_keys=True)
            f.write("\n")
    with open(path) as f:
        want = json.load(f)
    assert got == want, "config.json differs from %s (BENTO_GOLDEN_UPDATE=1 rewrites it):\n%s" % (
        path, "\n".join(dict_diff(want, got)))


def dict_diff(a, b, where=""):
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a:
                out.append("+ %s.%s = %r" % (where, k, b[k]))
            elif k not in b:
                out.append("- %s.%s = %r" % (where, k, a[k]))
            else:
                out += dict_diff(a[k], b[k], "%s.%s" % (where, k))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in dict_diff(x, y, "%s[%d]" % (where, i))]
    return [] if a == b else ["~ %s: %r -> %r" % (where, a, b)]


def test_relative_paths_and_unicode_names(trr, home):
    """A relative manifest path and -o resolve against the cwd; grants are
    relative to the manifest's directory; non-ASCII names (RTL letters are
    allowed by the screen) pass through unchanged."""
    name = "\u05d3\u05d5\u05d7-\u00e9t\u00e9"
    os.makedirs(os.path.join(home.proj, name))
    with open(os.path.join(home.proj, name, "f"), "w") as f:
        f.write("unicode\n")
    trr.write_manifest({"entrypoint": "probe", "exec": "all", "read": ["./" + name],
                        "args": ["read", "%s/%s/f" % (home.proj, name)]}, name="rel.yaml")
    res = run_cmd([BENTO, "translate", "rel.yaml", "-o", "../b-rel"], env=home.env(), cwd=home.proj, timeout=60)
    assert res.rc == 0, res
    b = TranslatedBundle(os.path.join(home.home, "b-rel"))
    cfg = b.config
    assert cfg["annotations"]["org.bento.manifest"] == os.path.join(home.proj, "rel.yaml")
    assert cfg["process"]["args"][:3] == [INIT, "--", home.probe]
    assert any(m["destination"] == os.path.join(home.proj, name) for m in cfg["mounts"])
    out = trr.rt.run(b)
    assert out.rc == 0, out
    assert json.loads(out.out)["data"] == "unicode\n"


def test_approval_state_is_recorded_not_required(tr, home, test_dir):
    """translate compiles any valid manifest and records its approval state
    (unapproved, current, stale) in org.bento.approval."""
    env = home.env(XDG_STATE_HOME=os.path.join(test_dir, "state"))
    m = "entrypoint: ./probe\nexec: all\n"
    res = tr.translate(m, env=env)
    assert res.rc == 0 and res.bundle.config["annotations"]["org.bento.approval"] == "unapproved", res
    os.chmod(res.manifest, 0o600)
    ap = run_cmd([BENTO, "approve", "--yes", res.manifest], env=env, timeout=60)
    assert ap.rc == 0, ap
    out = os.path.join(test_dir, "approved")
    res = run_cmd([BENTO, "translate", res.manifest, "-o", out], env=env, timeout=60)
    assert res.rc == 0, res
    cfg = TranslatedBundle(out).config
    assert cfg["annotations"]["org.bento.approval"] == "current"
    with open(os.path.join(home.proj, "m.yaml"), "a") as f:
        f.write("read: [/etc/ssl]\n")
    res = run_cmd([BENTO, "translate", os.path.join(home.proj, "m.yaml"), "-o", out], env=env, timeout=60)
    assert res.rc == 0, res
    assert TranslatedBundle(out).config["annotations"]["org.bento.approval"] == "stale"
    assert TranslatedBundle(out).config["annotations"]["org.bento.fingerprint"] != cfg["annotations"][
        "org.bento.fingerprint"]


def test_E9_paths_inside_managed_mounts_are_fine(trr, home):
    s = trr.steps({"read": ["/proc/cpuinfo"]}, "read /proc/cpuinfo")
    assert s[0].json()["ok"] and "processor" in s[0].json()["data"]


def test_translation_is_deterministic(tr, home):
    """The same manifest on the same host: byte-identical config.json, into
    the same -o twice and (bundle path aside) into another directory."""
    with open(os.path.join(GOLDEN_DIR, "workspace.yaml")) as f:
        manifest = f.read()
    with open(os.path.join(home.proj, "s.sh"), "w") as f:
        f.write("echo hello\n")
    out = os.path.join(tr.bundles, "same")
    first = tr.translate(manifest, out=out)
    assert first.rc == 0, first
    with open(os.path.join(out, "config.json"), "rb") as f:
        a = f.read()
    second = tr.translate(manifest, out=out)
    assert second.rc == 0, second
    with open(os.path.join(out, "config.json"), "rb") as f:
        assert f.read() == a
    other = tr.translate(manifest, out=os.path.join(tr.bundles, "other"))
    with open(os.path.join(other.bundle.path, "config.json"), "rb") as f:
        assert f.read().replace(other.bundle.path.encode(), out.encode()) == a
    assert sorted(os.listdir(out)) == ["config.json", "rootfs", "shield", "shield-dot"]
    # a directory holding anything else is never overwritten
    stray = os.path.join(tr.bundles, "stray")
    os.makedirs(stray)
    with open(os.path.join(stray, "keep.txt"), "w") as f:
        f.write("mine")
    res = tr.translate(manifest.replace("./out]", "./out, ./not-created]"), out=stray)
    assert res.rc == REFUSED and "not part of a bento bundle" in res.err, res
    assert os.listdir(stray) == ["keep.txt"]
    assert not os.path.lexists(os.path.join(home.proj, "not-created")), "a refused translate made a write grant"


def test_bundle_inside_a_write_grant_is_refused(tr, home, test_dir):
    """The confined program must not be able to rewrite its own bundle
    (config.json is the policy the next run enforces): a bundle at or
    inside a write grant, also through a symlink, is refused."""
    m = {"entrypoint": "./probe", "exec": "all", "write": ["./out"]}
    for out in (os.path.join(home.proj, "out", "b"), os.path.join(home.proj, "out")):
        res = tr.translate(m, out=out)
        assert res.rc == REFUSED, res
        assert 'would lie inside the write grant "%s/out"' % home.proj in res.err, res
    os.symlink(os.path.join(home.proj, "out"), os.path.join(test_dir, "via-link"))
    res = tr.translate(m, out=os.path.join(test_dir, "via-link", "b"))
    assert res.rc == REFUSED and "would lie inside the write grant" in res.err, res
    assert not os.path.lexists(os.path.join(home.proj, "out"))  # refused before the grant was made
    res = tr.translate(m, out=os.path.join(home.proj, "b"))  # beside the grant: fine
    assert res.rc == 0, res


def test_bundle_path_too_long_for_the_gate_is_refused(tr, home, test_dir):
    """exec: none names <bundle>/exec-gate.sock; a bundle path that makes it
    longer than a unix socket address would never start: refused up front,
    nothing created.  exec: all needs no socket."""
    out = os.path.join(test_dir, "x" * max(1, 100 - len(test_dir)), "bundle")
    # the parent must exist (bento creates the bundle directory only)
    res = tr.translate({"entrypoint": "./probe", "exec": "all", "write": ["./made"]}, out=out)
    assert res.rc == REFUSED and 'cannot create the bundle directory "%s"' % out in res.err, res
    assert not os.path.lexists(os.path.join(home.proj, "made"))
    os.makedirs(os.path.dirname(out))
    res = tr.translate({"entrypoint": "./probe", "write": ["./made"]}, out=out)
    assert res.rc == REFUSED, res
    assert "would be longer than a unix socket address can be (107 bytes)" in res.err, res
    assert not os.path.lexists(out) and not os.path.lexists(os.path.join(home.proj, "made"))
    res = tr.translate({"entrypoint": "./probe", "exec": "all"}, out=out)
    assert res.rc == 0, res


# ---------------------------------------------------------------------------
# portability: the same bundle under runc and crun

# crun 1.8.1 refuses a cgroup "hybrid" host; it runs in a mount namespace
# where /sys/fs/cgroup is a fresh tmpfs holding only the v1 hierarchies
# (the same hierarchies, so the same cgroups), without the cgroup2 mount.
CGROUP_V1_VIEW = r"""
set -eu
if mountpoint -q /sys/fs/cgroup/unified; then
    hier=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") {
                    if ($(i + 1) == "cgroup" && $5 ~ /^\/sys\/fs\/cgroup\//) print $5, $(i + 3)
                    break } }' /proc/self/mountinfo)
    mount -t tmpfs -o mode=755 bento-v1-view /sys/fs/cgroup
    echo "$hier" | while read -r dir opts; do
        mkdir -p "$dir"
        mount -t cgroup -o "${opts#rw,}" cgroup "$dir"
    done
fi
exec "$@"
"""


def engine_argv(engine, state, *args):
    if engine == "runc":
        return ["runc", "--root", state] + list(args)
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", CGROUP_V1_VIEW, "view",
            "crun", "--root", state] + list(args)


@pytest.fixture
def engine_state(request, test_dir):
    engine = request.param
    if not shutil.which(engine):
        pytest.fail("%s is not installed (apt-get install %s)" % (engine, engine), pytrace=False)
    state = os.path.join(test_dir, engine + "-state")
    os.makedirs(state)
    ids = []
    yield engine, state, ids
    for cid in ids:
        run_cmd(engine_argv(engine, state, "delete", "--force", cid), timeout=20)
        left = harness.cgroup_dirs_named(cid, exact=True)
        for c in left:
            harness.remove_cgroup_tree(c)
        assert not left, "%s left cgroups: %s" % (engine, left)
    assert not harness.mounts_under(test_dir), harness.mounts_under(test_dir)


PORTABLE_STEPS = ("ls {home}/.ssh", "read {home}/.ssh/id_rsa", "read {home}/.netrc", "read {home}/notes.txt",
                  "write {home}/notes.txt", "write {proj}/out/f", "write {proj}/.git/hooks/pre-commit",
                  "netdevs", "read /proc/self/status", "env")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("engine_state", ["runc", "crun"], indirect=True)
def test_other_runtimes_keep_the_core_guarantees(tr, home, engine_state):
    engine, state, ids = engine_state
    steps = [s.format(home=home.home, proj=home.proj) for s in PORTABLE_STEPS]
    b = tr.bundle({"entrypoint": "./probe", "exec": "all", "read": ["~"], "write": ["./out", "~/proj"],
                   "args": ["steps"] + steps})
    cid = "bento-tr-%s" % os.urandom(4).hex()
    ids.append(cid)
    res = run_cmd(engine_argv(engine, state, "run", "--bundle", b.path, cid), timeout=40)
    assert res.rc == 0, res
    s = parse_steps(steps, res.out)
    assert len(s) == len(steps), res
    assert s[0].json()["entries"] == []
    assert_refused(s[1], "ENOENT")
    assert_reads(s[2], "")
    assert_reads(s[3], PLAIN_FILES["notes.txt"])
    assert_refused(s[4], "EROFS")
    assert refused_with(s[5]) is None
    assert_refused(s[6], "EROFS")
    assert [d["name"] for d in json.loads(s[7].text)] == ["lo"]
    fields = dict(line.split(":", 1) for line in s[8].json()["data"].splitlines() if ":" in line)
    assert int(fields["CapEff"], 16) == 0 and int(fields["CapBnd"], 16) == 0 and fields["NoNewPrivs"].strip() == "1"
    assert json.loads(s[9].text) == ["HOME=/tmp", "PATH=/usr/bin:/bin"]
    # the poststop hook removed the shield mount points the engine created
    assert sorted(os.listdir(home.proj)) == [".git", ".vscode", "m.yaml", "out", "probe", "src"]
    assert sorted(os.listdir(os.path.join(home.proj, ".git"))) == ["config", "hooks"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("engine_state", ["runc", "crun"], indirect=True)
def test_other_runtimes_refuse_exec_none_without_the_gate(tr, home, engine_state):
    engine, state, ids = engine_state
    b = tr.bundle({"entrypoint": "./probe", "args": ["say", "TARGET-RAN", "x"]})
    cid = "bento-tr-%s" % os.urandom(4).hex()
    ids.append(cid)
    res = run_cmd(engine_argv(engine, state, "run", "--bundle", b.path, cid), timeout=40)
    assert res.rc not in (0, None), res
    assert "TARGET-RAN" not in res.out, res


@pytest.mark.timeout(60)
@pytest.mark.parametrize("mode", ["none", "none-strict"])
@pytest.mark.parametrize("engine_state", ["runc", "crun"], indirect=True)
def test_other_runtimes_block_exec_through_the_gate(trr, home, engine_state, mode):
    engine, state, ids = engine_state
    b = trr.bundle({"entrypoint": "./probe", "exec": mode, "args": ["steps"] + list(EXEC_STEPS)})
    cid = "bento-tr-%s" % os.urandom(4).hex()
    ids.append(cid)
    res = run_gated(trr.rt, b, runtime_argv=engine_argv(engine, state, "run", "--bundle", b.path, cid))
    trr.rt.ids.remove(res.cid)  # the engine, not bento-runtime, owns this container
    assert res.rc == 0, res
    s = parse_steps(EXEC_STEPS, res.out)
    assert len(s) == len(EXEC_STEPS), res
    assert s[0].line == "TARGET-RAN"
    assert_refused(s[1], "EPERM")
    assert_refused(s[2], "EPERM")
    assert_refused(s[3], "EPERM")  # the child's exec (none), or the fork itself (none-strict)
    if mode == "none":
        assert refused_with(s[4]) is None, s[4]
    else:
        assert_refused(s[4], "EPERM")
    assert refused_with(s[5]) is None, s[5]  # threads always


# ---------------------------------------------------------------------------
# what was checked is what is mounted (threat-model.md): the bundle pins every
# host path by device and inode, and bento-runtime refuses one that changed


def _identity_bundle(trr, home):
    data = home.path("proj/data")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(data, "f"), "w") as f:
        f.write("PUBLIC\n")
    steps = ("ls %s" % data, "read %s/f" % data, "read %s/id_rsa" % data)
    b = trr.bundle({"entrypoint": "./probe", "exec": "all", "read": ["./data"],
                    "args": ["steps"] + list(steps)})
    return b, data, steps


def test_bundle_records_what_each_host_path_was(trr, home):
    b, data, steps = _identity_bundle(trr, home)
    cfg = b.config
    words = cfg["annotations"]["org.bento.mount-identity"].split()
    recorded = {int(w.split(":")[0]): w.split(":")[1:] for w in words}
    dests = [m["destination"] for m in cfg["mounts"]]
    st = os.stat(data)
    assert recorded[dests.index(data)] == ["b", str(st.st_dev), str(st.st_ino)]
    # the fresh pseudo-filesystems land in the rootfs: nothing to record
    assert dests.index("/proc") not in recorded and dests.index("/tmp") not in recorded
    # unchanged, the bundle runs and shows the grant
    res = trr.rt.run(b)
    assert res.rc == 0, res
    s = parse_steps(steps, res.out)
    assert_reads(s[1], "PUBLIC\n")


@pytest.mark.parametrize("how", ["symlink", "exchange"])
def test_a_grant_relinked_after_translate_is_refused(trr, home, how):
    b, data, steps = _identity_bundle(trr, home)
    os.rename(data, data + "-old")
    if how == "symlink":
        os.symlink(home.path(".ssh"), data)  # the key is what the relink wants to show
    else:
        # a directory in its place, as a RENAME_EXCHANGE would leave it
        os.makedirs(data)
        shutil.copy(home.path(".ssh/id_rsa"), os.path.join(data, "id_rsa"))
    res = trr.rt.run(b)
    assert res.rc != 0, res
    assert "is not what bento checked" in res.err, res
    assert "translate the manifest again" in res.err, res
    assert SECRETS[".ssh/id_rsa"].strip() not in res.out, res
    res = run_cmd([BENTO, "inspect", b.path], env=home.env(), timeout=30)
    assert "no longer the object the bundle recorded" in " ".join(res.out.split()), res


def test_a_shield_parent_swapped_after_translate_is_refused(trr, home):
    """The .git/config shield's place: a .git swapped for a decoy after
    translate (its config then writable in the box) is refused."""
    b = trr.bundle({"entrypoint": "./probe", "exec": "all", "write": ["~/proj"],
                    "args": ["steps", "write %s/.git/config" % home.proj]})
    git = os.path.join(home.proj, ".git")
    os.rename(git, git + "-real")
    os.makedirs(os.path.join(git, "hooks"))
    with open(os.path.join(git, "config"), "w") as f:
        f.write("[core]\n")
    res = trr.rt.run(b)
    assert res.rc != 0, res
    assert "is not what bento checked" in res.err, res
    with open(os.path.join(git, "config")) as f:
        assert f.read() == "[core]\n"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("engine_state", ["runc"], indirect=True)
def test_foreign_runtimes_do_not_read_the_record(tr, home, engine_state):
    """What docs/threat-model.md says of runc and crun: they mount whatever
    the bundle's paths name when they run.  This pins that limit, so a
    change is noticed (and the docs with it)."""
    engine, state, ids = engine_state
    data = home.path("proj/data")
    os.makedirs(data, exist_ok=True)
    b = tr.bundle({"entrypoint": "./probe", "exec": "all", "read": ["./data"],
                   "args": ["steps", "read %s/id_rsa" % data]})
    os.rename(data, data + "-old")
    os.symlink(home.path(".ssh"), data)
    cid = "bento-tr-%s" % os.urandom(4).hex()
    ids.append(cid)
    res = run_cmd(engine_argv(engine, state, "run", "--bundle", b.path, cid), timeout=40)
    assert res.rc == 0, res
    s = parse_steps(["read %s/id_rsa" % data], res.out)
    assert_reads(s[0], SECRETS[".ssh/id_rsa"])
