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
#      the path of every shield rule exists) and of a small one; and of
#      1,000 to 10,000 write grants, to show it grows linearly with them.

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

# The write-grant sizes of item 5's scaling rows (bench/report.sh names them too).
manifest_scale_sizes="1000 2000 5000 10000"

# One project with the largest number of grant directories, ./w/d00000 and
# on, and a manifest per size writing the first N of them.  Every grant gets
# the workspace shields of a directory outside any checkout (.git, .vscode,
# .idea, .cargo), the case that was quadratic (issue 21).
manifest_scale_fixtures() {
        local dir=$1/scale n i max=0
        for n in $manifest_scale_sizes; do ((n > max)) && max=$n; done
        mkdir -p "$dir/w"
        printf '#!/bin/sh\nexit 0\n' > "$dir/app.sh"
        for ((i = 0; i < max; i++)); do printf '%s/w/d%05d\n' "$dir" "$i"; done | xargs mkdir -p
        for n in $manifest_scale_sizes; do
                {
                        printf 'entrypoint: app.sh\ninterpreter: sh\nwrite:\n'
                        for ((i = 0; i < n; i++)); do printf '  - ./w/d%05d\n' "$i"; done
                } > "$dir/w$n.yaml"
        done
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
        # 5, scaling: seconds each, so a few runs in one round
        manifest_scale_fixtures "$dir"
        (
                manifest_env "$dir/typical/home" "$dir/state" "$dir"
                for n in $manifest_scale_sizes; do
                        add "translate-scale/$n" "rm -rf '$dir/out-scale'" \
                                "exec '$bento' translate '$dir/scale/w$n.yaml' -o '$dir/out-scale'"
                done
                # shellcheck disable=SC2034 # hf reads them
                runs=$scale_runs rounds=1 warmup=0
                say "bento translate, 1,000 to 10,000 write grants: $scale_runs runs each"
                hf "translate-scale" ""
        )
        rm -rf "$dir"
}
