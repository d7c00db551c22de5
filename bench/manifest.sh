# shellcheck shell=bash disable=SC2154 # repo, runs, BENCH_*: set by bench/run.sh
# SPDX-License-Identifier: Apache-2.0
# Items 4 and 5 of the benchmark (issue 7): the manifest CLI end to end.
# Sourced by bench/run.sh inside its private namespace; uses its `add`, `hf`,
# `probe`, `db` and `say`.
#
#   4. `bento run` of a typical manifest (an approved manifest: the home
#      readable, ./out writable, exec blocked) against bubblewrap building an
#      equivalent sandbox by hand (the same namespaces, binds, the home's
#      credential store hidden under a tmpfs, /tmp, /proc, /dev);
#   5. `bento translate` of a large manifest (500 grants under a home in which
#      the path of every shield rule exists) and of a small one.

# A home in which every shield rule's path exists, from the rule table.
manifest_fixture_home() {
        local home=$1
        python3 - "$repo/translate/shield-rules.c" "$home" << 'EOF'
import os, re, sys
src, home = open(sys.argv[1]).read(), sys.argv[2]
for rel, kind in re.findall(r'\{"([^"]+)",\s*(\w+)\(', src):
    p = os.path.join(home, rel)
    try:
        if "DIR" in kind:
            os.makedirs(p, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if not os.path.lexists(p):
                open(p, "w").close()
    except OSError:
        pass  # a rule nested under a file rule: the outer one exists
EOF
}

manifest_fixtures() {
        local dir=$1 i
        mkdir -p "$dir/home" "$dir/proj/out" "$dir/state"
        manifest_fixture_home "$dir/home"
        printf '#!/bin/sh\nexit 0\n' > "$dir/proj/app.sh"
        printf 'entrypoint: app.sh\ninterpreter: sh\nread: ["~"]\nwrite: [out]\n' \
                > "$dir/proj/typical.yaml"
        printf 'entrypoint: app.sh\ninterpreter: sh\nread: ["~/work/g000"]\nwrite: [out]\n' \
                > "$dir/proj/small.yaml"
        {
                printf 'entrypoint: app.sh\ninterpreter: sh\nread:\n'
                for ((i = 0; i < 480; i++)); do printf '  - "~/work/g%03d"\n' "$i"; done
                printf 'write:\n'
                for ((i = 480; i < 500; i++)); do printf '  - "~/work/g%03d"\n' "$i"; done
        } > "$dir/proj/large.yaml"
        for ((i = 0; i < 500; i++)); do mkdir -p "$dir/home/work/$(printf 'g%03d' "$i")"; done
}

# bubblewrap doing by hand what `bento run` does for typical.yaml.
manifest_bwrap_cmd() {
        local dir=$1 sh
        sh=$(readlink -f /bin/sh)
        echo "bwrap --die-with-parent --new-session --unshare-user --unshare-ipc --unshare-pid" \
                "--unshare-uts --unshare-cgroup --unshare-net --cap-drop ALL" \
                "--proc /proc --dev /dev --tmpfs /tmp --ro-bind /usr /usr" \
                "--symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64" \
                "--ro-bind /etc/ld.so.cache /etc/ld.so.cache --ro-bind '$dir/home' '$dir/home'" \
                "--tmpfs '$dir/home/.ssh' --tmpfs '$dir/home/.aws' --tmpfs '$dir/home/.gnupg'" \
                "--bind '$dir/proj/out' '$dir/proj/out' --ro-bind '$dir/proj/app.sh' '$dir/proj/app.sh'" \
                "--remount-ro / --clearenv --setenv PATH /usr/bin:/bin --setenv HOME /tmp" \
                "--chdir '$dir/proj' '$sh' '$dir/proj/app.sh'"
}

bench_manifest() {
        local bento=$BENCH_BUILD/bin/bento dir=$BENCH_SCRATCH/manifest timed=() env
        if [ ! -x "$bento" ]; then
                db "manifest	status	not measured: $bento is not built"
                return 0
        fi
        manifest_fixtures "$dir"
        env="env HOME='$dir/home' XDG_STATE_HOME='$dir/state' TMPDIR='$dir'"
        HOME="$dir/home" XDG_STATE_HOME="$dir/state" "$bento" approve --yes "$dir/proj/typical.yaml" > /dev/null ||
                die "bento approve of the benchmark manifest failed"
        # 4: end to end
        if probe "bento-run/bento" "exec $env '$bento' run '$dir/proj/typical.yaml'"; then
                add "bento-run/bento" "" "exec $env '$bento' run '$dir/proj/typical.yaml'"
        fi
        add "bento-run/bwrap" "" "exec $(manifest_bwrap_cmd "$dir")"
        say "bento run end to end: $((${#timed[@]} / 3)) commands x $runs runs"
        hf "bento-run" ""
        # 5: translate, large and small
        timed=()
        add "translate/large" "rm -rf '$dir/out-large'" \
                "exec $env '$bento' translate '$dir/proj/large.yaml' -o '$dir/out-large'"
        add "translate/small" "rm -rf '$dir/out-small'" \
                "exec $env '$bento' translate '$dir/proj/small.yaml' -o '$dir/out-small'"
        say "bento translate: $((${#timed[@]} / 3)) commands x $runs runs"
        hf "translate" ""
        rm -rf "$dir"
}
