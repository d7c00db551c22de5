# shellcheck shell=bash disable=SC2154 # repo, runs, rounds, BENCH_*: set by bench/run.sh
# SPDX-License-Identifier: Apache-2.0
# Item 8 of the benchmark: what watching a program costs.  A Python program
# that stats 20,000 files and opens 2,000 (all under /usr, so the manifest it
# needs stays small and `bento run` of it measures the program, not 20,000
# bind mounts) is timed four ways in one run:
#
#   bento profile of it (default-deny pass, observer, proposal, draft written),
#   bento run of it under the manifest that profile wrote (approved),
#   strace -f of it (a tracer that stops at every system call, twice),
#   python3 alone.
#
# Sourced by bench/run.sh inside its private namespace; uses its `add`, `hf`,
# `probe`, `db` and `say`.  BENCH_PROFILE_RUNS (10, or BENCH_RUNS when that is
# smaller) timed runs each: a profile takes about a second.

profile_program() {
        cat << 'EOF_PY'
#!/usr/bin/python3
# The benchmark's syscall-heavy program: 20,000 stats and 2,000 opens.
import os
paths = []
for top, dirs, files in os.walk("/usr/share"):
    dirs.sort()
    paths += [os.path.join(top, f) for f in sorted(files)][:2000 - len(paths)]
    if len(paths) == 2000:
        break
for i in range(20000):
    try:
        os.stat(paths[i % len(paths)])
    except OSError:
        pass
for p in paths:
    try:
        with open(p, "rb") as fh:
            fh.read(1)
    except OSError:
        pass
EOF_PY
}

bench_profile() {
        local bento=$BENCH_BUILD/bin/bento dir=$BENCH_SCRATCH/profile timed=() cmd
        local runs=${BENCH_PROFILE_RUNS:-$((runs < 10 ? runs : 10))}
        if [ ! -x "$bento" ] || [ ! -x "$BENCH_BUILD/bin/bento-observe" ]; then
                db "profile	status	not measured: bento or bento-observe is not built"
                return 0
        fi
        mkdir -p "$dir/home" "$dir/state" "$dir/proj"
        profile_program > "$dir/proj/heavy.py"
        chmod 755 "$dir/proj/heavy.py"
        (
                manifest_env "$dir/home" "$dir/state" "$dir"
                cd "$dir/proj" || exit 1
                "$bento" profile ./heavy.py --out finished.yaml < /dev/null > /dev/null 2>&1 ||
                        die "bento profile of the benchmark program failed"
                "$bento" approve --yes finished.yaml > /dev/null ||
                        die "bento approve of the profiled manifest failed"
                cmd="exec '$bento' profile ./heavy.py --out draft.yaml < /dev/null"
                if probe "profile/bento" "cd '$dir/proj' && $cmd"; then
                        add "profile/bento" "rm -f '$dir/proj/draft.yaml'" "$cmd"
                fi
                add "profile/run" "" "exec '$bento' run finished.yaml"
                if command -v strace > /dev/null; then
                        add "profile/strace" "" "exec strace -f -o /dev/null python3 ./heavy.py"
                fi
                add "profile/plain" "" "exec python3 ./heavy.py"
                say "bento profile: $((${#timed[@]} / 3)) commands x $runs runs"
                hf "profile" ""
        )
        rm -rf "$dir"
}
