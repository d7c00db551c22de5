# SPDX-License-Identifier: Apache-2.0
"""Issue 14, classes 1 to 4: what a write grant lets the box leave for the
host to trip over later.

1. Shields carried away: the `.git/hooks`, `.git/config`, `.vscode`, `.idea`
   and `.cargo/config*` shields of a write grant are mounts; renaming,
   removing or replacing a directory between the grant and a shield (its
   parent above all) must not let a new hook or configuration appear on the
   host.  Checked host-side by listing and by `git config --list` with
   fsmonitor and hooks switched off (never by running a hook).
2. Cleanup that follows the box's names: bento removes the empty mount points
   it created (after `bento run`, and in a bundle's poststop hook `bento
   __remove-mount-points`); the box swaps their parents for symbolic links to
   a host directory whose empty files must survive.
3. Privilege bits: a root caller's box must not leave a set-user-ID,
   set-group-ID or file-capability file in a write grant.
4. A hard link, made on the host, from the grant to a write-protected file
   (`~/.bashrc`): the run is refused or the file stays as it was.

Each class-1 and class-2 attempt gets a write grant of its own (a repository,
or a plain directory), so one box per mode runs them all.
"""

import os
import struct

from advharness import (DANGEROUS_GIT_KEYS, Group, assert_denied, assert_ok, attempt, git_config_list,
                        make_git_repo)
# The in-box functions below run in box/boxlib.py's namespace; importing its helpers
# here only names them for readers and linters.
from boxlib import call, cbuf, mode_of, open_how, sc, write  # noqa: E402

# ---------------------------------------------------------------------------
# class 1: renaming an ancestor of a shield

NEW_GIT_CONFIG = {
    "fsmonitor": "[core]\n\tfsmonitor = touch /tmp/bento-adv-pwned\n",
    "hookspath": "[core]\n\thooksPath = ../planted-hooks\n",
    "sshcommand": "[core]\n\tsshCommand = touch /tmp/bento-adv-pwned\n",
    "pager": "[core]\n\tpager = touch /tmp/bento-adv-pwned\n",
    "diff-external": "[diff]\n\texternal = /tmp/bento-adv-pwned\n",
    "filter": "[filter \"x\"]\n\tclean = touch /tmp/bento-adv-pwned\n\tsmudge = touch /tmp/bento-adv-pwned\n",
    "include": "[include]\n\tpath = ../../planted.gitconfig\n",
}
SWAP_REPOS = ["swap-" + k for k in NEW_GIT_CONFIG]
OTHER_REPOS = ["hook-via-rename", "hooks-dir-rename", "dotgit-symlink", "dotgit-gitfile", "commondir",
               "vscode-idea", "cargo-config", "config-worktree", "into-pinned"]
REPOS = SWAP_REPOS + OTHER_REPOS


def repo_path(w, name):
    return os.path.join(w.proj, "repos", name)


def setup_repos(w):
    w.git_baseline = {}
    for name in REPOS:
        p = repo_path(w, name)
        os.makedirs(p)
        make_git_repo(p)
        if name == "vscode-idea":
            for d in (".vscode", ".idea"):
                os.makedirs(os.path.join(p, d))
                with open(os.path.join(p, d, "settings.json"), "w") as f:
                    f.write("{}\n")
        w.git_baseline[name] = repo_state(p)
    with open(os.path.join(w.proj, "repos", "planted.gitconfig"), "w") as f:
        f.write("# an include target the box could point a new config at\n")


def repo_state(p):
    g = os.path.join(p, ".git")
    st = os.lstat(g)

    def listing(d):
        try:
            return sorted((n, open(os.path.join(d, n), "rb").read()) for n in os.listdir(d)
                          if os.path.isfile(os.path.join(d, n)))
        except OSError as e:
            return "<%s>" % e.strerror

    return {"git": (st.st_dev, st.st_ino, st.st_mode), "config": git_config_list(p),
            "hooks": listing(os.path.join(g, "hooks")), "commondir": os.path.lexists(os.path.join(g, "commondir")),
            "vscode": listing(os.path.join(p, ".vscode")), "idea": listing(os.path.join(p, ".idea")),
            "cargo": listing(os.path.join(p, ".cargo"))}


