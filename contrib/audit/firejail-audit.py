#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""`make audit`: hold bento's credential shields to firejail's reference
deny-lists.

firejail (Debian's package) ships /etc/firejail/disable-*.inc, lists of the
paths its profiles hide ("blacklist", "blacklist-nolog") or make read-only
("read-only").  This script reads them from the installed package (nothing
of them is kept in this repository), spells each path out for a scratch
home, asks contrib/audit/shield-check (the shields module, built as a run
builds it) which shield covers it, and sorts every entry into:

  shielded     a shield at least as strict covers it;
  weaker       firejail hides it, bento's shield only keeps it read-only;
  unshielded   no shield covers it.

Every weaker or unshielded entry must match a pattern of the reasons file
(contrib/audit/firejail-reasons.txt): a line "== why" gives the reason for
the pattern lines after it, each one a whole line in firejail's own
spelling ("*" matching anything, "/" included), optionally prefixed with
"FILE.inc:" to match only the entries of that list.  The report lists every one
of them with its reason; the exit status is 1 when one has none, 2 when
firejail's lists cannot be read.  Reasons that match nothing are listed as
stale (a note: firejail's lists change between releases).

Nothing on the host is written: the scratch home is a name, never created.
"""

import argparse
import fnmatch
import glob
import os
import subprocess
import sys

RULES = {"blacklist": "hidden", "blacklist-nolog": "hidden", "read-only": "read-only"}
# what firejail's ${PATH} expands to (its fs_blacklist's list)
FIREJAIL_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
                 "/usr/games", "/usr/local/games"]
XDG_DIRS = {"DESKTOP": "Desktop", "DOCUMENTS": "Documents", "DOWNLOADS": "Downloads",
            "MUSIC": "Music", "PICTURES": "Pictures", "VIDEOS": "Videos"}
HOME = "/nonexistent/bento-audit-home"
SAMPLE = "bento-audit"  # what a "*" stands for when the path is checked


def read_entries(firejail_dir):
    """[(spelling, wanted, where)] from every disable-*.inc, in order, once each."""
    files = sorted(glob.glob(os.path.join(firejail_dir, "disable-*.inc")))
    if not files:
        sys.exit("audit: no %s/disable-*.inc: install Debian's firejail package "
                 "(contrib/install-deps.sh does)" % firejail_dir)
    seen, out = set(), []
    for path in files:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                words = line.split(None, 1)
                if len(words) != 2 or words[0] not in RULES:
                    continue
                # an entry may end in a comment
                spelling = words[1].split(" #", 1)[0].strip()
                if (spelling, words[0]) in seen:
                    continue
                seen.add((spelling, words[0]))
                out.append((spelling, RULES[words[0]], "%s:%d" % (os.path.basename(path), n)))
    return out


def expand(spelling, uid):
    """The concrete paths to check for one firejail spelling."""
    s = spelling.replace("${HOME}", HOME).replace("${RUNUSER}", "/run/user/%d" % uid)
    for var, d in XDG_DIRS.items():
        s = s.replace("${%s}" % var, HOME + "/" + d)
    if s.startswith("${PATH}"):
        paths = [d + s[len("${PATH}"):] for d in FIREJAIL_PATH]
    else:
        paths = [s]
    return [p.replace("*", SAMPLE) for p in paths if p.startswith("/")]


def check(shield_check, paths, uid):
    env = {"HOME": HOME, "PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": "/run/user/%d" % uid}
    r = subprocess.run([shield_check], input="".join(p + "\n" for p in paths),
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit("audit: %s failed: %s" % (shield_check, r.stderr.strip()))
    return dict(reversed(line.split("\t", 1)) for line in r.stdout.splitlines())


def read_reasons(path):
    """[(list file or None, pattern, reason, line number)]"""
    out, reason = [], None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("=="):
                reason = line[2:].strip()
                continue
            if not reason:
                sys.exit("audit: %s:%d: a pattern before any '== reason' line" % (path, n))
            where, sep, rest = line.partition(".inc:")
            if sep and "/" not in where:
                out.append((where + ".inc", rest, reason, n))
            else:
                out.append((None, line, reason, n))
    return out


def status(wanted, got):
    if got == "hidden" or (got == "read-only" and wanted == "read-only"):
        return "shielded"
    return "weaker" if got == "read-only" else "unshielded"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shield-check", required=True)
    ap.add_argument("--firejail", default="/etc/firejail")
    ap.add_argument("--reasons", required=True)
    ap.add_argument("--verbose", action="store_true", help="list the shielded entries too")
    args = ap.parse_args()
    uid = os.getuid()
    entries = read_entries(args.firejail)
    reasons = read_reasons(args.reasons)
    verdicts = check(args.shield_check, [p for e in entries for p in expand(e[0], uid)], uid)
    used = set()
    counts = {"shielded": 0, "weaker": 0, "unshielded": 0}
    unexplained = []
    for spelling, wanted, where in entries:
        paths = expand(spelling, uid)
        got = [verdicts.get(p, "none") for p in paths]
        # the weakest of the expansions counts (${PATH} gives several)
        st = max((status(wanted, g) for g in got),
                 key=["shielded", "weaker", "unshielded"].index)
        counts[st] += 1
        if st == "shielded":
            if args.verbose:
                print("shielded    %-9s %s" % (wanted, spelling))
            continue
        inc = where.split(":", 1)[0]
        why = next(((text, n) for only, pat, text, n in reasons
                    if (only is None or only == inc) and fnmatch.fnmatchcase(spelling, pat)), None)
        if why:
            used.add(why[1])
            print("%-11s %-9s %s\n            because: %s" % (st, wanted, spelling, why[0]))
        else:
            unexplained.append((st, wanted, spelling, where))
    for st, wanted, spelling, where in unexplained:
        print("NOT EXPLAINED (%s, firejail: %s, %s): %s" % (st, wanted, where, spelling))
    for _, pat, _, n in reasons:
        if n not in used:
            print("note: %s:%d: %s matches no firejail entry any more" % (args.reasons, n, pat))
    print("audit: %d firejail entries: %d shielded, %d weaker, %d unshielded; %d not explained"
          % (len(entries), counts["shielded"], counts["weaker"], counts["unshielded"],
             len(unexplained)))
    if unexplained:
        print("audit: add a shield (translate/shields/rules.c) for each credential or secret, "
              "or a line to %s saying why bento leaves it out" % args.reasons)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
