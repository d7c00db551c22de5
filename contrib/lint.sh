#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Static checks behind `make lint`: clang-format, cppcheck, clang-tidy, shellcheck.
# Exits non-zero on the first tool that finds something.
set -eu
cd "$(dirname "$0")/.."

# The C files to format-check, as "$@" (folders without sources are skipped).
set --
for f in bundle/*.c bundle/*.h runtime/*/*.c runtime/*/*.h runtime/*/*/*.c runtime/*/*/*.h translate/*/*.c translate/*/*.h hooks/*/*.c hooks/*/*.h \
         embed/*.c embed/*.h include/bento/*.h tests/unit/*.c tests/unit/*.h tests/probe/*.c tests/fuzz/*.c \
         contrib/audit/*.c; do
        if [ -e "$f" ]; then
                set -- "$@" "$f"
        fi
done

echo "lint: clang-format"
clang-format --dry-run -Werror "$@"

echo "lint: cppcheck"
# One run per program: each names its headers from its own root
# ("cli/commands.h" is a different file in runtime/ and translate/).
for root in bundle runtime translate "tests/unit hooks" embed; do
        inc=$root
        [ "$root" = "tests/unit hooks" ] && inc=translate
        [ "$root" = embed ] && inc=include
        # shellcheck disable=SC2086 # root is a list of folders on the last pass
        cppcheck --quiet --enable=warning,style,performance,portability --error-exitcode=1 \
                 --inline-suppr --std=c11 -D_GNU_SOURCE -Ibundle -I"$inc" \
                 --suppress=missingIncludeSystem --suppress=unreadVariable --suppress=unusedFunction \
                 --suppress=constParameterCallback --suppress=knownConditionTrueFalse \
                 $root
done

echo "lint: clang-tidy"
checks='-*,bugprone-*,cert-*,clang-analyzer-*,misc-*,readability-function-size,-bugprone-easily-swappable-parameters,-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling,-cert-err33-c,-misc-include-cleaner,-bugprone-reserved-identifier,-cert-dcl37-c,-cert-dcl51-cpp,-bugprone-narrowing-conversions,-cert-err34-c,-bugprone-assignment-in-if-condition,-misc-no-recursion'
# The analyzer (clang 14) does not model __attribute__((cleanup)), so every
# cleanup_free variable (bundle/cleanup.h) whose last use is before scope end
# reads as a "potential leak".
checks="$checks,-clang-analyzer-unix.Malloc"
# clang-tidy 14 flags every sizeof(*items) of an array of struct pointers, with
# no option to turn just that off (WarnOnSizeOfPointerToAggregate came in 15).
checks="$checks,-bugprone-sizeof-expression"
config='{CheckOptions: [{key: readability-function-size.LineThreshold, value: 120}, {key: readability-function-size.NestingThreshold, value: 4}, {key: readability-function-size.ParameterThreshold, value: 7}]}'
# The flags the Makefile compiles with (pkg-config, -D_GNU_SOURCE, the version macros).
deps_cflags=$(pkg-config --cflags yajl libseccomp libcap libsystemd yaml-0.1 libcrypto)
for f in bundle/*.c runtime/*/*.c runtime/*/*/*.c translate/*/*.c hooks/*/*.c embed/*.c; do
        [ -e "$f" ] || continue
        # the program's root, where its stage folders are (the Makefile's -iquote)
        root=${f%%/*}
        # shellcheck disable=SC2086 # deps_cflags is a list of flags
        clang-tidy --quiet --warnings-as-errors='*' --checks="$checks" --config="$config" \
                "$f" -- -std=gnu17 -D_GNU_SOURCE -Ibundle -Iinclude -iquote "$root" \
                -iquote "$(dirname "$f")" $deps_cflags -DBENTO_VERSION='"lint"' -DBENTO_COMMIT='"lint"'
done

echo "lint: shellcheck"
if command -v shellcheck >/dev/null; then
        set --
        for f in contrib/*.sh contrib/vm/*.sh .ci/run; do
                if [ "$f" != contrib/install-deps.sh ]; then
                        set -- "$@" "$f"
                fi
        done
        shellcheck "$@"
        # install-deps.sh word-splits its package list ($missing) on purpose.
        shellcheck --exclude=SC2086 contrib/install-deps.sh
fi
echo "lint: clean"