def assert_repo_unchanged(run, name):
    w = run.world
    now = repo_state(repo_path(w, name))
    was = w.git_baseline[name]
    bad = [k for k in was if now[k] != was[k]]
    new_keys = [line for line in now["config"] if line not in was["config"]]
    dangerous = [line for line in new_keys if any(k in line.split("\t", 1)[-1].lower() for k in DANGEROUS_GIT_KEYS)]
    assert not bad, "repository %s changed on the host (%s); new config lines: %s (dangerous: %s); now %s" % (
        name, ", ".join(bad), new_keys, dangerous, {k: now[k] for k in bad})


Group("workspace", "read: [~], write: [./work] plus one repository or plain directory per attempt",
      write=["./repos/" + n for n in REPOS] + ["./plain/cleanup-cargo", "./plain/cleanup-git",
                                               "./plain/cleanup-outside"],
      setup=lambda w: (setup_repos(w), setup_victims(w)))


def _swap_attempt(key):
    name = "git-swap-" + key

    @attempt("workspace", name, "rename .git to .git-old and make a new .git (HEAD, objects, refs, hooks) whose "
             "config sets %s" % key)
    def swap(c):
        import shutil
        repo = os.path.join(c.proj, "repos", REPO)  # noqa: F821
        out = {"rename": call(os.rename, repo + "/.git", repo + "/.git-old")}
        if not out["rename"]["ok"]:
            out["move"] = call(shutil.move, repo + "/.git", repo + "/.git-old")
        g = repo + "/.git"
        out["new"] = call(lambda: [os.makedirs(g + "/" + d, exist_ok=True)
                                   for d in ("objects", "refs/heads", "hooks")])
        out["head"] = write(g + "/HEAD", "ref: refs/heads/main\n")
        out["config"] = write(g + "/config", CONFIG)  # noqa: F821
        out["hook"] = write(g + "/hooks/post-checkout", "#!/bin/sh\ntouch /tmp/bento-adv-pwned\n")
        return out

    swap.source = "REPO = %r\nCONFIG = %r\n" % ("swap-" + key, NEW_GIT_CONFIG[key]) + swap.source

    @swap.host
    def _(run):
        assert_repo_unchanged(run, "swap-" + key)


for _k in NEW_GIT_CONFIG:
    _swap_attempt(_k)


@attempt("workspace", "git-hook-via-rename", "plant .git/hooks/post-checkout by renaming .git away and "
         "copying it back with a new hooks directory")
def git_hook_via_rename(c):
    import shutil
    repo = c.proj + "/repos/hook-via-rename"
    out = {"rename": call(os.rename, repo + "/.git", repo + "/.git-old")}
    out["copy"] = call(shutil.copytree, repo + "/.git-old", repo + "/.git", ignore=shutil.ignore_patterns("hooks"))
    out["mkdir"] = call(os.makedirs, repo + "/.git/hooks", exist_ok=True)
    out["hook"] = write(repo + "/.git/hooks/post-checkout", "#!/bin/sh\ntouch /tmp/bento-adv-pwned\n")
    return out


@git_hook_via_rename.host
def _(run):
    assert_repo_unchanged(run, "hook-via-rename")


@attempt("workspace", "git-into-pinned", "write a config and a hook in the grant, then rename and hard-link "
         "them over .git/config, .git/commondir and into .git/hooks (the pinned .git is another mount)")
def git_into_pinned(c):
    repo = c.proj + "/repos/into-pinned"
    write(repo + "/cfg", "[core]\n\tfsmonitor = touch /tmp/bento-adv-pwned\n")
    write(repo + "/hook", "#!/bin/sh\ntouch /tmp/bento-adv-pwned\n")
    return {"rename-config": call(os.rename, repo + "/cfg", repo + "/.git/config"),
            "link-config": call(os.link, repo + "/cfg", repo + "/.git/config.new"),
            "rename-commondir": call(os.rename, repo + "/cfg", repo + "/.git/commondir"),
            "rename-hook": call(os.rename, repo + "/hook", repo + "/.git/hooks/post-checkout"),
            "link-hook": call(os.link, repo + "/hook", repo + "/.git/hooks/pre-commit"),
            "write-in-git": write(repo + "/.git/description", "mine\n")}


@git_into_pinned.check
def _(r, run):
    for k in ("rename-config", "link-config", "rename-commondir", "rename-hook", "link-hook"):
        assert_denied(r[k], what=k)
    assert_ok(r["write-in-git"], what="writing an ordinary file in .git")


@git_into_pinned.host
def _(run):
    w = run.world
    now = repo_state(repo_path(w, "into-pinned"))
    was = w.git_baseline["into-pinned"]
    assert now["config"] == was["config"] and now["hooks"] == was["hooks"], (was, now)
    assert not now["commondir"], now


