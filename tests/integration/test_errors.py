# SPDX-License-Identifier: Apache-2.0
"""Refusals: bad config.json (named by JSON path), bad CLI use, error log
format; a failed create leaves nothing behind."""

import json
import os

import pytest

from harness import RFC3339, RUNTIME, expect_create_failure, run_cmd


def _set(path, value):
    def mutate(cfg):
        *parents, last = path
        node = cfg
        for p in parents:
            node = node[p]
        node[last] = value
    return mutate


def _delete(path):
    def mutate(cfg):
        *parents, last = path
        node = cfg
        for p in parents:
            node = node[p]
        del node[last]
    return mutate


BAD_CONFIGS = [
    ("uid-string", _set(["process", "user", "uid"], "zero"), "process.user.uid"),
    ("uid-negative", _set(["process", "user", "uid"], -1), "process.user.uid"),
    ("gid-float", _set(["process", "user", "gid"], 1.5), "process.user.gid"),
    ("args-empty", _set(["process", "args"], []), "process.args"),
    ("args-string", _set(["process", "args"], "/bin/sh"), "process.args"),
    ("cwd-relative", _set(["process", "cwd"], "tmp"), "process.cwd"),
    ("env-not-list", _set(["process", "env"], "PATH=/bin"), "process.env"),
    ("root-path-missing", _delete(["root", "path"]), "root.path"),
    ("ns-type", _set(["linux", "namespaces", 0, "type"], "bogus"), "linux.namespaces[0].type"),
    ("mount-destination", _set(["mounts", 0, "destination"], 5), "mounts[0].destination"),
    ("mount-options", _set(["mounts", 1, "options"], "nosuid"), "mounts[1].options"),
    ("rlimit-type", _set(["process", "rlimits"], [{"type": "RLIMIT_BOGUS", "soft": 1, "hard": 1}]),
     "process.rlimits[0]"),
    ("rlimit-duplicate", _set(["process", "rlimits"], [{"type": "RLIMIT_NOFILE", "soft": 1, "hard": 1},
                                                       {"type": "RLIMIT_NOFILE", "soft": 2, "hard": 2}]),
     "process.rlimits"),
    ("caps-not-list", _set(["process", "capabilities", "bounding"], "CAP_KILL"), "process.capabilities.bounding"),
    ("oci-version", _set(["ociVersion"], 5), "ociVersion"),
    ("hostname-number", _set(["hostname"], 7), "hostname"),
    ("oom-string", _set(["process", "oomScoreAdj"], "high"), "process.oomScoreAdj"),
    ("sysctl-value", _set(["linux", "sysctl"], {"net.ipv4.ip_forward": 1}), "linux.sysctl"),
    ("annotation-value", _set(["annotations"], {"a": 1}), "annotations"),
    ("uidmap-size", _set(["linux", "uidMappings"], [{"containerID": 0, "hostID": 0, "size": "x"}]),
     "linux.uidMappings[0].size"),
]


