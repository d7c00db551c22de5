# SPDX-License-Identifier: Apache-2.0
"""Attempts on the credentials a `read: ["~"]` grant must not hand out
(bento-manifest(5), CREDENTIAL SHIELDS): direct opens, other routes to the same
inode (/proc roots, links made in the grant, `..`, file handles) and the
environment.  Every attempt in the group also reads a file the grant does
give (~/notes.txt), so a box that can read nothing at all does not pass.

The box's functions below run INSIDE the sandbox (see box/boxlib.py for the
helpers they use); the @...check functions run on the host.
"""

import os
import ctypes
import struct

from advharness import Group, assert_denied, assert_ok, attempt
# The in-box functions below run in box/boxlib.py's namespace; importing its helpers
# here only names them for readers and linters.
from boxlib import call, cbuf, ename, in_child, listdir, open_how, read, sc, write  # noqa: E402

Group("secrets", "read: [~], write: [./work]; a fake HOME full of marked credentials")

NOTES = "plain notes the box may read\n"


def assert_notes(r):
    assert r["notes"].get("data") == NOTES, "the granted ~/notes.txt is not readable: %r" % r["notes"]


def assert_hidden(x, what):
    """A hidden store reads as absent or empty, never with content."""
    assert not x.get("ok") or x.get("data", "") == "" or x.get("value") == [], "%s: %r" % (what, x)


def _hidden_files(name, rels, desc):
    @attempt("secrets", name, desc)
    def secret_files(c):
        out = {"notes": read(c.home + "/notes.txt")}
        for rel in c_rels:  # noqa: F821 - c_rels is put in by the source below
            out[rel] = read(os.path.join(c.home, rel))
        return out

    secret_files.source = "c_rels = %r\n" % (rels,) + secret_files.source

    @secret_files.check
    def _(r, run):
        assert_notes(r)
        for rel in rels:
            assert_hidden(r[rel], rel)
    return secret_files


_hidden_files("ssh-key-direct", [".ssh/id_ed25519", ".ssh/id_rsa"],
              "open ~/.ssh/id_ed25519 and ~/.ssh/id_rsa by name under read: [~]")
_hidden_files("aws-credentials", [".aws/credentials"], "read ~/.aws/credentials")
_hidden_files("gnupg-private-key", [".gnupg/private-keys-v1.d/key.key"], "read a key in ~/.gnupg")
_hidden_files("gh-token", [".config/gh/hosts.yml"], "read the GitHub CLI token ~/.config/gh/hosts.yml")
_hidden_files("shell-histories", [".bash_history", ".zsh_history", ".python_history"],
              "read shell and REPL histories")
_hidden_files("keyring-file", [".local/share/keyrings/login.keyring"], "read the GNOME keyring file")
_hidden_files("netrc-git-credentials", [".netrc", ".git-credentials", ".npmrc", ".pgpass"],
              "read ~/.netrc, ~/.git-credentials, ~/.npmrc, ~/.pgpass")
_hidden_files("docker-kube-gcloud", [".docker/config.json", ".kube/config", ".config/gcloud/credentials.db"],
              "read docker, kubernetes and gcloud credentials")


@attempt("secrets", "ssh-dir-listing", "list ~/.ssh and ~/.aws: the stores must look empty")
def ssh_dir_listing(c):
    return {"notes": read(c.home + "/notes.txt"), "ssh": listdir(c.home + "/.ssh"),
            "aws": listdir(c.home + "/.aws"), "home": listdir(c.home)}


@ssh_dir_listing.check
def _(r, run):
    assert_notes(r)
    assert r["ssh"].get("value", []) == [] and r["aws"].get("value", []) == [], r
    assert_ok(r["home"], "listing the granted home")


@attempt("secrets", "proc-self-root", "read the key through /proc/self/root/<home>/.ssh/id_ed25519")
def proc_self_root(c):
    return {"notes": read("/proc/self/root" + c.home + "/notes.txt"),
            "key": read("/proc/self/root" + c.home + "/.ssh/id_ed25519")}