@attempt("workspace", "git-hooks-dir-rename", "rename .git/hooks away, make a new hooks directory with "
         "post-checkout and pre-commit; write into the old one")
def git_hooks_rename(c):
    repo = c.proj + "/repos/hooks-dir-rename"
    return {"rename": call(os.rename, repo + "/.git/hooks", repo + "/.git/hooks-old"),
            "rmdir": call(os.rmdir, repo + "/.git/hooks"),
            "mkdir": call(os.mkdir, repo + "/.git/hooks"),
            "write": write(repo + "/.git/hooks/post-checkout", "#!/bin/sh\ntouch /tmp/bento-adv-pwned\n")}


@git_hooks_rename.check
def _(r, run):
    assert_denied(r["rename"], what="renaming the hooks shield")
    assert_denied(r["write"], what="writing into the hooks shield")


@git_hooks_rename.host
def _(run):
    assert_repo_unchanged(run, "hooks-dir-rename")


@attempt("workspace", "git-dotgit-symlink", "replace .git by a symlink to a directory of the box's making with "
         "an fsmonitor config and a post-checkout hook")
def git_dotgit_symlink(c):
    repo = c.proj + "/repos/dotgit-symlink"
    evil = repo + "/evil-gitdir"
    out = {"rename": call(os.rename, repo + "/.git", repo + "/.git-old")}
    for d in ("objects", "refs/heads", "hooks"):
        os.makedirs(evil + "/" + d, exist_ok=True)
    write(evil + "/HEAD", "ref: refs/heads/main\n")
    write(evil + "/config", "[core]\n\tfsmonitor = touch /tmp/bento-adv-pwned\n")
    write(evil + "/hooks/post-checkout", "#!/bin/sh\ntouch /tmp/bento-adv-pwned\n")
    out["link"] = call(os.symlink, "evil-gitdir", repo + "/.git")
    return out


@git_dotgit_symlink.host
def _(run):
    assert_repo_unchanged(run, "dotgit-symlink")


@attempt("workspace", "git-dotgit-gitfile", "replace .git by a gitfile ('gitdir: evil') naming a git "
         "directory of the box's making")
def git_dotgit_gitfile(c):
    repo = c.proj + "/repos/dotgit-gitfile"
    evil = repo + "/evil-gitdir"
    out = {"rename": call(os.rename, repo + "/.git", repo + "/.git-old")}
    for d in ("objects", "refs/heads", "hooks"):
        os.makedirs(evil + "/" + d, exist_ok=True)
    write(evil + "/HEAD", "ref: refs/heads/main\n")
    write(evil + "/config", "[core]\n\tfsmonitor = touch /tmp/bento-adv-pwned\n")
    out["gitfile"] = write(repo + "/.git", "gitdir: evil-gitdir\n")
    return out


@git_dotgit_gitfile.host
def _(run):
    assert_repo_unchanged(run, "dotgit-gitfile")


@attempt("workspace", "git-commondir", "write .git/commondir pointing at a directory whose config sets "
         "core.fsmonitor and whose hooks/ holds post-checkout")
def git_commondir(c):
    repo = c.proj + "/repos/commondir"
    evil = repo + "/evil-common"
    for d in ("objects", "refs/heads", "hooks"):
        os.makedirs(evil + "/" + d, exist_ok=True)
    write(evil + "/config", "[core]\n\tfsmonitor = touch /tmp/bento-adv-pwned\n\thooksPath = hooks\n")
    write(evil + "/hooks/post-checkout", "#!/bin/sh\ntouch /tmp/bento-adv-pwned\n")
    return {"commondir": write(repo + "/.git/commondir", "../evil-common\n")}


@git_commondir.host
def _(run):
    assert_repo_unchanged(run, "commondir")


@attempt("workspace", "vscode-idea-swap", "rename, rmdir and rewrite .vscode and .idea (tasks.json runs "
         "commands when the folder is opened)")
def vscode_idea(c):
    repo = c.proj + "/repos/vscode-idea"
    out = {}
    for d in (".vscode", ".idea"):
        out[d + "-write"] = write(repo + "/" + d + "/tasks.json", '{"tasks": [{"command": "touch /tmp/pwn"}]}')
        out[d + "-rename"] = call(os.rename, repo + "/" + d, repo + "/" + d + "-old")
        out[d + "-mkdir"] = call(os.mkdir, repo + "/" + d)
        out[d + "-write2"] = write(repo + "/" + d + "/tasks.json", '{"tasks": [{"command": "touch /tmp/pwn"}]}')
    return out


