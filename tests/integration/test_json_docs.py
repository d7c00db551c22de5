# SPDX-License-Identifier: Apache-2.0
"""Every key of every `--json` document bento writes is documented in the
JSON OUTPUT section of that verb's manual page (docs/cli/bento-<verb>.md),
so the documents and their reference cannot drift apart.

Two ways, so neither a key the tests never provoke nor a writer the list
below forgets slips through:

  * from the source: every key literal the JSON writers of a verb pass
    (translate/.../*.c, the functions listed in WRITERS) must be in the
    verb's JSON OUTPUT section, as `key` or "key";
  * from real documents: validate, translate, inspect, doctor and run --json
    (a plain run with --record-exec, a run that hits shields and a refusal)
    are parsed and every key in them, at any depth, must be there too
    (except under the members whose keys are data: env, annotations, ...).
"""

import json
import os
import re

import pytest

import harness
from test_bento_run import world  # noqa: F401  (the fixture)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENTO = os.path.join(harness.BUILD, "bin", "bento")

# verb -> [(source file, functions in it, or None for the whole file)]
JSON_PARTS = "translate/report/json-parts.c"
ALIASES = "translate/policy/alias-scan.c"
WRITERS = {
    "doctor": [("translate/cli/cmd-doctor.c", None), (JSON_PARTS, ["report_json_layer"])],
    "translate": [("translate/cli/cmd-translate.c", None)],
    "profile": [("translate/profile/json.c", None)],
    "inspect": [("translate/report/inspect-print.c", None)],
    "validate": [("translate/report/validate-json.c", None),
                 (JSON_PARTS, ["report_json_shielded_grant"]), (ALIASES, ["alias_hit_json"])],
    "run": [("translate/run/events.c", None), ("translate/run/exec-record.c", None),
            (JSON_PARTS, None), (ALIASES, ["alias_hit_json"])],
}

# members whose keys are data (names, paths, variables), not document keys
DATA_MEMBERS = {"env", "annotations", "limits", "unshieldable_relocations"}
# inspect copies these from config.json as they are (OCI's keys, not bento's;
# its page says so)
COPIED = {"inspect": {"args", "user", "capabilities", "namespaces"}}


def json_output_section(verb):
    with open(os.path.join(ROOT, "docs", "cli", "bento-%s.md" % verb)) as f:
        text = f.read()
    m = re.search(r"^## JSON OUTPUT\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert m, "docs/cli/bento-%s.md has no JSON OUTPUT section" % verb
    return m.group(1)


def documented(key, section):
    return "`%s`" % key in section or '"%s"' % key in section


def function_bodies(text, names):
    """The bodies of the named top-level C functions in text."""
    out = []
    for name in names:
        m = re.search(r"^[a-z].*\b%s\([^)]*\)\n\{\n(.*?)^\}\n" % re.escape(name), text, re.S | re.M)
        assert m, "no function %s" % name
        out.append(m.group(1))
    return "\n".join(out)


def source_keys(path, functions):
    """String literals shaped like keys in the calls that take a JSON
    writer first (bento_jsonw_* and the writers' own helpers)."""
    with open(os.path.join(ROOT, path)) as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    if functions:
        text = function_bodies(text, functions)
    keys = set()
    for m in re.finditer(r"\b\w+\(\s*&?w\s*,([^;]*)", text):
        keys |= set(re.findall(r'"([a-z][a-z0-9_]*)"', m.group(1)))
    return keys


@pytest.mark.parametrize("verb", sorted(WRITERS))
def test_every_key_in_the_source_is_documented(verb):
    section = json_output_section(verb)
    keys = set()
    for path, functions in WRITERS[verb]:
        found = source_keys(path, functions)
        assert found, "%s: no keys found: has the writer moved?" % path
        keys |= found
    missing = sorted(k for k in keys if not documented(k, section))
    assert not missing, "bento %s --json keys missing from docs/cli/bento-%s.md, JSON OUTPUT: %s" \
        % (verb, verb, missing)


def test_the_source_scan_sees_a_new_key(tmp_path):
    # the denial side of the check above: a key nobody documented is caught
    assert "gate_denied" in source_keys("translate/run/events.c", None)
    assert not documented("no_such_key_anywhere", json_output_section("run"))
    assert documented("gate_denied", json_output_section("run"))


def every_key(doc, opaque, path=""):
    """(key, where) for every member at every depth, not below the opaque ones."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield k, path + "." + k
            if k not in opaque:
                yield from every_key(v, opaque, path + "." + k)
    elif isinstance(doc, list):
        for v in doc:
            yield from every_key(v, opaque, path + "[]")


def assert_documented(verb, docs):
    section = json_output_section(verb)
    opaque = DATA_MEMBERS | COPIED.get(verb, set())
    missing = sorted({where for d in docs for k, where in every_key(d, opaque)
                      if not documented(k, section)})
    assert not missing, "bento %s --json emitted undocumented keys: %s" % (verb, missing)


def test_emitted_documents_are_documented(world):  # noqa: F811
    w = world
    w.write(os.path.join(w.home, ".gitconfig"), "[user]\n\tname = x\n")
    os.makedirs(os.path.join(w.work, "out"))
    m = w.manifest("entrypoint: ./s.sh\ninterpreter: sh\nread: [\"~/.ssh\", ./nothing-here]\n"
                   "write: [./out]\nenv: [LANG]\nnetwork: [{host: example.com, port: \"443\"}]\n"
                   "limits: {memory: 64M, pids: 32}\n",
                   script="echo hi\n")
    bad = w.manifest("entrypoint: ./s.sh\nwrite: [\"~/data\", /]\n", name="bad.yaml")

    res = w.bento("validate", "--json", m)
    assert res.rc == 0, res
    bad_res = w.bento("validate", "--json", "--relocatable", bad)
    assert bad_res.rc == 125, bad_res
    validate_docs = [json.loads(res.out), json.loads(bad_res.out)]
    assert "refused_grants" in validate_docs[1] and "pinned_paths" in validate_docs[1]
    assert_documented("validate", validate_docs)

    res = w.bento("doctor", "--json")
    assert res.rc in (0, 3), res
    assert_documented("doctor", [json.loads(res.out)])

    bundle = os.path.join(w.dir, "bundle")
    res = w.bento("translate", "--json", m, "-o", bundle)
    assert res.rc == 0, res
    assert_documented("translate", [json.loads(res.out)])
    res = w.bento("inspect", "--json", bundle)
    assert res.rc in (0, 3), res
    assert_documented("inspect", [json.loads(res.out)])

    w.approve(m)
    runs = []
    for flags in (["--json", "--record-exec"], ["--json"]):
        plain = w.manifest("entrypoint: ./p.sh\ninterpreter: sh\nexec: all\nwrite: [./out]\n",
                           script="/bin/true; echo x > out/f\n", name="p.yaml",
                           script_name="p.sh")
        w.approve(plain)
        res = w.run(plain, *flags)
        assert res.rc == 0, res
        runs += [json.loads(line) for line in res.out.splitlines()]
    res = w.run(m, "--json")
    runs += [json.loads(line) for line in res.out.splitlines()]
    unapproved = w.manifest("entrypoint: ./s.sh\ninterpreter: sh\n", name="u.yaml")
    res = w.run(unapproved, "--json")
    assert res.rc == 125, res
    runs += [json.loads(line) for line in res.out.splitlines()]
    kinds = {e["event"] for e in runs}
    assert {"verdict", "refusal", "stdout"} <= kinds, kinds
    assert any("exec_record" in e for e in runs) and any("shields" in e for e in runs)
    assert_documented("run", runs)
