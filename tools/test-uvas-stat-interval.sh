#!/bin/sh
# uvas-stat -i takes a finite number of seconds from 0.05 to 86400, all of
# the argument a number: nan, inf and 1e-9 were taken (atof) and asked the
# target process again without pause, "1x" was read as 1.
# usage: test-uvas-stat-interval.sh path/to/uvas-stat. Exit 0 pass, 1 fail.
set -u
exe=${1:?usage: test-uvas-stat-interval.sh path/to/uvas-stat}
[ -x "$exe" ] || { echo "FAIL: $exe is not an executable"; exit 1; }
fail() { echo "FAIL: $*"; exit 1; }
# 999999999: no such process, so an accepted interval ends at once (exit 1).
for i in nan NaN inf -inf 1e-9 0 -1 0.01 86401 1e300 1x '' ' 1' 0x; do
    out=$(timeout 30 "$exe" -i "$i" 999999999 2>&1)
    rc=$?
    [ $rc -eq 2 ] || fail "-i '$i' exited $rc, expected 2 (bad usage): $out"
    case "$out" in
        *"-i '$i'"*"0.05 to 86400"*) ;;
        *) fail "-i '$i': the message does not name the value and the range: $out" ;;
    esac
done
for i in 0.05 1 2.5 86400 1e1; do
    out=$(timeout 30 "$exe" -i "$i" 999999999 2>&1)
    rc=$?
    [ $rc -eq 1 ] && case "$out" in *"no such process"*) true ;; *) false ;; esac ||
        fail "-i $i exited $rc, expected 1 (no such process): $out"
done
echo PASS
exit 0