@vscode_idea.check
def _(r, run):
    for d in (".vscode", ".idea"):
        assert_denied(r[d + "-write"], what="writing %s" % d)
        assert_denied(r[d + "-rename"], what="renaming %s" % d)


@vscode_idea.host
def _(run):
    assert_repo_unchanged(run, "vscode-idea")


@attempt("workspace", "cargo-config-swap", "rename .cargo away (its config.toml is a shield) and make a new "
         ".cargo/config.toml with a build.rustc-wrapper")
def cargo_swap(c):
    repo = c.proj + "/repos/cargo-config"
    out = {"write": write(repo + "/.cargo/config.toml", "[build]\nrustc-wrapper = \"/tmp/pwn\"\n"),
           "rename": call(os.rename, repo + "/.cargo", repo + "/.cargo-old")}
    out["mkdir"] = call(os.makedirs, repo + "/.cargo", exist_ok=True)
    out["new"] = write(repo + "/.cargo/config.toml", "[build]\nrustc-wrapper = \"/tmp/pwn\"\n")
    out["new2"] = write(repo + "/.cargo/config", "[build]\nrustc-wrapper = \"/tmp/pwn\"\n")
    return out


@cargo_swap.check
def _(r, run):
    # The checkout has no .cargo: the whole of it is one scratch mount, so
    # a write there may succeed but lands on the scratch; what must fail is
    # carrying the mount away (the host check proves nothing reached it).
    assert_denied(r["rename"], "EBUSY", what="renaming the .cargo scratch mount away")


@cargo_swap.host
def _(run):
    assert_repo_unchanged(run, "cargo-config")


@attempt("workspace", "git-config-worktree", "write .git/config.worktree and .git/config directly, and "
         "replace them by rename onto them")
def git_config_worktree(c):
    repo = c.proj + "/repos/config-worktree"
    write(repo + "/.git/new-config", "[core]\n\tfsmonitor = touch /tmp/pwn\n")
    return {"config": write(repo + "/.git/config", "[core]\n\tfsmonitor = x\n", "a"),
            "worktree": write(repo + "/.git/config.worktree", "[core]\n\tfsmonitor = x\n", "a"),
            "rename_onto": call(os.rename, repo + "/.git/new-config", repo + "/.git/config"),
            "unlink": call(os.unlink, repo + "/.git/config")}


@git_config_worktree.check
def _(r, run):
    for k in ("config", "worktree", "rename_onto", "unlink"):
        assert_denied(r[k], what=k)


@git_config_worktree.host
def _(run):
    assert_repo_unchanged(run, "config-worktree")


# ---------------------------------------------------------------------------
# class 2: host-side cleanup following names the box controls

VICTIM_FILES = ("config.toml", "config", "config.worktree")


def setup_victims(w):
    w.victims = {}
    for name, base in (("cleanup-cargo", w.home), ("cleanup-git", w.home), ("cleanup-outside", w.dir)):
        os.makedirs(os.path.join(w.proj, "plain", name))
        v = os.path.join(base, "victim-" + name)
        os.makedirs(os.path.join(v, "hooks"))
        os.makedirs(os.path.join(v, ".vscode"))
        for f in VICTIM_FILES:
            open(os.path.join(v, f), "w").close()  # empty, as bento's mount points are
        w.victims[name] = v


def assert_victim_intact(run, name):
    v = run.world.victims[name]
    missing = [f for f in VICTIM_FILES + ("hooks", ".vscode") if not os.path.lexists(os.path.join(v, f))]
    assert not missing, "host cleanup followed the box's symlink and removed %s from %s" % (missing, v)


def _cleanup_attempt(name, parent, victim_expr, desc):
    @attempt("workspace", name, desc)
    def swap_parent(c):
        g = os.path.join(c.proj, "plain", NAME)  # noqa: F821
        out = {"rename": call(os.rename, os.path.join(g, PARENT), os.path.join(g, PARENT + "-away"))}  # noqa: F821
        out["link"] = call(os.symlink, eval(VICTIM), os.path.join(g, PARENT))  # noqa: F821
        return out

    swap_parent.source = "NAME = %r\nPARENT = %r\nVICTIM = %r\n" % (name, parent, victim_expr) + swap_parent.source

    @swap_parent.host
    def _(run):
        assert_victim_intact(run, name)


