#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The README's demo: a manifest reviewed and stamped with `bento approve`, then
# run with `bento run`, in a scratch home directory that holds a fake SSH key.
# The script inside tries allowed and forbidden things and prints what happened;
# bento explains the outcome afterwards.
#   contrib/demo.sh BUILD_DIR
set -eu

build=${1:?usage: contrib/demo.sh BUILD_DIR}
bento="$build/bin/bento"
src=$(cd "$(dirname "$0")/examples/demo" && pwd)
demo="$build/demo"

rm -rf "$demo"
mkdir -p "$demo/home/.ssh" "$demo/project"
echo "not a real key" > "$demo/home/.ssh/id_demo"
echo "a note the script may read" > "$demo/home/notes.txt"
echo "# the script must not change this" > "$demo/home/.bashrc"
cp "$src/demo.yaml" "$src/demo.sh" "$demo/project/"
export HOME="$demo/home" XDG_STATE_HOME="$demo/state"

echo "== the manifest ($demo/project/demo.yaml)"
grep -v '^#' "$demo/project/demo.yaml"
echo
echo "== bento approve --yes (the review step; a person would answer the prompt)"
"$bento" approve --yes "$demo/project/demo.yaml"
echo
echo "== bento run"
set +e
"$bento" run "$demo/project/demo.yaml"
code=$?
set -e
echo
echo "== bento run exited with $code (the script's own status)"
echo "== files the run left on the host: $(ls "$demo/project/out")"
echo "== ~/.bashrc is unchanged: $(cat "$demo/home/.bashrc")"
