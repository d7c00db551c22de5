# SPDX-License-Identifier: Apache-2.0
"""`bento inspect` (docs/inspect.md): a bundle bento translate wrote is
reported in manifest terms with nothing flagged (exit 0); a copy tampered
with in any way no manifest produces is flagged (exit 3) with the reason;
config.json is treated as hostile input (exit 125 when it cannot be read).

Each test has a scratch HOME with a credential store and a git checkout, so
the bundle carries real shields; translate and inspect see the same HOME.
Needs only the bento binary; nothing here runs a sandbox."""

import copy
import json
import os
import shutil
import subprocess

import pytest

import harness

BENTO = os.path.join(os.environ.get("BENTO_BUILD", "build"), "bin", "bento")


sp_run = harness.completed_run

MANIFEST = """\
entrypoint: ./x
read: ["~"]
write: ["~/proj"]
network:
  - {host: example.com, port: "443"}
limits: {memory: 64M, cpu: "50%", pids: 10}
"""


def environment(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env["HOME"] = str(home)
    return env


@pytest.fixture
def bundle(tmp_path):
    """Translate MANIFEST; returns (bundle dir, home, parsed config)."""
    if not os.access(BENTO, os.X_OK):
        pytest.fail("not built: %s (set BENTO_BUILD)" % BENTO, pytrace=False)
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("secret\n")
    (home / ".gitconfig").write_text("[user]\n")
    (home / "proj" / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "x").write_text("#!/bin/sh\necho hi\n")
    (tmp_path / "x").chmod(0o755)
    (tmp_path / "m.yaml").write_text(MANIFEST)
    out = tmp_path / "bundle"
    r = sp_run([BENTO, "translate", str(tmp_path / "m.yaml"), "-o", str(out)],
                       capture_output=True, text=True, env=environment(home), timeout=60)
    assert r.returncode == 0, r.stderr
    with open(out / "config.json") as f:
        return out, home, json.load(f)


def inspect(path, home, *flags):
    return sp_run([BENTO, "inspect", str(path), *flags], capture_output=True, text=True,
                          env=environment(home), timeout=60)


def tampered(tmp_path, bundle, name, change):
    out, home, config = bundle
    copy_dir = tmp_path / ("t-" + name)
    shutil.copytree(str(out), str(copy_dir), symlinks=True)
    c = copy.deepcopy(config)
    change(c)
    with open(copy_dir / "config.json", "w") as f:
        json.dump(c, f, indent=2)
    r = inspect(copy_dir, home, "--json")
    return r, (json.loads(r.stdout)["flags"] if r.stdout else None)


def test_clean_bundle(bundle):
    out, home, _ = bundle
    r = inspect(out, home)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "nothing flagged" in r.stdout
    assert 'read:         "%s"' % home in r.stdout
    assert 'write:        "%s/proj"' % home in r.stdout
    assert 'hidden     "%s/.ssh"' % home in r.stdout
    assert 'read-only  "%s/proj/.git/hooks"' % home in r.stdout
    assert 'network:      ["example.com:443"] through the bento-egress proxy' in r.stdout
    assert "exec:         none" in r.stdout
    assert "limits:       memory 67108864 bytes, cpu 50000 us per 100000 us, pids 10" in r.stdout
    assert "other OCI runtimes (crun, runc) ignore it" in " ".join(r.stdout.split())
    assert "shield mount point(s) removed by bento's poststop" in " ".join(r.stdout.split())


def test_clean_bundle_json(bundle):
    out, home, _ = bundle
    r = inspect(out, home, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["flags"] == []
    assert doc["shields_checked"] is True
    assert doc["read"] == [str(home)]
    assert doc["write"] == ["%s/proj" % home]
    assert {"path": "%s/.ssh" % home, "kind": "hidden"} in doc["shields"]
    assert doc["network"] == {"namespace": True, "egress": ["example.com:443"]}
    assert doc["exec"] == "none"
    assert doc["annotations"]["org.bento.exec"] == "none"
    assert doc["landlock"] is True


def test_strict_bundle_exec(tmp_path, bundle):
    _, home, _ = bundle
    (tmp_path / "s.yaml").write_text("entrypoint: ./x\nexec: none-strict\n")
    out = tmp_path / "strict"
    sp_run([BENTO, "translate", str(tmp_path / "s.yaml"), "-o", str(out)], check=True,
                   capture_output=True, env=environment(home), timeout=60)
    r = inspect(out, home, "--json")
    assert r.returncode == 0, r.stdout
    doc = json.loads(r.stdout)
    assert doc["exec"] == "none-strict"
    assert doc["network"] == {"namespace": True, "egress": []}


def add_cap(c):
    c["process"]["capabilities"]["bounding"].append("CAP_SYS_ADMIN")


def drop_netns(c):
    c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "network"]


def usr_rw(c):
    for m in c["mounts"]:
        if m["destination"] == "/usr":
            m["options"] = ["rbind", "rw"]


def no_seccomp_rules(c):
    c["linux"]["seccomp"]["syscalls"] = []


def nnp_off(c):
    c["process"]["noNewPrivileges"] = False


def root_rw(c):
    c["root"]["readonly"] = False


def add_device(c):
    c["linux"]["devices"] = [{"path": "/dev/sda", "type": "b", "major": 8, "minor": 0}]


def add_sysfs(c):
    c["mounts"].append({"destination": "/sys", "type": "sysfs", "source": "sysfs"})


def add_hook(c):
    c.setdefault("hooks", {})["prestart"] = [{"path": "/bin/sh", "args": ["sh", "-c", "id"]}]


def cleanup_old_form(c):
    """The cleanup hook without its grants (the form before --beneath)."""
    args = c["hooks"]["poststop"][0]["args"]
    c["hooks"]["poststop"][0]["args"] = args[:2] + [a for a in args[5:] if a.startswith("/")]


def cleanup_elsewhere(c):
    """The cleanup hook walking beneath a directory no write grant holds."""
    args = c["hooks"]["poststop"][0]["args"]
    c["hooks"]["poststop"][0]["args"] = args[:2] + ["--beneath", "/etc", args[4], "/etc/passwd"]


def join_pidns(c):
    for n in c["linux"]["namespaces"]:
        if n["type"] == "pid":
            n["path"] = "/proc/1/ns/pid"


TAMPERS = [
    ("cap", add_cap, "capability CAP_SYS_ADMIN in the bounding set"),
    ("netns", drop_netns, "no network namespace"),
    ("usr", usr_rw, 'the system path "/usr" is bound writable'),
    ("seccomp", no_seccomp_rules, "the annotations claim exec: none, but the seccomp filter"),
    ("nnp", nnp_off, "process.noNewPrivileges is not true"),
    ("root", root_rw, "root.readonly is not true"),
    ("device", add_device, "device /dev/sda"),
    ("sysfs", add_sysfs, 'mount of type "sysfs" at "/sys"'),
    ("hook", add_hook, 'prestart hook "/bin/sh" runs on the host'),
    ("pidns", join_pidns, 'the pid namespace joins "/proc/1/ns/pid"'),
    ("cleanup-old", cleanup_old_form, "the poststop cleanup hook's arguments are not what bento writes"),
    ("cleanup-out", cleanup_elsewhere, 'the poststop cleanup hook removes "/etc/passwd", which is not inside'),
]


@pytest.mark.parametrize("name,change,expect", TAMPERS, ids=[t[0] for t in TAMPERS])
def test_tampered(tmp_path, bundle, name, change, expect):
    r, flags = tampered(tmp_path, bundle, name, change)
    assert r.returncode == 3, r.stdout + r.stderr
    assert any(expect in f for f in flags), flags


def test_missing_shield(tmp_path, bundle):
    _, home, _ = bundle
    ssh = "%s/.ssh" % home

    def drop(c):
        c["mounts"] = [m for m in c["mounts"] if m["destination"] != ssh]
    r, flags = tampered(tmp_path, bundle, "shield", drop)
    assert r.returncode == 3
    assert any(f.startswith('missing shield: "%s" (hidden, credentials)' % ssh) for f in flags), \
        flags


def test_shield_before_grant(tmp_path, bundle):
    _, home, _ = bundle
    ssh = "%s/.ssh" % home

    def move(c):
        shield = [m for m in c["mounts"] if m["destination"] == ssh][0]
        c["mounts"].remove(shield)
        c["mounts"].insert(0, shield)
    r, flags = tampered(tmp_path, bundle, "order", move)
    assert r.returncode == 3
    assert any("is mounted before the grant" in f for f in flags), flags


def test_no_seccomp_at_all(tmp_path, bundle):
    r, flags = tampered(tmp_path, bundle, "noseccomp", lambda c: c["linux"].pop("seccomp"))
    assert r.returncode == 3
    assert any("linux.seccomp is missing" in f for f in flags), flags


def test_execveat_seam(tmp_path, bundle):
    def seam(c):
        c["linux"]["seccomp"]["syscalls"][0]["names"] = ["execve"]
    r, flags = tampered(tmp_path, bundle, "seam", seam)
    assert r.returncode == 3
    assert any("blocks execve but not execveat" in f for f in flags), flags


def test_human_flags(tmp_path, bundle):
    out, home, config = bundle
    copy_dir = tmp_path / "human"
    shutil.copytree(str(out), str(copy_dir), symlinks=True)
    c = copy.deepcopy(config)
    add_cap(c)
    c["mounts"].append({"destination": "/evil\nnothing flagged", "type": "sysfs"})
    with open(copy_dir / "config.json", "w") as f:
        json.dump(c, f)
    r = inspect(copy_dir, home)
    assert r.returncode == 3
    assert "FLAGGED - 2 things no bento manifest produces:" in r.stdout
    assert "\nnothing flagged" not in r.stdout  # an embedded newline cannot forge a line


def test_foreign_bundle(tmp_path, bundle):
    """A bundle without bento's annotations: no shield claim to check."""
    def strip(c):
        c.pop("annotations")
        c["mounts"] = [m for m in c["mounts"] if m.get("type") != "tmpfs" or
                       m["destination"] in ("/dev", "/dev/shm", "/tmp")]
    r, flags = tampered(tmp_path, bundle, "foreign", strip)
    assert not any(f.startswith("missing shield") for f in flags), flags
    assert json.loads(r.stdout)["shields_checked"] is False


def test_hostile_config(tmp_path, bundle):
    _, home, _ = bundle
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "config.json").write_text('{"a": 1, "a": 2}')
    r = inspect(bad, home)
    assert r.returncode == 125
    assert "cannot inspect" in r.stderr
    (bad / "config.json").write_text("[1, 2]")
    assert inspect(bad, home).returncode == 125
    with open(bad / "config.json", "w") as f:
        f.write('{"x": "' + "a" * (64 << 20) + '"}')
    r = inspect(bad, home)
    assert r.returncode == 125
    assert "is 67,108,873 bytes; the limit is 64 MiB" in r.stderr, r.stderr
    (bad / "config.json").write_text('{"process": "nope", "linux": {"namespaces": 7}}')
    r = inspect(bad, home, "--json")
    assert r.returncode == 3
    flags = json.loads(r.stdout)["flags"]
    assert "process is not an object, so it cannot be judged" in flags


def test_usage(tmp_path):
    r = sp_run([BENTO, "inspect"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 125
    assert "inspect needs a bundle directory" in r.stderr
    r = sp_run([BENTO, "--help"], capture_output=True, text=True, timeout=30)
    assert "inspect" in r.stdout + r.stderr


def test_shield_file_tampered(tmp_path, bundle):
    out, home, config = bundle
    copy_dir = tmp_path / "sf"
    shutil.copytree(str(out), str(copy_dir), symlinks=True)
    os.chmod(str(copy_dir / "shield"), 0o600)
    (copy_dir / "shield").write_text("not empty\n")
    c = copy.deepcopy(config)
    for m in c["mounts"]:
        if m["source"].endswith("/shield"):
            m["source"] = str(copy_dir / "shield")
    with open(copy_dir / "config.json", "w") as f:
        json.dump(c, f)
    r = inspect(copy_dir, home, "--json")
    assert r.returncode == 3
    assert any("is missing or not an empty regular file" in f
               for f in json.loads(r.stdout)["flags"])