_cleanup_attempt("cleanup-cargo", ".cargo", "c.home + '/victim-cleanup-cargo'",
                 "rename the grant's .cargo (holding bento's config.toml/config mount points) away and put a "
                 "symlink .cargo -> a host directory with empty config.toml and config")
_cleanup_attempt("cleanup-git", ".git", "c.home + '/victim-cleanup-git'",
                 "rename the grant's .git (holding bento's hooks/config/config.worktree mount points) away and "
                 "put a symlink .git -> a host directory with an empty hooks/ and empty config files")
_cleanup_attempt("cleanup-outside", ".cargo", "os.path.dirname(c.home) + '/victim-cleanup-outside'",
                 "the same swap with the symlink pointing outside the home (a directory no grant covers)")


# ---------------------------------------------------------------------------
# class 3: privilege bits

Group("setuid", "read: [~], write: [./work]; bento run by root: privilege bits on files the box makes")

SUID = 0o4000
SGID = 0o2000


def assert_no_bits_on_host(run, *rels):
    for rel in rels:
        p = os.path.join(run.world.work, rel)
        if os.path.lexists(p):
            m = os.lstat(p).st_mode
            assert not m & (SUID | SGID), "%s is mode %o on the host" % (p, m)
            try:
                assert "security.capability" not in os.listxattr(p, follow_symlinks=False), \
                    "%s carries file capabilities on the host" % p
            except OSError:
                pass


def _copy_id(c, name):
    import shutil
    p = c.work + "/" + name
    shutil.copy("/usr/bin/id", p)
    return p


def _setuid_attempt(name, desc, body, files, must_deny=True):
    @attempt("setuid", name, desc)
    def priv(c):
        return BODY(c)  # noqa: F821

    priv.source = (__import__("inspect").getsource(_copy_id) + "\n" + __import__("textwrap").dedent(
        __import__("inspect").getsource(body)).replace("def " + body.__name__, "def BODY", 1) + "\n" + priv.source)

    @priv.check
    def _(r, run):
        mode = r["mode"] if isinstance(r.get("mode"), int) else 0
        for k, v in r.items():
            if k.startswith("set") and must_deny:
                assert_denied(v, what=k)
        assert not mode & (SUID | SGID), "mode %o inside the box after %r" % (mode, r)

    @priv.host
    def _(run):
        assert_no_bits_on_host(run, *files)


def b_chmod(c):
    p = _copy_id(c, "id-chmod")
    return {"set": call(os.chmod, p, 0o4755), "set_raw": sc("chmod", p, 0o4755), "mode": mode_of(p)}


def b_chmod_sgid(c):
    p = _copy_id(c, "id-sgid")
    return {"set": call(os.chmod, p, 0o2755), "set_at": sc("fchmodat", -100, p, 0o2755, 0), "mode": mode_of(p)}


def b_fchmod(c):
    p = _copy_id(c, "id-fchmod")
    fd = os.open(p, os.O_RDONLY)
    r = {"set": call(os.fchmod, fd, 0o4755), "set_raw": sc("fchmod", fd, 0o6755)}
    os.close(fd)
    r["mode"] = mode_of(p)
    return r


def b_fchmodat2(c):
    p = _copy_id(c, "id-fchmodat2")
    return {"set": sc("fchmodat2", -100, p, 0o4755, 0x100), "mode": mode_of(p)}  # AT_SYMLINK_NOFOLLOW


def b_open_mode(c):
    p = c.work + "/created-suid"
    r = {"set": call(lambda: os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o6755)) or "created"),
         "set_raw": sc("open", p + "2", os.O_CREAT | os.O_WRONLY, 0o4755)}
    r["mode"] = mode_of(p)
    r["mode2"] = mode_of(p + "2")
    if isinstance(r["mode2"], int):
        r["mode"] = (r["mode"] if isinstance(r["mode"], int) else 0) | r["mode2"]
    return r


def b_openat2(c):
    p = c.work + "/created-openat2"
    how = open_how(os.O_CREAT | os.O_WRONLY, 0o4755, 0)
    return {"set": sc("openat2", -100, p, cbuf(how), len(how)), "mode": mode_of(p)}


def b_mknod(c):
    p = c.work + "/mknod-suid"
    return {"set": call(os.mknod, p, 0o100000 | 0o4755), "set_raw": sc("mknodat", -100, p + "2", 0o100000 | 0o2755, 0),
            "mode": (mode_of(p) if isinstance(mode_of(p), int) else 0) |
            (mode_of(p + "2") if isinstance(mode_of(p + "2"), int) else 0)}