@proc_self_root.check
def _(r, run):
    assert_notes(r)
    assert_hidden(r["key"], "/proc/self/root")


@attempt("secrets", "proc-pid-roots", "read the key through /proc/<pid>/root and /proc/<pid>/cwd of every "
         "visible process (host processes must not be visible)")
def proc_pid_roots(c):
    out = {"notes": read(c.home + "/notes.txt"), "pids": [], "reads": {}}
    for p in os.listdir("/proc"):
        if p.isdigit():
            out["pids"].append(int(p))
            for via in ("root", "cwd"):
                base = "/proc/%s/%s" % (p, via)
                tail = c.home + "/.ssh/id_ed25519" if via == "root" else "../../.ssh/id_ed25519"
                out["reads"]["%s/%s" % (p, via)] = read(base + ("" if tail.startswith("/") else "/") + tail)
    out["host_pid"] = read("/proc/%d/cmdline" % c.host_pid)
    out["canary"] = read("/proc/%d/environ" % c.canary)
    return out


@proc_pid_roots.check
def _(r, run):
    assert_notes(r)
    for k, v in r["reads"].items():
        assert_hidden(v, k)
    # only the sandbox's own processes are visible: a handful of small pids
    assert len(r["pids"]) <= 8 and max(r["pids"]) < 100, "host processes visible in /proc: %s" % r["pids"]


@attempt("secrets", "symlink-in-grant", "make work/l -> ~/.ssh/id_ed25519 and work/d -> ~/.ssh in the grant "
         "and read through them")
def symlink_in_grant(c):
    out = {"notes": read(c.home + "/notes.txt")}
    out["mk1"] = call(os.symlink, c.home + "/.ssh/id_ed25519", c.work + "/l")
    out["mk2"] = call(os.symlink, "../../.ssh", c.work + "/d")
    out["via_file"] = read(c.work + "/l")
    out["via_dir"] = read(c.work + "/d/id_ed25519")
    out["ls"] = listdir(c.work + "/d")
    return out


@symlink_in_grant.check
def _(r, run):
    assert_notes(r)
    assert_ok(r["mk1"], "making a symlink in the write grant")
    assert_hidden(r["via_file"], "file link")
    assert_hidden(r["via_dir"], "directory link")
    assert r["ls"].get("value", []) == [], r["ls"]


@symlink_in_grant.host
def _(run):
    # the links stay in the grant, harmless on the host too: they point at
    # the real key, so the host must not have followed them anywhere
    assert os.path.islink(os.path.join(run.world.work, "l"))


@attempt("secrets", "hardlink-in-grant", "hard-link ~/.ssh/id_ed25519 and ~/.bashrc into the write grant "
         "from inside the box")
def hardlink_in_grant(c):
    out = {"notes": read(c.home + "/notes.txt")}
    out["key"] = call(os.link, c.home + "/.ssh/id_ed25519", c.work + "/hk")
    out["bashrc"] = call(os.link, c.home + "/.bashrc", c.work + "/hb")
    out["read"] = read(c.work + "/hk")
    out["write"] = write(c.work + "/hb", "echo pwned\n", "a")
    return out


@hardlink_in_grant.check
def _(r, run):
    assert_notes(r)
    assert_denied(r["key"], what="linking the hidden key")
    assert_denied(r["bashrc"], what="linking ~/.bashrc (another mount)")
    assert_hidden(r["read"], "the link")


@attempt("secrets", "openat-dotdot", "openat() from a descriptor of the write grant with ../../.ssh/id_ed25519, "
         "and openat2 RESOLVE_BENEATH tricks")
def openat_dotdot(c):
    out = {"notes": read(c.home + "/notes.txt")}
    fd = os.open(c.work, os.O_RDONLY | os.O_DIRECTORY)
    try:
        out["dotdot"] = call(lambda: os.read(os.open("../../.ssh/id_ed25519", os.O_RDONLY, dir_fd=fd), 200).decode())
        how = open_how(os.O_RDONLY, 0, 0)
        out["openat2"] = sc("openat2", fd, b"../../.ssh/id_ed25519", cbuf(how), len(how))
        if out["openat2"]["ok"]:
            out["openat2"]["data"] = os.read(out["openat2"]["ret"], 200).decode("utf-8", "replace")
    finally:
        os.close(fd)
    return out


