#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The smallest useful sandboxed script: greet, and leave a note in out/.
set -eu
echo "hello, ${1:-world}"
date > out/last-run.txt
