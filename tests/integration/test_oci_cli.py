# SPDX-License-Identifier: Apache-2.0
"""The command line as engines and crun's tests call bento-runtime:
--cgroup-manager, run/create --config, VERB --help, the --version feature
line, `features`, delete --regex, --no-subreaper."""

import json
import os

import pytest

from harness import RUNTIME, cgroup_dirs_named, run_cmd

VERBS = ["create", "start", "state", "kill", "delete", "run", "exec", "list", "spec", "features",
         "pause", "resume", "ps", "update"]


@pytest.mark.parametrize("verb", VERBS)
def test_help_after_each_verb(verb):
    for flag in ("--help", "-h"):
        res = run_cmd([RUNTIME, verb, flag], timeout=10)
        assert res.rc == 0, res
        assert "bento-runtime [global options] %s" % verb in res.out, res
        assert res.err == "", res
    # the same through `help VERB`
    res = run_cmd([RUNTIME, "help", verb], timeout=10)
    assert res.rc == 0 and "[global options] %s" % verb in res.out, res


def test_verb_help_lists_the_options_it_parses():
    res = run_cmd([RUNTIME, "create", "--help"], timeout=10)
    for opt in ("--bundle, -b DIR", "--config, -f FILE", "--pid-file FILE", "--console-socket PATH",
                "--no-pivot", "--no-new-keyring", "--no-subreaper", "--preserve-fds N"):
        assert opt in res.out, res
    # run's own options are not create's
    assert "--detach" not in res.out and "--keep" not in res.out, res
    res = run_cmd([RUNTIME, "create", "--detach", "x"], timeout=10)
    assert res.rc != 0 and "unknown option '--detach'" in res.err, res
    # an unknown option is still refused (help is not a catch-all)
    res = run_cmd([RUNTIME, "kill", "--bogus", "x"], timeout=10)
    assert res.rc != 0 and "--bogus" in res.err, res


def feature_line():
    res = run_cmd([RUNTIME, "--version"], timeout=10)
    assert res.rc == 0, res
    tags = [l for l in res.out.splitlines() if l.startswith("+")]
    assert len(tags) == 1, res
    return set(tags[0].split())


def features():
    res = run_cmd([RUNTIME, "features"], timeout=10)
    assert res.rc == 0, res
    return json.loads(res.out)


def test_version_feature_line_matches_the_build():
    tags = feature_line()
    f = features()
    lnx = f["linux"]
    for must in ("+SECCOMP", "+CAP", "+SYSTEMD", "+EBPF"):
        assert must in tags, tags
    # what is not built is not claimed: no checkpoint/restore here
    assert "+CRIU" not in tags, tags
    # the line and the features document say the same
    assert ("+SECCOMP" in tags) == lnx["seccomp"]["enabled"]
    assert ("+SELINUX" in tags) == lnx["selinux"]["enabled"]
    assert ("+APPARMOR" in tags) == lnx["apparmor"]["enabled"]
    assert ("+SYSTEMD" in tags) == lnx["cgroup"]["systemd"]


def test_features_document(rt, bundle):
    f = features()
    assert f["ociVersionMin"] == "1.0.0" and f["ociVersionMax"] == "1.2.0"
    for key in ("hooks", "mountOptions", "linux", "annotations", "potentiallyUnsafeConfigAnnotations"):
        assert key in f, f
    lnx = f["linux"]
    for key in ("namespaces", "capabilities", "cgroup", "seccomp", "apparmor", "selinux", "intelRdt",
                "mountExtensions", "netDevices"):
        assert key in lnx, lnx
    assert set(f["hooks"]) == {"prestart", "createRuntime", "createContainer", "startContainer", "poststart",
                               "poststop"}
    assert "time" not in lnx["namespaces"] and "user" in lnx["namespaces"]
    assert lnx["netDevices"] == {"enabled": False}
    assert "io.github.seccomp.libseccomp.version" in f["annotations"]
    # what it lists is true: a listed namespace and mount option are accepted,
    # what it says is not there (the time namespace, netDevices) is refused
    b = bundle("/bin/true")
    b.set_ns("cgroup")
    b.add_mount("/mnt", type="tmpfs", source="tmpfs", options=["nosuid", "nodev", "noexec"])
    assert all(o in f["mountOptions"] for o in ("nosuid", "nodev", "noexec"))
    res = rt.run(b)
    assert res.rc == 0, res
    b.set_ns("time")
    res = rt.run(b)
    assert res.rc != 0 and "time" in res.err, res
    b.drop_ns("time")
    b.linux["netDevices"] = {"eth9": {}}
    res = rt.run(b)
    assert res.rc != 0 and "netDevices" in res.err, res


def test_cgroup_manager_values(rt, bundle):
    for bad in ("bogus", ""):
        res = rt.cmd("state", "x", global_opts=["--cgroup-manager", bad])
        assert res.rc != 0 and "--cgroup-manager" in res.err, res
    b = bundle("/bin/true")
    res = rt.run(b, global_opts=["--cgroup-manager", "cgroupfs"])
    assert res.rc == 0, res