@openat_dotdot.check
def _(r, run):
    assert_notes(r)
    assert_hidden(r["dotdot"], "openat ..")
    assert r["openat2"].get("data", "") == "", r["openat2"]


@attempt("secrets", "open-by-handle", "name_to_handle_at on the home, then open_by_handle_at (the 'shocker' "
         "escape) to reach the real ~/.ssh behind its shield")
def open_by_handle(c):
    out = {"notes": read(c.home + "/notes.txt")}
    buf = ctypes.create_string_buffer(8 + 128)
    struct.pack_into("I", buf, 0, 128)
    mnt = ctypes.c_int(0)
    out["name_to_handle"] = sc("name_to_handle_at", -100, c.home, buf, ctypes.addressof(mnt), 0)
    fd = os.open(c.home, os.O_RDONLY | os.O_DIRECTORY)
    out["open_by_handle"] = sc("open_by_handle_at", fd, buf, os.O_RDONLY | os.O_DIRECTORY)
    if out["open_by_handle"]["ok"]:
        d = out["open_by_handle"]["ret"]
        out["through"] = call(lambda: os.read(os.open(".ssh/id_ed25519", os.O_RDONLY, dir_fd=d), 200).decode())
    os.close(fd)
    return out


@open_by_handle.check
def _(r, run):
    assert_notes(r)
    assert_denied(r["open_by_handle"], "EPERM", what="open_by_handle_at without CAP_DAC_READ_SEARCH")


@attempt("secrets", "umount-shield", "umount2(~/.ssh) and umount2(~/.netrc) to uncover the real files")
def umount_shield(c):
    out = {"notes": read(c.home + "/notes.txt")}
    out["umount_dir"] = sc("umount2", c.home + "/.ssh", 2)
    out["umount_file"] = sc("umount2", c.home + "/.netrc", 2)
    out["key"] = read(c.home + "/.ssh/id_ed25519")
    out["netrc"] = read(c.home + "/.netrc")
    return out


@umount_shield.check
def _(r, run):
    assert_notes(r)
    assert_denied(r["umount_dir"], what="umount of a shield")
    assert_denied(r["umount_file"], what="umount of a file shield")
    assert_hidden(r["key"], "key")
    assert_hidden(r["netrc"], "netrc")


@attempt("secrets", "userns-umount-shield", "unshare a user+mount namespace (root there, all capabilities) "
         "and detach or over-mount the ~/.ssh shield from inside it", solo=False)
def userns_umount(c):
    def go():
        out = {"unshare": sc("unshare", 0x10000000 | 0x00020000)}  # CLONE_NEWUSER|CLONE_NEWNS
        try:
            with open("/proc/self/setgroups", "w") as f:
                f.write("deny")
            with open("/proc/self/uid_map", "w") as f:
                f.write("0 0 1")
            with open("/proc/self/gid_map", "w") as f:
                f.write("0 0 1")
            out["maps"] = "written"
        except OSError as e:
            out["maps"] = ename(e.errno)
        out["umount"] = sc("umount2", c.home + "/.ssh", 2)
        out["key"] = read(c.home + "/.ssh/id_ed25519")
        out["bind"] = sc("mount", c.home, c.work, 0, 4096 | 16384, 0)  # MS_BIND|MS_REC
        out["key_via_bind"] = read(c.work + "/.ssh/id_ed25519")
        return out
    return {"notes": read(c.home + "/notes.txt"), "child": in_child(go)}


@userns_umount.check
def _(r, run):
    assert_notes(r)
    ch = r["child"]
    assert_hidden(ch.get("key", {}), "key after umount in a new userns")
    assert_hidden(ch.get("key_via_bind", {}), "key through a recursive bind in a new userns")


@attempt("secrets", "environment", "look for host secrets and sockets in the environment: os.environ, "
         "/proc/self/environ, /proc/1/environ (only PATH and HOME may be there)")
