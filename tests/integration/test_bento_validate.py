# SPDX-License-Identifier: Apache-2.0
"""Smoke tests of `bento validate` (spec/bento.md §3.3, first stage): a good
manifest exits 0 and shows what it grants as written; a bad one exits 125
with every problem located as file:line:col.  Needs only the bento binary
($BENTO_BUILD/bin/bento); nothing here runs a sandbox."""

import json
import os
import subprocess

import pytest

BENTO = os.path.join(os.environ.get("BENTO_BUILD", "build"), "bin", "bento")

GOOD = """\
entrypoint: ./hello.sh
interpreter: sh
read: [/data/*]
network:
  - {host: api.example.com, port: "443"}
limits: {memory: 128M}
"""

BAD = """\
entrypoint: ./hello.sh
env: ["1X"]
read: [""]
limits: {cpu: "07%"}
"""


def validate(tmp_path, text, *flags, name="m.yaml"):
    if not os.access(BENTO, os.X_OK):
        pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return subprocess.run([BENTO, "validate", str(path), *flags], capture_output=True,
                          text=True, timeout=30), str(path)


def test_good_manifest(tmp_path):
    r, path = validate(tmp_path, GOOD)
    assert r.returncode == 0, r.stderr
    assert "manifest:     %s - ok" % path in r.stdout
    assert "exec:         blocked on the standard exec path (execve)" in r.stdout
    assert "network:      [api.example.com:443]" in r.stdout
    assert "not reported" in r.stdout  # no pretending about approval


def test_good_manifest_json(tmp_path):
    r, _ = validate(tmp_path, GOOD, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["exec"] == "none"
    assert doc["network"] == ["api.example.com:443"]
    assert doc["limits"] == {"memory": "128M"}
    assert "approval" not in doc


def test_strict_refuses_without_approval_checks(tmp_path):
    r, _ = validate(tmp_path, GOOD, "--json", "--strict")
    assert r.returncode == 125
    json.loads(r.stdout)  # the document is still printed first


def test_bad_manifest(tmp_path):
    r, path = validate(tmp_path, BAD)
    assert r.returncode == 125
    assert r.stdout == ""
    assert r.stderr.startswith("bento: the manifest has 3 problems:\n")
    assert "%s:3:8: policy: read[0] is empty" % path in r.stderr
    assert "%s:2:7: policy: invalid env name \"1X\"" % path in r.stderr
    assert "%s:4:15: policy: limits.cpu \"07%%\" must be a plain decimal percentage" % path \
        in r.stderr


def test_hostile_input(tmp_path):
    r, path = validate(tmp_path, "entrypoint: ./x\nread: &a [/x]\nwrite: *a\n")
    assert r.returncode == 125
    assert "%s:2:7: manifest: line 2 uses a YAML anchor, alias, or merge key" % path in r.stderr
    r, _ = validate(tmp_path, b"entrypoint: \"./x\\e[31m\\a\"\n")
    assert r.returncode == 125
    assert "control character (U+001B)" in r.stderr
    assert "\x1b" not in r.stderr and "\x07" not in r.stderr


def test_script_instead_of_manifest(tmp_path):
    r, path = validate(tmp_path, "#!/bin/sh\necho hi\n", name="s.sh")
    assert r.returncode == 125
    assert "looks like a script, not a manifest" in r.stderr


def test_usage_errors(tmp_path):
    r = subprocess.run([BENTO, "validate"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 125
    assert "validate needs a manifest path" in r.stderr
    assert "usage: bento validate" in r.stderr
    r = subprocess.run([BENTO, "nope"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 125
    assert "Run `bento --help` to see the commands." in r.stderr


def test_version():
    r = subprocess.run([BENTO, "version"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0
    assert r.stdout.startswith("bento ")
    assert "Platform: linux/" in r.stdout