def b_mkdir_sgid(c):
    p = c.work + "/sgid-dir"
    r = {"set": call(os.mkdir, p, 0o2755)}
    r["chmod"] = call(os.chmod, p, 0o2755) if r["set"]["ok"] else {"ok": False, "errno": "skipped"}
    r["mode"] = mode_of(p)
    return r


def b_setcap(c):
    p = _copy_id(c, "id-setcap")
    # vfs_cap_data v2: magic|effective, permitted/inheritable low and high words: CAP_SETUID
    data = struct.pack("<IIIII", 0x02000001, 1 << 7, 0, 0, 0)
    return {"set": call(os.setxattr, p, "security.capability", data), "mode": mode_of(p)}


def b_copy2(c):
    import shutil
    src = next((s for s in ("/usr/bin/su", "/usr/bin/passwd", "/usr/bin/mount", "/usr/bin/chsh")
                if os.path.exists(s) and os.stat(s).st_mode & 0o4000), None)
    if src is None:
        return {"crash": "no setuid binary in /usr/bin to copy"}
    p = c.work + "/copied-suid"
    return {"set": call(shutil.copy2, src, p), "mode": mode_of(p), "src": src}


_setuid_attempt("setuid-chmod", "copy /usr/bin/id into the grant and chmod 04755 (chmod and raw chmod(2))",
                b_chmod, ["id-chmod"])
_setuid_attempt("setgid-chmod", "chmod 02755 and fchmodat(2) on a copy of id", b_chmod_sgid, ["id-sgid"])
_setuid_attempt("setuid-fchmod", "fchmod 04755 / 06755 through a descriptor", b_fchmod, ["id-fchmod"])
_setuid_attempt("setuid-fchmodat2", "fchmodat2(2) 04755 with AT_SYMLINK_NOFOLLOW", b_fchmodat2, ["id-fchmodat2"])
_setuid_attempt("setuid-open-mode", "open(O_CREAT, 06755) and raw open(2) with 04755: the bits must not "
                "come into being", b_open_mode, ["created-suid", "created-suid2"], must_deny=False)
_setuid_attempt("setuid-openat2", "openat2(O_CREAT) with mode 04755", b_openat2, ["created-openat2"],
                must_deny=False)
_setuid_attempt("setuid-mknod", "mknod and mknodat a regular file with 04755 / 02755", b_mknod,
                ["mknod-suid", "mknod-suid2"], must_deny=False)
_setuid_attempt("setgid-mkdir", "mkdir 02755 and chmod a directory g+s", b_mkdir_sgid, ["sgid-dir"],
                must_deny=False)
_setuid_attempt("setcap-xattr", "setxattr security.capability (CAP_SETUID) on a copy of id", b_setcap,
                ["id-setcap"])
_setuid_attempt("setuid-copy2", "shutil.copy2 of a host setuid binary (the copy keeps its mode)", b_copy2,
                ["copied-suid"], must_deny=False)


# ---------------------------------------------------------------------------
# class 4: a hard link, made on the host, to a write-protected file

PROTECTED = {"bashrc": ".bashrc", "profile": ".profile", "gitconfig": ".gitconfig", "tool": ".local/bin/tool"}


def setup_hardlinks(w):
    w.protected = {}
    for link, rel in PROTECTED.items():
        src = os.path.join(w.home, rel)
        os.link(src, os.path.join(w.work, link))
        w.protected[rel] = w.digest(src)


Group("hardlink", "read: [~], write: [./work]; the host user ran `ln ~/.bashrc work/bashrc` (and ~/.profile, "
      "~/.gitconfig, ~/.local/bin/tool) before the run", setup=setup_hardlinks)


def _hardlink_attempt(link, rel):
    @attempt("hardlink", "hardlink-" + link, "append to work/%s, a host hard link to ~/%s, and replace it "
             "through the link" % (link, rel), refusal_ok=True)
    def through_link(c):
        p = os.path.join(c.work, LINK)  # noqa: F821
        return {"append": write(p, "\necho pwned-through-a-hard-link\n", "a"),
                "truncate": call(os.truncate, p, 0)}

    through_link.source = "LINK = %r\n" % link + through_link.source

    @through_link.check
    def _(r, run):
        assert_denied(r["append"], what="writing ~/%s through a hard link" % rel)

    @through_link.host
    def _(run):
        w = run.world
        assert w.digest(os.path.join(w.home, rel)) == w.protected[rel], "~/%s was changed through the link" % rel


for _l, _r in PROTECTED.items():
    _hardlink_attempt(_l, _r)