def environment(c):
    return {"notes": read(c.home + "/notes.txt"), "env": dict(os.environ),
            "self": read("/proc/self/environ", 65536), "one": read("/proc/1/environ", 65536)}


@environment.check
def _(r, run):
    assert_notes(r)
    env = dict(r["env"])
    env.pop("LC_CTYPE", None)  # python's own locale coercion (PEP 538), not bento's
    assert env == {"PATH": "/usr/bin:/bin", "HOME": "/tmp"}, "environment beyond the promise: %s" % env
    for k in ("self", "one"):
        data = r[k].get("data", "")
        for bad in ("AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS",
                    "XDG_RUNTIME_DIR"):
            assert bad not in data, "%s in %s: %r" % (bad, k, data)


@attempt("secrets", "fd-leaks", "walk /proc/self/fd for descriptors bento or the runtime leaked (a host "
         "directory fd would be a way out)", first=True)
def fd_leaks(c):
    out = {"notes": read(c.home + "/notes.txt"), "fds": {}}
    for n in os.listdir("/proc/self/fd"):
        out["fds"][n] = call(os.readlink, "/proc/self/fd/" + n)
    return out


@fd_leaks.check
def _(r, run):
    assert_notes(r)
    extra = {}
    for n, t in r["fds"].items():
        target = t.get("value", "")
        if int(n) <= 2 or not t.get("ok") or target.startswith("/proc/") and "/fd" in target:
            continue  # stdio, and the listing's own descriptor (closed by now, or /proc/<pid>/fd)
        extra[n] = target
    assert not extra, "descriptors beyond stdio reached the box: %s" % extra


@attempt("secrets", "write-home-files", "write ~/.bashrc, ~/.profile, ~/.gitconfig and create ~/evil and "
         "~/.ssh/authorized_keys (outside the write grant)")
def write_home_files(c):
    out = {"notes": read(c.home + "/notes.txt"), "work": write(c.work + "/allowed.txt", "fine\n")}
    for rel in (".bashrc", ".profile", ".gitconfig", "evil", ".ssh/authorized_keys",
                ".config/autostart/evil.desktop", ".config/systemd/user/evil.service", ".local/bin/ls",
                ".local/state/bento/approvals/forged"):
        out[rel] = write(os.path.join(c.home, rel), "echo pwned\n", "a")
    return out


@write_home_files.check
def _(r, run):
    assert_notes(r)
    assert_ok(r["work"], "writing inside the write grant")
    for rel in (".bashrc", ".profile", ".gitconfig", "evil", ".local/bin/ls"):
        assert_denied(r[rel], what=rel)


@write_home_files.host
def _(run):
    w = run.world
    for rel in ("evil", ".ssh/authorized_keys", ".config/autostart/evil.desktop",
                ".config/systemd/user/evil.service", ".local/bin/ls", ".local/state/bento/approvals/forged"):
        assert not os.path.lexists(os.path.join(w.home, rel)), "the box created ~/%s on the host" % rel
    with open(os.path.join(w.home, ".bashrc")) as f:
        assert "pwned" not in f.read()
    with open(os.path.join(w.work, "allowed.txt")) as f:
        assert f.read() == "fine\n", "the allowed write did not reach the host"


@attempt("secrets", "entrypoint-rewrite", "overwrite, truncate and rename away the entrypoint (it lies in the "
         "write grant but is re-bound read-only)")
def entrypoint_rewrite(c):
    ep = c.work + "/bento-adv.py"
    return {"notes": read(c.home + "/notes.txt"), "write": write(ep, "print('pwned')\n", "a"),
            "truncate": call(os.truncate, ep, 0), "rename": call(os.rename, ep, c.work + "/ep-moved"),
            "unlink": call(os.unlink, ep)}


@entrypoint_rewrite.check
def _(r, run):
    assert_notes(r)
    for k in ("write", "truncate", "rename", "unlink"):
        assert_denied(r[k], what="%s of the entrypoint" % k)
