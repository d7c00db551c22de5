#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `make bench`: bento-runtime side by side with crun, runc and bubblewrap, in
# one run, on one busybox bundle.  Prints the tables and writes them, with the
# machine facts, to BUILD_DIR/bench/results/<date>-<host>.md (raw hyperfine
# JSON in the folder of the same name).  Nothing is written in the source
# tree: results are not kept in git (docs/performance.md says why).  Numbers
# are reported, never asserted: the exit status is non-zero only when the
# benchmark itself fails or leaves something behind.  See bench/README.md.
#
#   bench/run.sh BUILD_DIR        (as root; BUILD_DIR holds bin/bento-runtime)
#
# Knobs (environment): BENCH_RUNS (100, in BENCH_ROUNDS=4 interleaved rounds),
# BENCH_WARMUP (3 per round), BENCH_RSS_N (10),
# BENCH_TP_N (200), BENCH_TP_PARALLEL (2), BENCH_TP_RUNS (3),
# BENCH_EXTRA_MOUNTS (1000; 0 skips that measurement), BENCH_MOUNTS_RUNS (40),
# BENCH_PROFILE_RUNS (10), BENCH_SCALE_RUNS (3: translate of 1,000 to
# 10,000 write grants),
# BENCH_DIR (scratch, default BUILD_DIR/bench/scratch), BENCH_RESULTS
# (BUILD_DIR/bench/results).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(dirname "$here")
build=${1:?usage: bench/run.sh BUILD_DIR}

runs=${BENCH_RUNS:-100}
rounds=${BENCH_ROUNDS:-4}
warmup=${BENCH_WARMUP:-3}
rss_n=${BENCH_RSS_N:-10}
tp_n=${BENCH_TP_N:-200}
tp_par=${BENCH_TP_PARALLEL:-2}
tp_runs=${BENCH_TP_RUNS:-3}
extra_mounts=${BENCH_EXTRA_MOUNTS:-1000}
mnt_runs=${BENCH_MOUNTS_RUNS:-40}
scale_runs=${BENCH_SCALE_RUNS:-3}
scratch=${BENCH_DIR:-$build/bench/scratch}
results=${BENCH_RESULTS:-$build/bench/results}

# Debian packages the benchmark runs (command to look for, package)
deps="hyperfine:hyperfine crun:crun runc:runc bwrap:bubblewrap tini:tini
/bin/busybox:busybox-static /usr/bin/time:time jq:jq unshare:util-linux strace:strace
python3:python3"

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# ---------------------------------------------------------------- outside --

install_missing() {
        local missing="" d
        for d in $deps; do
                command -v "${d%%:*}" > /dev/null 2>&1 || missing="$missing ${d#*:}"
        done
        [ -z "$missing" ] && return 0
        [ "$(id -u)" -eq 0 ] || die "missing Debian packages:$missing"
        say "installing$missing"
        export DEBIAN_FRONTEND=noninteractive
        # shellcheck disable=SC2086 # one word per package
        if ! apt-get install -y --no-install-recommends $missing; then
                apt-get update
                # shellcheck disable=SC2086
                apt-get install -y --no-install-recommends $missing
        fi
}

pkg_version() { dpkg-query -W -f='${Version}' "$1" 2> /dev/null || echo '?'; }

