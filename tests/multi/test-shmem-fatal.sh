#!/bin/sh
# A job whose PE fails must end, with a non-zero status and a message, and
# must not hang. Usage: test-shmem-fatal.sh HELPER [mpirun options...]
# (HELPER is test-shmem-fatal; SHMEM_FATAL_NP sets the PE count, 2 by
# default). mpirun is taken from PATH; the environment of the meson test
# lets it run as root and oversubscribe.
set -u
helper=${1:?usage: test-shmem-fatal.sh HELPER [mpirun options...]}
shift
np=${SHMEM_FATAL_NP:-2}
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0

# run NAME LIMIT MODE: runs the job under `timeout`; leaves rc, secs, out, err.
run() {
    name=$1 limit=$2 mode=$3
    shift 3
    out=$tmp/$name.out err=$tmp/$name.err
    start=$(date +%s)
    timeout -k 10 "$limit" mpirun "$@" -np "$np" "$helper" "$mode" >"$out" 2>"$err" </dev/null
    rc=$?
    secs=$(( $(date +%s) - start ))
}

fail() {
    echo "FAIL: $name: $*"
    echo "---- stdout of $name"; cat "$out"
    echo "---- stderr of $name"; cat "$err"
    fails=$((fails + 1))
}

# check NAME LIMIT MODE STDERR-REGEX
check() {
    name=$1 limit=$2 mode=$3 want=$4
    shift 4
    run "$name" "$limit" "$mode" "$@"
    # (mpirun itself exits 137 when a PE died of SIGKILL: tell a hang by time)
    if [ "$secs" -ge "$limit" ] || { [ "$rc" -eq 124 ] && [ "$secs" -ge $((limit - 1)) ]; }; then
        fail "the job did not end within ${limit} s (hang; status $rc)"
        return
    fi
    if grep -q '^SKIP' "$out"; then
        echo "SKIP: $(grep '^SKIP' "$out" | head -1)"; exit 77
    fi
    if [ "$rc" -eq 0 ]; then
        fail "mpirun exited with status 0"
        return
    fi
    if grep -q 'NOT-ENDED' "$out"; then
        fail "a PE went on after the failure: $(grep NOT-ENDED "$out" | head -1)"
        return
    fi
    if [ "$(grep -c '^PE .* started' "$out")" -ne "$np" ]; then
        fail "not every PE started (the failure came too early to test anything)"
        return
    fi
    if [ -z "$want" ]; then
        echo "ok: $name: mpirun exit status $rc after ${secs} s"
        return
    fi
    if ! grep -Eq "$want" "$err" "$out"; then
        fail "no message matching /$want/"
        return
    fi
    echo "ok: $name: mpirun exit status $rc after ${secs} s; message: $(grep -Eh "$want" "$err" "$out" | head -1)"
}

# self_end NAME LIMIT MODE STDERR-REGEX: the same failure with mpirun told
# not to end the job itself (orte_enable_recovery, under which it even
# waits on once every PE is gone): uvas alone must end every PE within
# LIMIT s (PE 0 waits in a barrier), saying so where STDERR-REGEX is given.
self_end() {
    name=$1 limit=$2 mode=$3 want=$4
    shift 4
    out=$tmp/$name.out err=$tmp/$name.err
    : >"$out"
    : >"$err"
    mpirun --mca orte_enable_recovery 1 "$@" -np "$np" "$helper" "$mode" >>"$out" 2>>"$err" \
        </dev/null &
    mpid=$!
    waited=0
    while [ "$(grep -c '^PE .* started' "$out")" -lt "$np" ] && [ "$waited" -lt 1200 ] &&
          kill -0 "$mpid" 2>/dev/null; do
        sleep 0.1
        waited=$((waited + 1))
    done
    pids=$(sed -n 's/^PE [0-9]* of [0-9]*: started (.*), pid \([0-9]*\)$/\1/p' "$out")
    if [ "$(echo $pids | wc -w)" -ne "$np" ]; then
        kill -9 "$mpid" 2>/dev/null; wait "$mpid" 2>/dev/null
        fail "expected the pids of $np started PEs, found '$(echo $pids)'"
        return
    fi
    start=$(date +%s)
    for pid in $pids; do
        while kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid" | cut -c1)" != Z ]; do
            if [ $(($(date +%s) - start)) -ge "$limit" ]; then
                # shellcheck disable=SC2086
                kill -9 "$mpid" $pids 2>/dev/null; wait "$mpid" 2>/dev/null
                fail "PE pid $pid still ran ${limit} s after the failure, mpirun not ending the job"
                return
            fi
            sleep 0.2
        done
    done
    secs=$(($(date +%s) - start))
    sleep 0.5 # what the PEs wrote last, through mpirun
    kill -9 "$mpid" 2>/dev/null
    wait "$mpid" 2>/dev/null
    if grep -q 'NOT-ENDED' "$out"; then
        fail "a PE went on after the failure: $(grep NOT-ENDED "$out" | head -1)"
    elif [ -n "$want" ] && ! grep -Eq "$want" "$err" "$out"; then
        fail "every PE ended, but with no message matching /$want/"
    else
        echo "ok: $name: every PE ended within ${secs} s with mpirun not ending the job"
    fi
}

