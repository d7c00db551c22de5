#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Reproducible builds (`make check-repro`): the commit checked out here is
# cloned into two directories of different names and lengths, each is
# built with the same make variables, and the programs of both must be the
# same bytes.  They go under SCRATCH, the first argument, which must not
# exist yet (by default a new directory under TMPDIR).  The source tree is
# only read: the clones borrow its objects (git clone --shared).  SCRATCH
# is removed after a success and kept after a failure, for cmp/diffoscope.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -gt 0 ]; then
        scratch=$1
        mkdir "$scratch" # refuses one that exists: it is removed at the end
else
        scratch=$(mktemp -d "${TMPDIR:-/tmp}/bento-repro.XXXXXX")
fi
commit=$(git -C "$src" rev-parse HEAD)

if ! git -C "$src" diff --quiet HEAD -- 2>/dev/null; then
        echo "check-repro: note: uncommitted changes are not built; this checks $commit" >&2
fi

start=$(date +%s)
for dir in "$scratch/a" "$scratch/second/checkout"; do
        git clone -q --shared --no-checkout "$src" "$dir"
        git -C "$dir" -c advice.detachedHead=false checkout -q "$commit"
        # The clones' make must not see this make's command line (a
        # BUILDDIR=... there would send both builds to one place).
        env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u MAKELEVEL \
                make -s -C "$dir" -j"${JOBS:-2}" STATIC="${STATIC:-1}" all >/dev/null
done
end=$(date +%s)

(cd "$scratch/a/build/bin" && sha256sum -- *) >"$scratch/a.sum"
(cd "$scratch/second/checkout/build/bin" && sha256sum -- *) >"$scratch/b.sum"
if ! cmp -s "$scratch/a.sum" "$scratch/b.sum"; then
        echo "check-repro: the same commit built in two directories differs:" >&2
        diff "$scratch/a.sum" "$scratch/b.sum" >&2 || true
        echo "check-repro: both builds are kept under $scratch" >&2
        exit 1
fi
echo "check-repro: $(wc -l <"$scratch/a.sum") programs identical in two directories" \
        "(commit $commit, two builds in $((end - start)) s)"
rm -rf "$scratch"
