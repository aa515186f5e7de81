#!/bin/sh
# Job A runs while job B starts on the same node, as the same user: A must
# not report B's start as a refused window request (B's PEs swept the
# socket directory by connecting to every socket in it, A's live ones
# included). Usage: test-window-sweep.sh HELPER [mpirun options...]
set -u
helper=${1:?usage: test-window-sweep.sh HELPER [mpirun options...]}
shift
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
timeout -k 5 90 mpirun "$@" -np 2 "$helper" 8 >"$tmp/a.out" 2>&1 </dev/null &
a=$!
i=0
while ! grep -q '^started' "$tmp/a.out" 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -gt 600 ] && { echo "FAIL: job A did not start"; cat "$tmp/a.out"; exit 1; }
    sleep 0.1
done
timeout -k 5 60 mpirun "$@" -np 2 "$helper" 0 >"$tmp/b.out" 2>&1 </dev/null
rb=$?
wait "$a"
ra=$?
[ "$ra" -eq 0 ] && [ "$rb" -eq 0 ] || {
    echo "FAIL: job A exited $ra, job B $rb"; cat "$tmp/a.out" "$tmp/b.out"; exit 1; }
if grep -q 'refused a window request' "$tmp/a.out"; then
    echo "FAIL: job A warned of a refused request when job B started:"
    cat "$tmp/a.out"
    exit 1
fi
echo "ok: job A ran beside job B's start without a warning"