check putmem-stack 60 putmem-stack 'uvas: shmem_putmem: .*not symmetric' "$@"
# Only the ending is required here (no message): PE 1 asked for it.
check global-exit 30 global-exit '' "$@"
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    echo "note: global-exit: mpirun exit status $rc, not the 3 PE 1 passed"
fi
check kill 60 kill 'signal 9|Killed|is gone' "$@"
check mismatch 60 mismatch 'shmem_malloc: symmetric calls disagree: PE [0-9]+.s call' "$@"
self_end global-exit-self 30 global-exit '' "$@"
self_end kill-self 30 kill 'is gone' "$@"

# PEs that cannot agree on one range: every PE's shmem_init fails, each
# with the message naming the PE that differs, and nobody waits for ever.
name=init-mismatch out=$tmp/$name.out err=$tmp/$name.err
start=$(date +%s)
timeout -k 10 60 mpirun "$@" -np 1 -x UVAS_BASE=0x200000000000 "$helper" putmem-stack : \
    -np 1 -x UVAS_BASE=0x300000000000 "$helper" putmem-stack >"$out" 2>"$err" </dev/null
rc=$? secs=$(( $(date +%s) - start ))
n=$(grep -c 'shmem_init: .*same UVAS_BASE' "$err")
if [ "$secs" -ge 60 ]; then
    fail "the job did not end within 60 s (hang; status $rc)"
elif [ "$rc" -eq 0 ]; then
    fail "mpirun exited with status 0"
elif grep -q '^PE .* started' "$out"; then
    fail "a PE got past shmem_init"
elif [ "$n" -lt 1 ]; then
    # (mpirun may end the other PE before it prints: one message suffices)
    fail "expected the range message, got none"
else
    echo "ok: $name: mpirun exit status $rc after ${secs} s; message: $(grep -m1 'same UVAS_BASE' "$err")"
fi

# Variables every PE reads are refused by shmem_init itself, with a
# message naming the variable (before: accepted silently, or refused only
# at the first allocation).
cases=7
# A size past the range's (128T) or one whose sum with the device heap
# wraps (2^64 - 1) ran with a 16 MiB range or named options.size.
for bad in SHMEM_SYMMETRIC_SIZE=0 UVAS_SHMEM_ERRORS=junk SHMEM_SYMMETRIC_HEAP_DEFAULT=gpu \
    UVAS_LEASE_HOST_AFTER=junk SHMEM_SYMMETRIC_SIZE=128T \
    SHMEM_SYMMETRIC_SIZE=18446744073709551615; do
    cases=$((cases + 1))
    var=${bad%%=*}
    name=env-$var-$cases out=$tmp/$name.out err=$tmp/$name.err
    start=$(date +%s)
    timeout -k 10 60 mpirun "$@" -np "$np" -x "$bad" "$helper" env >"$out" 2>"$err" </dev/null
    rc=$? secs=$(( $(date +%s) - start ))
    if [ "$secs" -ge 60 ]; then
        fail "the job did not end within 60 s (hang; status $rc)"
    elif [ "$rc" -eq 0 ]; then
        fail "mpirun exited with status 0"
    elif grep -q '^PE .* started' "$out"; then
        fail "a PE got past shmem_init with $bad"
    elif ! grep -q "shmem_init: $var=" "$err"; then
        fail "expected 'shmem_init: $var=...' on stderr"
    else
        echo "ok: $name: mpirun exit status $rc after ${secs} s; message: $(grep -m1 "shmem_init: $var" "$err")"
    fi
done

if [ "$fails" -ne 0 ]; then
    echo "test-shmem-fatal: $fails of $cases cases failed"
    exit 1
fi
echo "test-shmem-fatal: $cases of $cases cases ended the job with a message"
exit 0
