#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What `make demo` runs under bento: it tries a few allowed things and a few
# forbidden ones, using shell builtins only (the manifest blocks exec).
# The manifest passes HOME through, so $HOME is the caller's home directory.
home=$HOME

try() { # try LABEL COMMAND...: run it, print what happened
        label=$1; shift
        if out=$("$@" 2>&1); then
                printf '  %-44s ok%s\n' "$label" "${out:+: $out}"
        else
                printf '  %-44s DENIED: %s\n' "$label" "${out##*: }"
        fi
}
first_line() { IFS= read -r line < "$1" && printf '%s' "$line"; }
list() { # the names in a directory, or "(empty)"
        n=0
        for f in "$1"/* "$1"/.[!.]*; do
                [ -e "$f" ] && printf '%s ' "${f##*/}" && n=$((n + 1))
        done
        [ "$n" -gt 0 ] || printf '(empty)'
}
interfaces() { # the network interfaces this sandbox has
        while IFS=: read -r name _; do
                case $name in *\|*) ;; *) printf '%s ' $name ;; esac
        done < /proc/net/dev
}

echo "== allowed by the manifest"
try "read $home/notes.txt (read: ~)" first_line "$home/notes.txt"
try "write ./out/result.txt (write: ./out)" eval 'echo done > out/result.txt'
try "list $home" list "$home"
echo "== hidden, although read: ~ covers it (credential shields)"
try "list $home/.ssh" list "$home/.ssh"
try "read $home/.ssh/id_demo" first_line "$home/.ssh/id_demo"
echo "== denied: not in the manifest"
try "read /etc/passwd" first_line /etc/passwd
try "write $home/.bashrc" eval "echo evil >> '$home/.bashrc'"
try "write /usr/local/evil" eval 'echo evil > /usr/local/evil'
try "run a program (exec: none)" ls /
try "network interfaces (no network: rules)" interfaces
