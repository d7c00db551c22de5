#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Turn one benchmark run (STEM/db.tsv and STEM/facts.md, written by
# bench/run.sh) into the markdown report: tables with medians, spread and
# ratios to crun and to bubblewrap, and the issue's targets, met or not.
#   bench/report.sh STEM
# db.tsv rows: key, kind (time|rss|refused), median, p25, p75, min, max,
# mean user, mean system, n  (ms for time, KiB for rss); for refused rows the
# third field is the runtime's message.
set -euo pipefail

stem=${1:?usage: bench/report.sh STEM}
declare -A kind med p25 p75 lo hi usr sys

while IFS=$'\t' read -r key k m a b c d u s _; do
        kind[$key]=$k
        med[$key]=$m
        p25[$key]=${a:-}
        p75[$key]=${b:-}
        lo[$key]=${c:-}
        hi[$key]=${d:-}
        usr[$key]=${u:-}
        sys[$key]=${s:-}
done < "$stem/db.tsv"

has() { [ "${kind[$1]:-}" = time ] || [ "${kind[$1]:-}" = rss ]; }
num() { printf "%.${2:-2}f" "$1"; }
# ratio KEY REF: "0.61×", or – when either is missing
ratio() {
        if has "$1" && has "$2"; then
                awk -v a="${med[$1]}" -v b="${med[$2]}" 'BEGIN { printf "%.2f×", a / b }'
        else
                printf '–'
        fi
}

declare -A section_name=(
        [run]="run /bin/true" [create]="create" [start]="start" [delete]="delete -f"
        [csd]="create+start+delete -f" [rss-run]="run /bin/true" [rss-create]="create"
        [rss-start]="start" [rss-delete]="delete -f"
)
declare -A runtime_name=(
        [bento]="**bento-runtime**" [crun]="crun" [runc]="runc"
        [bwrap]="bwrap (floor)" [crun-nocg]="crun, --cgroup-manager=disabled (ref.)"
        [exec]="/bin/true, no sandbox (ref.)"
)

label() {
        local sec=${1%%/*} r=${1#*/} lim=""
        case $sec in
        *+lim) lim=" (limits)" sec=${sec%+lim} ;;
        *+mnt) lim=" (more mounts)" sec=${sec%+mnt} ;;
        esac
        printf '%s%s | %s' "${section_name[$sec]}" "$lim" "${runtime_name[$r]}"
}

time_rows() {
        local sec=$1 r key bw=–
        for r in bento crun runc bwrap crun-nocg exec; do
                key=$sec/$r
                case ${kind[$key]:-} in
                time)
                        case $sec in
                        run+mnt) bw=$(ratio "$key" run+mnt/bwrap) ;;
                        run | csd | run+lim | csd+lim) bw=$(ratio "$key" run/bwrap) ;;
                        *) bw=– ;;
                        esac
                        printf '| %s | %s | %s–%s | %s–%s | %s | %s | %s |\n' "$(label "$key")" \
                                "$(num "${med[$key]}")" "$(num "${p25[$key]}")" "$(num "${p75[$key]}")" \
                                "$(num "${lo[$key]}")" "$(num "${hi[$key]}")" \
                                "$(num "$(awk -v u="${usr[$key]}" -v s="${sys[$key]}" 'BEGIN { print u + s }')")" \
                                "$(ratio "$key" "$sec/crun")" "$bw"
                        ;;
                refused)
                        printf '| %s | refused: %s | | | | | |\n' "$(label "$key")" "${med[$key]}"
                        ;;
                esac
        done
}

rss_rows() {
        local sec=$1 r key
        for r in bento crun runc bwrap exec; do
                key=$sec/$r
                has "$key" || continue
                printf '| %s | %s | %s–%s | %s–%s | %s |\n' "$(label "$key")" \
                        "$(num "${med[$key]}" 0)" "$(num "${p25[$key]}" 0)" "$(num "${p75[$key]}" 0)" \
                        "$(num "${lo[$key]}" 0)" "$(num "${hi[$key]}" 0)" "$(ratio "$key" "$sec/crun")"
        done
}

tp_rows() {
        local r key n
        n=$(grep -o 'throughput [0-9]* containers, [0-9]* in parallel' "$stem/facts.md" | head -n 1)
        for r in bento crun runc; do
                key=tp/$r
                has "$key" || continue
                printf '| %s | %s | %s–%s | %s | %s |\n' "${runtime_name[$r]}" \
                        "$(num "$(awk -v m="${med[$key]}" 'BEGIN { print m / 1000 }')")" \
                        "$(num "$(awk -v m="${lo[$key]}" 'BEGIN { print m / 1000 }')")" \
                        "$(num "$(awk -v m="${hi[$key]}" 'BEGIN { print m / 1000 }')")" \
                        "$(awk -v m="${med[$key]}" -v t="$n" 'BEGIN { split(t, w, " "); printf "%.0f", w[2] * 1000 / m }')" \
                        "$(ratio "$key" tp/crun)"
        done
}