def test_cgroup_manager_disabled_makes_no_cgroup_and_says_what_is_not_enforced(rt, bundle):
    b = bundle("/bin/sh", "-c", "cat /proc/self/cgroup; sleep 30")
    b.linux["resources"] = {"pids": {"limit": 50}, "memory": {"limit": 64 << 20}}
    cid = rt.new_id()
    res = rt.run(b, cid, "--detach", global_opts=["--cgroup-manager", "disabled"])
    assert res.rc == 0, res
    # every dropped limit is named, none silently
    assert "linux.resources.pids: not enforced" in res.err, res
    assert "linux.resources.memory: not enforced" in res.err, res
    assert cgroup_dirs_named(cid) == []
    st = rt.state_json(cid)
    # the init stays in our cgroup
    with open("/proc/%d/cgroup" % st["pid"]) as f, open("/proc/self/cgroup") as g:
        assert f.read() == g.read()
    assert rt.delete(cid, force=True).rc == 0
    # the default manager does make it and enforces the limit
    cid2 = rt.new_id()
    res = rt.run(b, cid2, "--detach")
    assert res.rc == 0 and "not enforced" not in res.err, res
    assert cgroup_dirs_named(cid2) != []


def test_cgroup_manager_disabled_without_resources_still_names_a_cgroups_path(rt, bundle):
    # nothing to limit: the runtime need not look at the host's cgroups at
    # all, and still says that a cgroupsPath goes unused
    b = bundle("/bin/sh", "-c", "cat /proc/self/cgroup; sleep 30")
    b.linux.pop("resources", None)
    b.linux["cgroupsPath"] = "/bento-test-unused"
    cid = rt.new_id()
    res = rt.run(b, cid, "--detach", global_opts=["--cgroup-manager", "disabled"])
    assert res.rc == 0, res
    assert "linux.cgroupsPath: ignored" in res.err, res
    assert "not enforced" not in res.err, res
    assert cgroup_dirs_named(cid) == []
    st = rt.state_json(cid)
    with open("/proc/%d/cgroup" % st["pid"]) as f, open("/proc/self/cgroup") as g:
        assert f.read() == g.read()
    assert rt.delete(cid, force=True).rc == 0


def test_run_and_create_config_option(rt, bundle, test_dir):
    b = bundle("/bin/sh", "-c", "echo from-bundle-config")
    b.save()
    alt = dict(b.config)
    alt["process"] = dict(b.config["process"], args=["/bin/sh", "-c", "echo from-other-config; cat /marker"])
    with open(os.path.join(b.rootfs, "marker"), "w") as f:
        f.write("rootfs-of-the-bundle\n")
    cfgdir = os.path.join(test_dir, "elsewhere")
    os.makedirs(cfgdir)
    with open(os.path.join(cfgdir, "cfg.json"), "w") as f:
        json.dump(alt, f)
    # relative to the caller's directory; root.path still from the bundle
    cid = rt.new_id()
    rt._remember(cid)
    rt.bundles.append(b)
    res = rt.cmd("run", "--bundle", b.path, "--config", "cfg.json", cid, cwd=cfgdir)
    assert res.rc == 0, res
    assert "from-other-config" in res.out and "rootfs-of-the-bundle" in res.out, res
    assert "from-bundle-config" not in res.out, res
    # -f and create too
    cid = rt.new_id()
    res = rt.create(b, cid, "-f", os.path.join(cfgdir, "cfg.json"))
    assert res.rc == 0, res
    assert rt.start(cid).rc == 0
    rt.wait_status(cid, "stopped")
    assert "from-other-config" in rt.container_output(cid)
    # a missing file is an error naming it
    res = rt.create(b, rt.new_id(), "--config", "/nonexistent/cfg.json")
    assert res.rc != 0 and "/nonexistent/cfg.json" in res.err, res


def test_delete_regex(rt, bundle):
    b = bundle("/bin/sleep", "30")
    keep = rt.new_id("keep")
    gone = [rt.new_id("match") for _ in range(2)]
    for cid in gone + [keep]:
        res = rt.run(b, cid, "--detach")
        assert res.rc == 0, res
    res = rt.cmd("delete", "--force", "--regex", "^match")
    assert res.rc == 0, res
    listed = rt.cmd("list", "--quiet").out.split()
    assert keep in listed and not any(c in listed for c in gone), listed
    res = rt.cmd("delete", "-f", "-r", "(")
    assert res.rc != 0 and "regular expression" in res.err, res


def test_no_subreaper_is_accepted(rt, bundle):
    """The flag changes only who adopts the runtime's orphans: the run
    itself goes on as without it (output relayed, exit status passed on)."""
    b = bundle("/bin/sh", "-c", "echo ran-without-subreaper; exit 3")
    res = rt.run(b, None, "--no-subreaper")
    assert res.rc == 3, res
    assert rt.container_output(res.cid).strip() == "ran-without-subreaper", res
