#!/bin/sh
# PEs whose launcher died end by themselves: mpirun is SIGKILLed while
# both PEs of its job wait for ever (test-launcher-death, the helper), and
# each PE must be gone within LIMIT seconds (20), having said why. Before,
# they spun on, orphaned, for as long as nobody killed them (found when a
# suite's runner killed a timed-out mpirun: its PEs spun for 20 minutes).
# Usage: test-launcher-death.sh HELPER [mpirun options...]
set -u
helper=${1:?usage: test-launcher-death.sh HELPER [mpirun options...]}
shift
limit=${LAUNCHER_DEATH_LIMIT:-20}
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun"; exit 77; }
tmp=$(mktemp -d) || exit 1
out=$tmp/out
pids=""
cleanup() {
    # shellcheck disable=SC2086
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
# The file exists before the job starts: the background job's redirection
# may come after the first look at it (on a loaded machine it did, and the
# look, failing, ended the wait with no PE seen: a pass that tested nothing).
: >"$out"
LAUNCHER_DEATH_ERR=$tmp/err mpirun -x LAUNCHER_DEATH_ERR "$@" -np 2 "$helper" >>"$out" 2>&1 </dev/null &
mpirun_pid=$!
waited=0
while [ "$(grep -c 'waiting, pid' "$out")" -lt 2 ]; do
    if ! kill -0 "$mpirun_pid" 2>/dev/null; then
        if grep -q '^SKIP' "$out"; then grep -m1 '^SKIP' "$out"; exit 77; fi
        echo "FAIL: the job ended before both PEs waited"; cat "$out"; exit 1
    fi
    waited=$((waited + 1))
    if [ "$waited" -gt 1200 ]; then
        echo "FAIL: the PEs did not start within 120 s"; cat "$out"
        kill -9 "$mpirun_pid"; exit 1
    fi
    sleep 0.1
done
pids=$(sed -n 's/^PE [01] of 2: waiting, pid \([0-9]*\)$/\1/p' "$out" | tr '\n' ' ')
# shellcheck disable=SC2086
set -- $pids
if [ $# -ne 2 ]; then
    echo "FAIL: expected the pids of 2 waiting PEs, found '$pids'"; cat "$out"
    kill -9 "$mpirun_pid"; exit 1
fi
# Both PEs still wait, and the kill is what ends mpirun: PEs that were
# gone before it (their wait returned, a crash) would pass the check below
# with nothing tested.
for pid in $pids; do
    kill -0 "$pid" 2>/dev/null || { echo "FAIL: PE pid $pid ended before mpirun was killed"; cat "$out"; exit 1; }
done
kill -9 "$mpirun_pid" || { echo "FAIL: mpirun ended before it was killed"; cat "$out"; exit 1; }
wait "$mpirun_pid" 2>/dev/null
rc=$?
[ "$rc" -eq 137 ] || { echo "FAIL: mpirun ended with status $rc, not by the kill (137)"; cat "$out"; exit 1; }
start=$(date +%s)
for pid in $pids; do
    while kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid" | cut -c1)" != Z ]; do
        if [ $(($(date +%s) - start)) -ge "$limit" ]; then
            echo "FAIL: PE pid $pid still runs ${limit} s after its launcher was killed"
            ps -o pid,ppid,stat,time,args -p "$pid"
            cat "$out"; exit 1
        fi
        sleep 0.2
    done
done
secs=$(($(date +%s) - start))
if grep -q 'the wait ended' "$out"; then
    echo "FAIL: a PE's wait returned: it was not waiting when mpirun died"; cat "$out"; exit 1
fi
# Each PE says why it ended. The first to notice lost its launcher; the
# other may notice either that or, sooner, its peer's end (PE 0's liveness
# check saw PE 1 gone before PMIx told it of mpirun, once in CI): both are
# true, and an end with no reason, or no PE that saw the launcher go, fails.
lost=0
for r in 0 1; do
    if grep -q 'lost its launcher' "$tmp/err$r" 2>/dev/null; then
        lost=$((lost + 1))
    elif ! grep -q "PE $r: PE $((1 - r)) (pid [0-9]*) is gone; ending the job" "$tmp/err$r" 2>/dev/null; then
        echo "FAIL: PE $r ended without saying it lost its launcher or its peer:"
        cat "$tmp/err$r" 2>/dev/null; cat "$out"; exit 1
    fi
done
if [ "$lost" -eq 0 ]; then
    echo "FAIL: no PE said it lost its launcher"; cat "$tmp/err0" "$tmp/err1" 2>/dev/null; cat "$out"; exit 1
fi
echo "test-launcher-death: both PEs ended ${secs} s after mpirun was killed"
exit 0