# target LABEL KEY REF FACTOR [DECIMALS]: one row of the targets table
target() {
        local what=$1 key=$2 ref=$3 factor=$4 dec=${5:-2} verdict value
        if [ "${kind[$key]:-}" = refused ]; then
                value="refused: ${med[$key]}"
                verdict="**not met** (not measurable: bento-runtime refuses the config)"
        elif has "$key" && has "$ref"; then
                value="$(num "${med[$key]}" "$dec") vs $(num "${med[$ref]}" "$dec") → $(ratio "$key" "$ref")"
                if awk -v a="${med[$key]}" -v b="${med[$ref]}" -v f="$factor" 'BEGIN { exit !(a <= f * b) }'; then
                        verdict="met"
                else
                        verdict="**not met**"
                fi
        else
                value="not measured"
                verdict="**not met** (not measured)"
        fi
        printf '| %s | %s | %s |\n' "$what" "$value" "$verdict"
}

title=$(basename "$stem")
echo "# bento-runtime benchmark: $title"
echo
echo "Produced by \`make bench\` (bench/run.sh). Method and reading: docs/performance.md."
echo
echo "## Machine"
echo
cat "$stem/facts.md"
echo
echo "## Time per command (ms, wall clock)"
echo
echo "median, interquartile range (p25–p75), min–max over the timed runs (hyperfine has"
echo "subtracted the cost of starting its shell); CPU is hyperfine's mean user+system time,"
echo "which still includes that shell (about 0.3 ms); ×crun is the ratio of medians to crun's"
echo "row of the same measurement, ×bwrap to bubblewrap's \`run /bin/true\`."
echo
echo "| measurement | runtime | median | IQR | min–max | CPU | ×crun | ×bwrap |"
echo "|---|---|---|---|---|---|---|---|"
for sec in run create start delete csd; do time_rows "$sec"; done
echo
echo "### With a memory (64 MiB) and a pids (64) limit"
echo
echo "| measurement | runtime | median | IQR | min–max | CPU | ×crun | ×bwrap |"
echo "|---|---|---|---|---|---|---|---|"
for sec in run create start delete csd; do time_rows "$sec+lim"; done
echo
if has run+mnt/crun || has run+mnt/bento; then
        echo "### With $(grep -o '[0-9]* extra mounts' "$stem/facts.md") in the mount namespace the runtimes start from"
        echo
        echo "| measurement | runtime | median | IQR | min–max | CPU | ×crun | ×bwrap |"
        echo "|---|---|---|---|---|---|---|---|"
        time_rows run+mnt
        echo
fi
echo "## Peak RSS (KiB, GNU time %M)"
echo
echo "| command | runtime | median | IQR | min–max | ×crun |"
echo "|---|---|---|---|---|---|"
for sec in rss-run rss-create rss-start rss-delete; do rss_rows "$sec"; done
echo
echo "## Throughput: $(grep -o 'throughput [0-9]* containers, [0-9]* in parallel' "$stem/facts.md" | sed 's/throughput //') (create, start, delete -f each)"
echo
echo "| runtime | seconds (median) | min–max | containers/s | ×crun (time) |"
echo "|---|---|---|---|---|"
tp_rows
echo
echo "## The manifest CLI (items 4 and 5)"
echo
if has bento-run/bento || has translate/large; then
        echo "| measurement | median (ms) | IQR | min–max | CPU | ratio |"
        echo "|---|---|---|---|---|---|"
        for key in bento-run/bento bento-run/bwrap translate/large translate/small; do
                has "$key" || continue
                case $key in
                bento-run/bento) what="\`bento run\` of a typical manifest, end to end" r=$(ratio "$key" bento-run/bwrap) ;;
                bento-run/bwrap) what="bubblewrap building the same sandbox by hand" r=– ;;
                translate/large) what="\`bento translate\`, 500 grants, every shield present" r=$(ratio "$key" bento-run/bwrap) ;;
                translate/small) what="\`bento translate\`, a small manifest" r=$(ratio "$key" bento-run/bwrap) ;;
                esac
                printf '| %s | %s | %s–%s | %s–%s | %s | %s |\n' "$what" "$(num "${med[$key]}")" \
                        "$(num "${p25[$key]}")" "$(num "${p75[$key]}")" "$(num "${lo[$key]}")" \
                        "$(num "${hi[$key]}")" \
                        "$(num "$(awk -v u="${usr[$key]}" -v s="${sys[$key]}" 'BEGIN { print u + s }')")" "$r"
        done