# The machine, as the report states it.
machine_facts() {
        local cglayout commit dirty
        if [ "$(stat -fc %T /sys/fs/cgroup/unified 2> /dev/null)" = cgroup2fs ]; then
                cglayout="hybrid: v1 hierarchies + cgroup2 at /sys/fs/cgroup/unified (controllers: [$(cat /sys/fs/cgroup/unified/cgroup.controllers)])"
        else
                cglayout=$(stat -fc %T /sys/fs/cgroup)
        fi
        commit=$(git -C "$repo" rev-parse --short=12 HEAD 2> /dev/null || echo unknown)
        dirty=$(git --no-optional-locks -C "$repo" status --porcelain --untracked-files=no 2> /dev/null | wc -l)
        cat << EOF
| fact | value |
|---|---|
| date (UTC) | $(date -u '+%Y-%m-%d %H:%M:%S') |
| host | $(hostname) |
| kernel | $(uname -srm) |
| CPU | $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) online |
| memory | $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) |
| load average at start | $(cut -d' ' -f1-3 /proc/loadavg) |
| PID 1 | $(cat /proc/1/comm) |
| cgroups (host view) | $cglayout |
| cgroups (benchmark view) | v1 hierarchies only, re-mounted in a private mount namespace (bench/sandbox.sh) |
| bento-runtime | $("$build/bin/bento-runtime" --version | head -1), commit $commit$([ "$dirty" -gt 0 ] && echo " + $dirty modified files") |
| crun | $(crun --version | head -1 | sed 's/crun version //') (Debian $(pkg_version crun)) |
| runc | $(runc --version | head -1 | sed 's/runc version //') (Debian $(pkg_version runc)) |
| bubblewrap | $(bwrap --version | sed 's/bubblewrap //') (Debian $(pkg_version bubblewrap)) |
| hyperfine | $(hyperfine --version | sed 's/hyperfine //') |
| tini / busybox | $(pkg_version tini) / $(pkg_version busybox-static) |
| settings | runs $runs in $rounds rounds (order rotated), warmup $warmup per round; RSS n=$rss_n; throughput $tp_n containers, $tp_par in parallel, $tp_runs runs; $extra_mounts extra mounts, $mnt_runs runs; translate scaling $scale_runs runs |
EOF
}

# Things of this run still visible from the host's view.
host_leaks() {
        local n
        n=$(grep -cF " $scratch/" /proc/self/mountinfo || true)
        [ "$n" -eq 0 ] || echo "host view: $n mounts under $scratch"
        n=$(find /sys/fs/cgroup -mindepth 2 -maxdepth 7 -type d -name "*$BENCH_TAG*" 2> /dev/null | wc -l)
        [ "$n" -eq 0 ] || echo "host view: $n cgroups named *$BENCH_TAG*"
        n=$(grep -c bench-cgroup-view /proc/self/mountinfo || true)
        [ "$n" -eq 0 ] || echo "host view: the private cgroup view leaked into the host"
        procs_in_rootfs "host view"
}

# Every cgroup directory of the host's view, sorted (for a before/after diff).
cgroup_dirs() {
        find /sys/fs/cgroup -mindepth 2 -maxdepth 7 -type d 2> /dev/null | LC_ALL=C sort
}

# Processes whose root directory is the benchmark's rootfs: containers alive.
procs_in_rootfs() {
        local p root n=0
        for p in /proc/[0-9]*; do
                root=$(readlink "$p/root" 2> /dev/null) || continue
                [ "$root" = "$scratch/rootfs" ] && n=$((n + 1))
        done
        [ "$n" -eq 0 ] || echo "$1: $n processes still inside the bundle's rootfs"
}

