#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# hyperfine --prepare / --cleanup helper for timing one lifecycle verb alone.
# It removes the container of the previous timing run, picks a fresh id,
# writes it to IDFILE (the timed command reads it with the shell builtin
# `read`, so no extra process is timed) and brings the new container to the
# state the timed verb expects:
#   create  nothing (the timed command creates it)
#   start   created
#   delete  created, started and stopped (the timed command is `delete -f`)
#   clean   only the removal of the previous container
#
#   bench/phase.sh create|start|delete|clean IDFILE BUNDLE RUNTIME [GLOBAL-OPTION...]
set -eu

phase=$1
idfile=$2
bundle=$3
shift 3

if [ -s "$idfile" ]; then
        read -r old < "$idfile"
        "$@" delete -f "$old" > /dev/null 2>&1 || true
fi
if [ "$phase" = clean ]; then
        rm -f "$idfile"
        exit 0
fi

id=$(basename "$idfile")-$$
echo "$id" > "$idfile"
case $phase in
create) exit 0 ;;
start | delete) "$@" create --bundle "$bundle" "$id" > /dev/null < /dev/null ;;
*) echo "phase: unknown phase $phase" >&2; exit 2 ;;
esac
[ "$phase" = start ] && exit 0

"$@" start "$id"
# Wait (bounded) until the runtime reports the container stopped, so that
# the timed delete always finds the same state.
i=0
while [ $i -lt 400 ]; do
        if "$@" state "$id" 2> /dev/null | grep -Eq '"status": *"stopped"'; then
                exit 0
        fi
        sleep 0.005
        i=$((i + 1))
done
echo "phase: $id did not stop within 2 s" >&2
exit 1
