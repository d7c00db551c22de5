#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The include order between bento's programs and between their stages.

docs/architecture.md ("The tree") explains the order; this script is what
`make check-layering` runs.  Every quoted #include is checked:

  * bundle/ includes only bundle/ (it is linked into every program);
  * a hook (hooks/<name>/) includes its own folder and bundle/; a part of a
    hook in a folder of its own (hooks/observe/shim/, a library built apart)
    includes that folder and its hook's, as "../name.h";
  * translate/ and runtime/ are made of stage folders in a fixed order.  A
    file includes its own folder by bare name ("policy.h"), an earlier
    stage by folder ("manifest/manifest.h"), and bundle/ by bare name;
    never a later stage, never the other program.  A program built apart
    in a folder beneath a stage (runtime/cgroup/systemd-scope/) includes
    its own folder and bundle/ only.

A folder that is not in the order below is an error too: a new stage must
say where it sits.
"""
import os
import re
import sys

STAGES = {
    # manifest text -> the host's shields -> approval -> policy -> bundle
    # compiler -> host facts and admission -> reports -> the run -> profiling
    # (watching a run to draft a manifest) -> verbs
    "translate": ["manifest", "shields", "approval", "policy", "compile", "host",
                  "report", "run", "profile", "cli"],
    # helpers -> the pieces of a container (each alone) -> the container's
    # life -> verbs
    "runtime": ["base", "process", "seccomp", "namespace", "cgroup", "mount",
                "container", "cli"],
}
# Made at build time from docs/cli (Makefile, HELP_C).
GENERATED = {"translate": {"cli/help-text.h"}}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for m in INCLUDE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1)


def sources(folder):
    for dirpath, _, names in os.walk(folder):
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                yield os.path.join(dirpath, n)


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    bundle = set(os.listdir("bundle"))
    problems = []

    def bad(path, line, why):
        problems.append("%s:%d: %s" % (path, line, why))

    for path in sources("bundle"):
        for line, inc in includes(path):
            if inc not in bundle:
                bad(path, line, '"%s": bundle/ includes only bundle/' % inc)

    for path in sources("hooks"):
        folder = os.path.dirname(path)
        here = set(os.listdir(folder))
        if os.path.dirname(folder) != "hooks":  # a part of a hook: its hook's too
            here |= {"../" + name for name in os.listdir(os.path.dirname(folder))}
        for line, inc in includes(path):
            if inc not in here and inc not in bundle:
                bad(path, line, '"%s": a hook includes its own folder and bundle/ only' % inc)

    for prog, order in STAGES.items():
        for entry in sorted(os.listdir(prog)):
            full = os.path.join(prog, entry)
            if not os.path.isdir(full):
                bad(full, 0, "a file at the top of %s/: put it in a stage folder" % prog)
            elif entry not in order:
                bad(full, 0, "stage %s is not in contrib/check-layering.py's order for %s/"
                    % (entry, prog))
        for path in sources(prog):
            stage = path.split("/")[1]
            if stage not in order:
                continue
            here = set(os.listdir(os.path.dirname(path)))
            apart = path.count("/") > 2  # a program of its own beneath the stage
            for line, inc in includes(path):
                if apart and "/" in inc:
                    bad(path, line, '"%s": a program beneath a stage folder includes its own '
                        'folder and bundle/ only' % inc)
                    continue
                if "/" not in inc:
                    if inc not in here and inc not in bundle:
                        bad(path, line, '"%s" is neither in %s/%s/ nor in bundle/'
                            % (inc, prog, stage))
                    continue
                if inc in GENERATED.get(prog, ()):
                    continue
                target = inc.split("/")[0]
                if target not in order or not os.path.exists(os.path.join(prog, inc)):
                    bad(path, line, '"%s" is not a header of %s/ (the other program, or a '
                        'missing file)' % (inc, prog))
                elif target == stage:
                    bad(path, line, '"%s": include your own folder by bare name' % inc)
                elif order.index(target) > order.index(stage):
                    bad(path, line, '"%s": %s/ comes after %s/ in %s/ (%s)'
                        % (inc, target, stage, prog, " < ".join(order)))

    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print("layering: %d problem(s)" % len(problems), file=sys.stderr)
        return 1
    print("layering: ok (translate: %s; runtime: %s)"
          % (" < ".join(STAGES["translate"]), " < ".join(STAGES["runtime"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