outer() {
        local stamp status leaks longest
        [ "$(id -u)" -eq 0 ] || die "must run as root (containers, cgroups, namespaces)"
        install_missing
        build=$(cd "$build" && pwd -P)
        [ -x "$build/bin/bento-runtime" ] || die "$build/bin/bento-runtime missing (make first)"
        case $scratch$results$build in *[\'\"\ ]*) die "paths with quotes or spaces are not supported" ;; esac
        mkdir -p "$scratch" "$results"
        scratch=$(cd "$scratch" && pwd -P)
        results=$(cd "$results" && pwd -P)
        # The deepest unix socket a measurement makes: the exec gate's, in
        # the bundle bento translate writes (sun_path holds 107 bytes).
        longest="$scratch/manifest/out-large/exec-gate.sock"
        [ "${#longest}" -le 107 ] ||
                die "the scratch directory $scratch is too deep for a unix socket path" \
                    "(${#longest} > 107 bytes); set BENCH_DIR to a shorter one"
        "$here/bundle.sh" "$scratch"

        stamp=$(date -u +%Y-%m-%dT%H%MZ)
        BENCH_TAG=bench$(date -u +%H%M%S)p$$
        BENCH_STEM=$results/$stamp-$(hostname -s)
        rm -rf "$BENCH_STEM"
        mkdir -p "$BENCH_STEM"
        machine_facts > "$BENCH_STEM/facts.md"
        cgroup_dirs > "$scratch/cgroups-before.txt"
        export BENCH_TAG BENCH_STEM BENCH_BUILD=$build BENCH_SCRATCH=$scratch
        say "results: $BENCH_STEM.md; container ids: $BENCH_TAG-*"

        status=0
        BENCH_STAGE=inner "$here/sandbox.sh" "$here/run.sh" "$build" || status=$?

        leaks=$(host_leaks)
        cgroup_dirs | comm -13 "$scratch/cgroups-before.txt" - | cat -v > "$scratch/cgroups-new.txt"
        rm -rf "$scratch/state" "$scratch/ids"
        if [ -s "$BENCH_STEM/leaks-inside.txt" ] || [ -n "$leaks" ]; then
                [ "$status" -ne 0 ] || status=1
        fi
        {
                echo
                echo "## Left behind"
                echo
                if [ -s "$BENCH_STEM/leaks-inside.txt" ] || [ -n "$leaks" ]; then
                        echo "LEAKS FOUND:"
                        echo
                        sed 's/^/- /' "$BENCH_STEM/leaks-inside.txt" 2> /dev/null || true
                        [ -z "$leaks" ] || printf '%s\n' "$leaks" | sed 's/^/- /'
                else
                        echo "Nothing: after the run, every runtime's state root listed no container, no"
                        echo "cgroup named \`*$BENCH_TAG*\` existed in any hierarchy (private and host view),"
                        echo "no mount under \`$scratch\` and no process rooted in the bundle remained."
                fi
                if [ -s "$scratch/cgroups-new.txt" ]; then
                        echo
                        echo "Not counted as ours (no \`$BENCH_TAG\` in the name), but new since the start:"
                        echo "$(wc -l < "$scratch/cgroups-new.txt") cgroup directories, made by other users of the machine or"
                        echo "by a runtime that names cgroups without the container id:"
                        echo
                        # shellcheck disable=SC2016 # literal backquotes (markdown)
                        head -n 10 "$scratch/cgroups-new.txt" | sed 's/^/- `/; s/$/`/'
                fi
                echo
                echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
        } | tee -a "$BENCH_STEM.md"
        [ "$status" -eq 0 ] || say "FAILED (status $status); see $BENCH_STEM/"
        say "wrote $BENCH_STEM.md and $BENCH_STEM/"
        return "$status"
}

# ----------------------------------------------------------------- inside --
# Runs under bench/sandbox.sh: private mount namespace, v1-only cgroup view,
# tini -s as subreaper.

rootfs() { echo "$BENCH_SCRATCH/rootfs"; }

# The runtime command line, quoted for the shell hyperfine starts.
rt() {
        local st=$BENCH_SCRATCH/state
        case $1 in
        bento) echo "'$BENCH_BUILD/bin/bento-runtime' --root '$st/bento'" ;;
        crun) echo "crun --root '$st/crun'" ;;
        crun-nocg) echo "crun --cgroup-manager=disabled --root '$st/crun'" ;;
        runc) echo "runc --root '$st/runc'" ;;
        esac
}

bwrap_cmd() {
        echo "bwrap --unshare-pid --unshare-net --unshare-ipc --unshare-uts" \
                "--ro-bind '$(rootfs)' / --proc /proc --dev /dev --cap-drop ALL" \
                "--cap-add CAP_AUDIT_WRITE --cap-add CAP_KILL --cap-add CAP_NET_BIND_SERVICE /bin/true"
}

db() { printf '%s\n' "$*" >> "$BENCH_STEM/db.tsv"; }

# Run CMD once; on failure record KEY as refused with the runtime's message.
probe() {
        local key=$1 cmd=$2 msg err=$BENCH_SCRATCH/probe.err
        # stderr to a file, not a pipe: a parked init would hold a pipe open
        if sh -c "$cmd" > /dev/null 2> "$err" < /dev/null; then
                return 0
        fi
        msg=$(head -n 1 "$err" | sed -e 's/^[^:]*: //' -e "s|^$BENCH_SCRATCH/[^:]*: ||" -e 's/|/\\|/g')
        db "$key	refused	${msg:-exit status non-zero}"
        say "  $key: refused: ${msg:-exit status non-zero}"
        return 1
}

