#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The smallest useful sandboxed script: greet, and leave a note in out/.
# Shell builtins only: the manifest blocks exec, so `date` or `ls` would fail.
set -eu
echo "hello, ${1:-world}"
echo "hello, ${1:-world}" > out/last-run.txt
