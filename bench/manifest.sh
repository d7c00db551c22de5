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
        python3 - "$repo/translate/shields/rules.c" "$home" << 'EOF'
import os, re, sys
src, home = open(sys.argv[1]).read(), sys.argv[2]
for rel, kind in re.findall(r'\{"([^"]+)",\s*(\w+)[(}]', src):
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

# A home as a developer's looks: a few credential stores and dotfiles.
manifest_typical_home() {
        local home=$1
        mkdir -p "$home/.ssh" "$home/.aws" "$home/.gnupg" "$home/.config/gcloud" "$home/.docker" \
                "$home/src"
        echo key > "$home/.ssh/id_ed25519"
        echo creds > "$home/.aws/credentials"
        echo '{}' > "$home/.docker/config.json"
        echo machine > "$home/.netrc"
        echo history > "$home/.bash_history"
        echo '# rc' > "$home/.bashrc"
        echo '[user]' > "$home/.gitconfig"
}

manifest_fixtures() {
        local dir=$1 i
        mkdir -p "$dir/home" "$dir/typical/proj/out" "$dir/proj/out" "$dir/state"
        manifest_fixture_home "$dir/home"
        manifest_typical_home "$dir/typical/home"
        printf '#!/bin/sh\nexit 0\n' > "$dir/typical/proj/app.sh"
        printf 'entrypoint: app.sh\ninterpreter: sh\nread: ["~"]\nwrite: [out]\n' \
                > "$dir/typical/proj/typical.yaml"
        : > "$dir/empty"
        printf '#!/bin/sh\nexit 0\n' > "$dir/proj/app.sh"
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

# bubblewrap doing by hand what `bento run` does for typical.yaml: the same
# namespaces and binds, the credential stores hidden (empty tmpfs over a
# directory, an empty file over a file).
manifest_bwrap_cmd() {
        local dir=$1 sh t=$1/typical
        sh=$(readlink -f /bin/sh)
        echo "bwrap --die-with-parent --new-session --unshare-user --unshare-ipc --unshare-pid" \
                "--unshare-uts --unshare-cgroup --unshare-net --cap-drop ALL" \
                "--proc /proc --dev /dev --tmpfs /tmp --ro-bind /usr /usr" \
                "--symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64" \
                "--ro-bind /etc/ld.so.cache /etc/ld.so.cache --ro-bind '$t/home' '$t/home'" \
                "--tmpfs '$t/home/.ssh' --tmpfs '$t/home/.aws' --tmpfs '$t/home/.gnupg'" \
                "--tmpfs '$t/home/.config/gcloud' --ro-bind '$dir/empty' '$t/home/.docker/config.json'" \
                "--ro-bind '$dir/empty' '$t/home/.netrc' --ro-bind '$dir/empty' '$t/home/.bash_history'" \
                "--bind '$t/proj/out' '$t/proj/out' --ro-bind '$t/proj/app.sh' '$t/proj/app.sh'" \
                "--remount-ro / --clearenv --setenv PATH /usr/bin:/bin --setenv HOME /tmp" \
                "--chdir '$t/proj' '$sh' '$t/proj/app.sh'"
}

# The commands get their environment from hyperfine's (a subshell that
# exports it), not through env(1): its own exec and dynamic linking, about
# 0.7 ms, were counted in bento's time until the 1116Z run.
manifest_env() {
        export HOME=$1 XDG_STATE_HOME=$2 TMPDIR=$3
}

bench_manifest() {
        local bento=$BENCH_BUILD/bin/bento dir=$BENCH_SCRATCH/manifest timed=() cmd
        if [ ! -x "$bento" ]; then
                db "manifest	status	not measured: $bento is not built"
                return 0
        fi
        manifest_fixtures "$dir"
        HOME="$dir/typical/home" XDG_STATE_HOME="$dir/state" "$bento" approve --yes \
                "$dir/typical/proj/typical.yaml" > /dev/null ||
                die "bento approve of the benchmark manifest failed"
        # 4: end to end
        (
                manifest_env "$dir/typical/home" "$dir/state" "$dir"
                cmd="exec '$bento' run '$dir/typical/proj/typical.yaml'"
                if probe "bento-run/bento" "$cmd"; then add "bento-run/bento" "" "$cmd"; fi
                add "bento-run/bwrap" "" "exec $(manifest_bwrap_cmd "$dir")"
                say "bento run end to end: $((${#timed[@]} / 3)) commands x $runs runs"
                hf "bento-run" ""
        )
        # 5: translate, large and small, in the home where every shield exists
        (
                manifest_env "$dir/home" "$dir/state" "$dir"
                add "translate/large" "rm -rf '$dir/out-large'" \
                        "exec '$bento' translate '$dir/proj/large.yaml' -o '$dir/out-large'"
                add "translate/small" "rm -rf '$dir/out-small'" \
                        "exec '$bento' translate '$dir/proj/small.yaml' -o '$dir/out-small'"
                say "bento translate: $((${#timed[@]} / 3)) commands x $runs runs"
                hf "translate" ""
        )
        rm -rf "$dir"
}