# jq: linear-interpolation quantile of a numeric array
# shellcheck disable=SC2016 # jq's variables, not the shell's
jq_q='def q(p): sort as $s | (p * (($s | length) - 1)) as $i | ($i | floor) as $lo
        | ($i | ceil) as $hi | $s[$lo] + ($s[$hi] - $s[$lo]) * ($i - $lo);'

# Commands to time are kept as triples in the array `timed`: name, --prepare
# command (empty for none) and the command itself.
add() { timed+=("$1" "$2" "$3"); }

# hf NAME CLEANUP: time every command of `timed` with hyperfine, in $rounds
# rounds of runs/rounds runs each; each round starts with a different
# command, so a change in the machine's load during the run is spread over
# all the runtimes instead of landing on one.  Keeps each round's JSON and
# log and adds one row per command to the db.
hf() {
        local name=$1 cleanup=$2 n=$((${#timed[@]} / 3)) r k j per args files=()
        per=$(((runs + rounds - 1) / rounds))
        for ((r = 0; r < rounds; r++)); do
                args=()
                for ((k = 0; k < n; k++)); do
                        j=$(((k + r) % n * 3))
                        [ -z "${timed[j + 1]}" ] || args+=(--prepare "${timed[j + 1]}")
                done
                for ((k = 0; k < n; k++)); do
                        j=$(((k + r) % n * 3))
                        args+=(-n "${timed[j]}" "${timed[j + 2]}")
                done
                [ -z "$cleanup" ] || args+=(--cleanup "$cleanup")
                files+=("$BENCH_STEM/$name.r$r.json")
                hyperfine --style basic --warmup "$warmup" --runs "$per" \
                        --export-json "$BENCH_STEM/$name.r$r.json" "${args[@]}" \
                        >> "$BENCH_STEM/$name.log" 2>&1 ||
                        die "hyperfine $name failed; see $BENCH_STEM/$name.log"
        done
        jq -r -s "$jq_q"' [.[].results[]] | group_by(.command)[]
                | (map(.times) | add) as $t
                | [.[0].command, "time",
                   (($t | q(0.5)) * 1000), (($t | q(0.25)) * 1000),
                   (($t | q(0.75)) * 1000), (($t | min) * 1000), (($t | max) * 1000),
                   ((map(.user) | add / length) * 1000), ((map(.system) | add / length) * 1000),
                   ($t | length)] | @tsv' "${files[@]}" >> "$BENCH_STEM/db.tsv"
}

# 1 and 3: `run /bin/true`
bench_run() {
        local bundle=$1 suffix=$2 r cmd timed=()
        for r in bento crun runc; do
                cmd="exec $(rt $r) run --bundle '$bundle' $BENCH_TAG-run$suffix-$r-\$\$"
                if probe "run$suffix/$r" "$cmd"; then add "run$suffix/$r" "" "$cmd"; fi
        done
        if [ -z "$suffix" ]; then
                add run/bwrap "" "exec $(bwrap_cmd)"
                add run/crun-nocg "" "exec $(rt crun-nocg) run --bundle '$bundle' $BENCH_TAG-run-nocg-\$\$"
                add run/exec "" "exec '$(rootfs)/bin/true'"
        fi
        say "run /bin/true${suffix:+ with limits}: $((${#timed[@]} / 3)) commands x $runs runs"
        hf "run$suffix" ""
}

# 2 and 3: create, start and delete alone, then the three together
bench_lifecycle() {
        local bundle=$1 suffix=$2 r ph f ids=$BENCH_SCRATCH/ids rts=() timed clean cmd
        mkdir -p "$ids"
        for r in bento crun runc; do
                cmd="id=$BENCH_TAG-probe$suffix-$r-\$\$; $(rt $r) create --bundle '$bundle' \$id"
                cmd="$cmd && $(rt $r) start \$id && $(rt $r) delete -f \$id"
                if probe "csd$suffix/$r" "$cmd"; then
                        rts+=("$r")
                else
                        for ph in create start delete; do
                                db "$ph$suffix/$r	refused	(see create+start+delete)"
                        done
                fi
        done
        [ ${#rts[@]} -gt 0 ] || return 0
        for ph in create start delete; do
                timed=()
                clean=:
                for r in "${rts[@]}"; do
                        f=$ids/$BENCH_TAG-$ph$suffix-$r
                        case $ph in
                        create) cmd="$(rt "$r") create --bundle '$bundle' \"\$id\" < /dev/null" ;;
                        start) cmd="$(rt "$r") start \"\$id\"" ;;
                        delete) cmd="$(rt "$r") delete -f \"\$id\"" ;;
                        esac
                        add "$ph$suffix/$r" "'$here/phase.sh' $ph '$f' '$bundle' $(rt "$r")" \
                                "read -r id < '$f' && exec $cmd"
                        clean="$clean; '$here/phase.sh' clean '$f' '$bundle' $(rt "$r")"
                done
                say "$ph${suffix:+ with limits} alone: ${#rts[@]} runtimes x $runs runs"
                hf "$ph$suffix" "$clean"
        done
        timed=()
        for r in "${rts[@]}"; do
                cmd="id=$BENCH_TAG-csd$suffix-$r-\$\$; $(rt "$r") create --bundle '$bundle' \$id < /dev/null"
                add "csd$suffix/$r" "" "$cmd && $(rt "$r") start \$id && exec $(rt "$r") delete -f \$id"
        done
        say "create+start+delete${suffix:+ with limits}: ${#rts[@]} runtimes x $runs runs"
        hf "csd$suffix" ""
}

# 6: peak RSS (GNU time %M: the largest of the process and the children it
# reaped, so for `run` the runtime or the container's init, whichever is larger)
bench_rss() {
        local bundle=$1 i r key out=$BENCH_STEM/rss.tsv t=$BENCH_SCRATCH/time.out
        local -a c
        say "peak RSS: n=$rss_n each"
        : > "$out"
        measure() {
                key=$1
                shift
                /usr/bin/time -f %M -o "$t" "$@" > /dev/null < /dev/null
                printf '%s\t%s\n' "$key" "$(tail -n 1 "$t")" >> "$out"
        }
        for i in $(seq 1 "$rss_n"); do
                for r in bento crun runc; do
                        grep -q "^csd/$r	refused" "$BENCH_STEM/db.tsv" && continue
                        eval "c=($(rt $r))"
                        measure "rss-run/$r" "${c[@]}" run --bundle "$bundle" "$BENCH_TAG-rss-$r-$i"
                        measure "rss-create/$r" "${c[@]}" create --bundle "$bundle" "$BENCH_TAG-rssc-$r-$i"
                        measure "rss-start/$r" "${c[@]}" start "$BENCH_TAG-rssc-$r-$i"
                        measure "rss-delete/$r" "${c[@]}" delete -f "$BENCH_TAG-rssc-$r-$i"
                done
                eval "c=($(bwrap_cmd))"
                measure rss-run/bwrap "${c[@]}"
                measure rss-run/exec "$(rootfs)/bin/true"
        done
        jq -R -s -r "$jq_q"' split("\n") | map(select(length > 0) | split("\t"))
                | group_by(.[0])[] | (map(.[1] | tonumber)) as $v
                | [.[0][0], "rss", ($v | q(0.5)), ($v | q(0.25)), ($v | q(0.75)),
                   ($v | min), ($v | max), "", "", ($v | length)] | @tsv' "$out" >> "$BENCH_STEM/db.tsv"
}

# 7: throughput, N containers created, started and deleted, P at a time
bench_throughput() {
        local bundle=$1 r cmd timed=()
        for r in bento crun runc; do
                grep -q "^csd/$r	refused" "$BENCH_STEM/db.tsv" && continue
                cmd="$(rt "$r") create --bundle '$bundle' $BENCH_TAG-tp-$r-\$\$-@ < /dev/null"
                cmd="$cmd && $(rt "$r") start $BENCH_TAG-tp-$r-\$\$-@"
                cmd="$cmd && $(rt "$r") delete -f $BENCH_TAG-tp-$r-\$\$-@"
                add "tp/$r" "" "seq $tp_n | xargs -P $tp_par -I @ sh -c \"$cmd\""
        done
        say "throughput: $tp_n containers, $tp_par in parallel, $tp_runs runs"
        local runs=$tp_runs rounds=$tp_runs warmup=0
        hf tp ""
}

# 4 and 5: the manifest CLI (bench/manifest.sh).
# shellcheck source=bench/manifest.sh
. "$here/manifest.sh"
# 8: bento profile (bench/profile.sh).
# shellcheck source=bench/profile.sh
. "$here/profile.sh"

# Extra: `run /bin/true` again after adding BENCH_EXTRA_MOUNTS tmpfs mounts in
# the private mount namespace (a container host has hundreds or thousands):
# what the runtimes do per mount, e.g. reading /proc/self/mountinfo, shows.
bench_mounts() {
        local bundle=$1 dir=$BENCH_SCRATCH/mounts i r cmd timed=()
        [ "$extra_mounts" -gt 0 ] || return 0
        mkdir -p "$dir"
        for ((i = 0; i < extra_mounts; i++)); do
                mkdir -p "$dir/$i"
                mount -t tmpfs -o size=4k,mode=0755 bench-extra "$dir/$i"
        done
        for r in bento crun; do
                cmd="exec $(rt $r) run --bundle '$bundle' $BENCH_TAG-mnt-$r-\$\$"
                if probe "run+mnt/$r" "$cmd"; then add "run+mnt/$r" "" "$cmd"; fi
        done
        add run+mnt/bwrap "" "exec $(bwrap_cmd)"
        say "run /bin/true with $extra_mounts more mounts: $((${#timed[@]} / 3)) commands x $mnt_runs runs"
        local runs=$mnt_runs
        hf "run+mnt" ""
        for ((i = 0; i < extra_mounts; i++)); do
                umount "$dir/$i"
        done
        rm -rf "$dir"
}

# Remove whatever of ours a runtime still lists, and say so.
sweep() {
        local r id
        local -a c
        for r in bento crun runc; do
                eval "c=($(rt $r))"
                for id in $("${c[@]}" list -q 2> /dev/null | grep "^$BENCH_TAG" || true); do
                        echo "$r: container $id was left behind (deleted now)"
                        "${c[@]}" delete -f "$id" > /dev/null 2>&1 || true
                done
        done
}

inside_leaks() {
        local n
        sweep
        sleep 0.2 # let tini reap the last inits
        n=$(find /sys/fs/cgroup -mindepth 2 -maxdepth 7 -type d -name "*$BENCH_TAG*" 2> /dev/null | wc -l)
        [ "$n" -eq 0 ] || echo "private view: $n cgroups named *$BENCH_TAG* remain"
        n=$(grep -cF " $BENCH_SCRATCH/" /proc/self/mountinfo || true)
        [ "$n" -eq 0 ] || echo "private view: $n mounts under $BENCH_SCRATCH remain"
        procs_in_rootfs "private view"
}

inner() {
        local plain=$BENCH_SCRATCH/plain limits=$BENCH_SCRATCH/limits
        scratch=$BENCH_SCRATCH
        : > "$BENCH_STEM/db.tsv"
        trap 'sweep > /dev/null' EXIT INT TERM
        bench_run "$plain" ""
        bench_lifecycle "$plain" ""
        bench_run "$limits" "+lim"
        bench_lifecycle "$limits" "+lim"
        bench_rss "$plain"
        bench_throughput "$plain"
        bench_mounts "$plain"
        bench_manifest
        bench_profile
        inside_leaks > "$BENCH_STEM/leaks-inside.txt"
        trap - EXIT INT TERM
        "$here/report.sh" "$BENCH_STEM" | tee "$BENCH_STEM.md"
}

case ${BENCH_STAGE:-outer} in
outer) outer ;;
inner) inner ;;
*) die "unknown BENCH_STAGE" ;;
esac
