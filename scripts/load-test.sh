#!/bin/sh
# The suite under load: CI machines are shared and slow at times, and a test
# that fails only then is a red CI waiting to happen. Runs the normal build's (without sanitizers)
# whole suite ROUNDS times (default 3) while stress-ng keeps every core busy.
# Builds into build-load/ of its own: rebuilding build/ meanwhile (as one
# does while it runs) replaced binaries under running tests (SIGILL).
# usage: scripts/load-test.sh [ROUNDS]   (docs/reliability.md)
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-3}
command -v stress-ng >/dev/null 2>&1 || {
    echo "load-test: installing stress-ng" >&2
    apt-get install -y -qq stress-ng >/dev/null
}
b=build-load
scripts/build.sh $b
stress-ng --cpu "$(nproc)" --timeout 0 >/dev/null 2>&1 &
load=$!
trap 'kill $load 2>/dev/null' EXIT
fails=0
for r in $(seq 1 "$rounds"); do
    if meson test -C $b --num-processes 2 >"$b/load-$r.log" 2>&1; then
        echo "load-test: round $r: every test passed"
    else
        fails=$((fails + 1))
        echo "load-test: round $r failed:"
        grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT)' "$b/load-$r.log" || tail -5 "$b/load-$r.log"
        cp $b/meson-logs/testlog.txt "$b/load-$r.testlog.txt"
    fi
done
echo "load-test: $((rounds - fails)) of $rounds rounds passed under stress-ng --cpu $(nproc)"
[ "$fails" -eq 0 ]