else
        echo "- not measured: ${med[manifest]:-bento is not built}"
fi
echo
echo "## Translate and the number of write grants (item 5, scaling)"
echo
# × 1,000 grants: the ratio of medians to the 1,000-grant row; linear growth
# gives the number of thousands (10.00× for 10,000).
if has translate-scale/1000; then
        echo "| write grants | median (ms) | min–max | CPU | per grant (µs) | × 1,000 grants |"
        echo "|---|---|---|---|---|---|"
        for n in 1000 2000 5000 10000; do
                key=translate-scale/$n
                has "$key" || continue
                printf '| %s | %s | %s–%s | %s | %s | %s |\n' "$n" "$(num "${med[$key]}")" \
                        "$(num "${lo[$key]}")" "$(num "${hi[$key]}")" \
                        "$(num "$(awk -v u="${usr[$key]}" -v s="${sys[$key]}" 'BEGIN { print u + s }')")" \
                        "$(awk -v m="${med[$key]}" -v n="$n" 'BEGIN { printf "%.0f", m * 1000 / n }')" \
                        "$(ratio "$key" translate-scale/1000)"
        done
else
        echo "- not measured: ${med[manifest]:-bento is not built}"
fi
echo
echo "## Watching a program (item 8): 20,000 stats and 2,000 opens"
echo
if has profile/run; then
        echo "| measurement | median (ms) | IQR | min–max | CPU | × bento run |"
        echo "|---|---|---|---|---|---|"
        for key in profile/bento profile/run profile/strace profile/plain; do
                has "$key" || continue
                case $key in
                profile/bento) what="\`bento profile\` of it (pass, observer, proposal, draft)" ;;
                profile/run) what="\`bento run\` of it under the manifest profile wrote" ;;
                profile/strace) what="strace -f of it (a stop at every call's entry and exit)" ;;
                profile/plain) what="python3 alone, no sandbox" ;;
                esac
                printf '| %s | %s | %s–%s | %s–%s | %s | %s |\n' "$what" "$(num "${med[$key]}")" \
                        "$(num "${p25[$key]}")" "$(num "${p75[$key]}")" "$(num "${lo[$key]}")" \
                        "$(num "${hi[$key]}")" \
                        "$(num "$(awk -v u="${usr[$key]}" -v s="${sys[$key]}" 'BEGIN { print u + s }')")" \
                        "$(ratio "$key" profile/run)"
        done
else
        echo "- not measured: ${med[profile]:-bento is not built}"
fi
echo
echo "## Targets (ratios of medians, this run)"
echo
echo "| target | this run (ms or KiB) | verdict |"
echo "|---|---|---|"
target "run /bin/true ≤ 0.7 × crun" run/bento run/crun 0.7
target "run /bin/true ≤ 1.3 × bwrap (floor)" run/bento run/bwrap 1.3
target "create+start+delete ≤ 0.7 × crun" csd/bento csd/crun 0.7
target "run /bin/true with limits ≤ 0.7 × crun with limits" run+lim/bento run+lim/crun 0.7
target "create+start+delete with limits ≤ 0.7 × crun with limits" csd+lim/bento csd+lim/crun 0.7
target "peak RSS of run ≤ crun's" rss-run/bento rss-run/crun 1.0 0
target "bento run end to end ≤ 2 × bubblewrap by hand" bento-run/bento bento-run/bwrap 2.0
target "bento profile ≤ 3 × bento run of the same program" profile/bento profile/run 3.0
# translate: against the same bubblewrap run as `bento run` (issue 21)
target "bento translate of the small manifest ≤ 0.5 × bubblewrap by hand" translate/small bento-run/bwrap 0.5
target "bento translate of the large manifest ≤ 1.5 × bubblewrap by hand" translate/large bento-run/bwrap 1.5
if has translate-scale/10000; then
        if awk -v a="${med[translate-scale/10000]}" 'BEGIN { exit !(a < 1000) }'; then v=met; else v="**not met**"; fi
        echo "| bento translate of 10,000 write grants < 1 s | $(num "${med[translate-scale/10000]}") ms | $v |"
else
        echo "| bento translate of 10,000 write grants < 1 s | not measured | **not met** (not measured) |"
fi