@pytest.mark.parametrize("name,mutate,path", BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_bad_config_names_json_path(rt, bundle, name, mutate, path):
    b = bundle()
    mutate(b.config)
    expect_create_failure(rt, b, message=path)


@pytest.mark.parametrize("raw,what", [
    ("{ this is not json", "syntax"),
    ('{"ociVersion": "1.0.2", "ociVersion": "1.0.2"}', "duplicate key"),
    ("[]", "not an object"),
    ("", "empty file"),
])
def test_malformed_config_rejected(rt, bundle, raw, what):
    b = bundle()
    b.write_raw(raw)
    res = expect_create_failure(rt, b)
    assert "config.json" in res.err or "json" in res.err.lower(), res


def test_nul_byte_in_string_rejected(rt, bundle):
    b = bundle()
    text = json.dumps(b.config).replace('"/bin/bento-probe"', '"/bin/bento-probe\\u0000x"')
    assert "\\u0000" in text
    b.write_raw(text)
    expect_create_failure(rt, b)


def test_oversized_config_rejected(rt, bundle):
    b = bundle()
    b.config["annotations"] = {"big": "x" * (64 << 20)}
    res = expect_create_failure(rt, b, message="bytes; the limit is 64 MiB")
    size = os.path.getsize(os.path.join(b.path, "config.json"))
    assert "config.json' is {:,} bytes".format(size) in res.err, res
    # five times the old 4 MiB limit is a config like any other now
    b.config["annotations"] = {"big": "x" * (20 << 20)}
    res = rt.run(b)
    assert res.rc == 0, res


def test_missing_config_json(rt, bundle):
    b = bundle()
    b.save()
    os.unlink(os.path.join(b.path, "config.json"))
    b.save = lambda: None
    expect_create_failure(rt, b, message="config.json")


def test_missing_bundle_directory(rt, bundle, test_dir):
    b = bundle()
    b.path = os.path.join(test_dir, "no-such-bundle")
    b.save = lambda: None
    expect_create_failure(rt, b)


def test_missing_rootfs(rt, bundle):
    b = bundle()
    b.config["root"]["path"] = "no-such-rootfs"
    expect_create_failure(rt, b)


def test_unknown_properties_ignored_and_annotations_kept(rt, bundle):
    b = bundle()
    b.config["bentoFutureField"] = {"x": [1, 2, 3]}
    b.process["someNewProcessField"] = True
    b.linux["someNewLinuxField"] = "yes"
    b.config["annotations"] = {"org.example.key": "value", "io.podman.annotations.autoremove": "FALSE"}
    b.probe("sleep", "60")
    cid, pid = rt.create_ok(b)
    assert rt.state_json(cid)["annotations"] == b.config["annotations"]
    assert rt.delete(cid, force=True).rc == 0


def test_error_log_json(rt, test_dir):
    log = os.path.join(test_dir, "runtime.log")
    res = rt.cmd("state", "no-such-container", global_opts=["--log", log, "--log-format", "json"])
    assert res.rc != 0, res
    assert "container does not exist" in res.err, "the message must also go to stderr:\n%s" % res
    with open(log) as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    errors = [json.loads(l) for l in lines if json.loads(l).get("level") == "error"]
    assert len(errors) == 1, lines
    e = errors[0]
    assert "container does not exist" in e["msg"]
    assert RFC3339.match(e["time"]), e


def test_error_log_json_for_bad_config(rt, bundle, test_dir):
    log = os.path.join(test_dir, "runtime.log")
    b = bundle()
    b.process["user"]["uid"] = "root"
    cid = rt.new_id()
    res = rt.create(b, cid, global_opts=["--log=%s" % log, "--log-format=json"])
    assert res.rc != 0, res
    with open(log) as f:
        entries = [json.loads(l) for l in f.read().splitlines() if l.strip()]
    errors = [e for e in entries if e.get("level") == "error"]
    assert len(errors) == 1 and "process.user.uid" in errors[0]["msg"], entries
    assert not os.path.exists(rt.state_dir(cid))


def test_success_logs_no_error(rt, bundle, test_dir):
    log = os.path.join(test_dir, "runtime.log")
    b = bundle()
    b.probe("exit", "0")
    res = rt.run(b, global_opts=["--log", log, "--log-format", "json"])
    assert res.rc == 0, res
    if os.path.exists(log):
        with open(log) as f:
            for line in f.read().splitlines():
                if line.strip():
                    assert json.loads(line).get("level") != "error", line


@pytest.mark.parametrize("argv", [
    ["no-such-verb"],
    ["--no-such-global-option", "list"],
    ["create", "--no-such-option", "x"],
    ["create"],
    ["start"],
    ["delete"],
    ["kill"],
    ["--log-format", "yaml", "list"],
])
def test_bad_command_lines(rt, argv):
    res = rt.cmd(*argv)
    assert res.rc not in (0, None), res
    assert res.err.strip(), "refused without a message:\n%s" % res
    assert not os.path.exists(rt.root) or os.listdir(rt.root) == []


def test_state_of_unknown_container_without_root_dir(test_dir):
    res = run_cmd([RUNTIME, "--root", os.path.join(test_dir, "never-created"), "state", "x"], timeout=10)
    assert res.rc != 0 and "container does not exist" in res.err, res


@pytest.mark.skipif(os.path.exists("/run/systemd/system"),
                    reason="systemd runs on this host, so --systemd-cgroup is not refused here")
def test_systemd_cgroup_without_systemd_is_reported(rt, bundle):
    # `run` (test_cgroups.py has `create`): said plainly, never a crash,
    # never debris, and the container's program never starts
    b = bundle("/bin/sh", "-c", "echo started")
    cid = rt.new_id()
    res = rt.run(b, cid, global_opts=["--systemd-cgroup"])
    assert res.rc == 1, res
    assert "--systemd-cgroup: systemd is not running on this host" in res.err, res
    assert "started" not in rt.container_output(cid), res
    assert not os.path.exists(rt.state_dir(cid))
