#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Static checks of style.md §5: clang-format, cppcheck, clang-tidy, shellcheck.
# Exits non-zero on the first tool that finds something.
set -eu
cd "$(dirname "$0")/.."

c_files=$(ls bundle/*.c bundle/*.h runtime/*.c runtime/*.h translate/*.c translate/*.h \
          hooks/*.c tests/unit/*.c tests/unit/*.h tests/probe/*.c 2>/dev/null || true)

echo "lint: clang-format"
clang-format --dry-run -Werror $c_files

echo "lint: cppcheck"
cppcheck --quiet --enable=warning,style,performance,portability --error-exitcode=1 \
         --inline-suppr --std=c11 -D_GNU_SOURCE -Ibundle -Iruntime \
         --suppress=missingIncludeSystem --suppress=unusedFunction \
         --suppress=constParameterCallback --suppress=knownConditionTrueFalse \
         bundle runtime tests/unit

echo "lint: clang-tidy"
checks='-*,bugprone-*,cert-*,clang-analyzer-*,misc-*,readability-function-size,-bugprone-easily-swappable-parameters,-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling,-cert-err33-c,-misc-include-cleaner,-bugprone-reserved-identifier,-cert-dcl37-c,-cert-dcl51-cpp,-bugprone-narrowing-conversions,-cert-err34-c,-bugprone-assignment-in-if-condition,-misc-no-recursion'
for f in $(ls bundle/*.c runtime/*.c); do
        clang-tidy --quiet --warnings-as-errors='*' --checks="$checks" \
                --config='{CheckOptions: [{key: readability-function-size.LineThreshold, value: 120}, {key: readability-function-size.NestingThreshold, value: 4}, {key: readability-function-size.ParameterThreshold, value: 7}]}' \
                "$f" -- -std=gnu17 -D_GNU_SOURCE -Ibundle -Iruntime -I/usr/include/yajl
done

echo "lint: shellcheck"
if command -v shellcheck >/dev/null; then
        shellcheck contrib/*.sh .ci/run
fi
echo "lint: clean"
