#!/bin/sh
# A PE killed mid-run (while another PE writes into it, while it migrates a
# block another PE writes, while it writes a block another PE migrates)
# must end the job within a bound, with a message, and the survivor must
# not corrupt its own memory. Usage: test-pe-death.sh HELPER [mpirun options...]
# (HELPER is test-pe-death). Environment:
#   PE_DEATH_LIMIT   seconds from the kill to the end of the job (30)
#   PE_DEATH_REPEAT  runs of the migrate-local case per launcher mode (3)
#   PE_DEATH_MODES   "launcher" (plain mpirun: it ends the job when a PE
#                    dies) and/or "self" (mpirun with orte_enable_recovery:
#                    it does not, so uvas itself must notice); default both
# mpirun is taken from PATH; the meson test's environment lets it run as
# root and oversubscribe.
set -u
helper=${1:?usage: test-pe-death.sh HELPER [mpirun options...]}
shift
limit=${PE_DEATH_LIMIT:-30}
repeat=${PE_DEATH_REPEAT:-3}
modes=${PE_DEATH_MODES:-launcher self}
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0 cases=0 skips=0
summary=""

fail() {
    echo "FAIL: $name: $*"
    echo "---- output of $name"; cat "$out"
    fails=$((fails + 1))
}

# check NAME LAUNCHER CASE DELAY
check() {
    name=$1 launcher=$2 case=$3 delay=$4
    shift 4
    out=$tmp/$name.out
    cases=$((cases + 1))
    extra=""
    [ "$launcher" = self ] && extra="--mca orte_enable_recovery 1"
    # shellcheck disable=SC2086
    timeout -k 10 $((limit + 150)) mpirun $extra "$@" -np 2 "$helper" "$case" "$delay" \
        >"$out" 2>&1 </dev/null
    rc=$?
    end=$(date +%s.%N)
    if grep -q '^SKIP' "$out"; then
        echo "skip: $name: $(grep -m1 '^SKIP' "$out")"
        skips=$((skips + 1))
        return
    fi
    if [ "$(grep -c '^PE [01] of 2: started' "$out")" -ne 2 ]; then
        fail "not every PE started (status $rc)"; return
    fi
    kill_t=$(sed -n 's/^KILL \([0-9.]*\) .*/\1/p' "$out" | head -1)
    if [ -z "$kill_t" ]; then
        fail "PE 1 never reached its kill (status $rc)"; return
    fi
    secs=$(awk -v a="$end" -v b="$kill_t" 'BEGIN { printf "%.1f", a - b }')
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 -a "$(awk -v s="$secs" -v l="$limit" 'BEGIN{print (s >= l)}')" = 1 ] ||
       [ "$(awk -v s="$secs" -v l="$limit" 'BEGIN{print (s >= l)}')" = 1 ]; then
        fail "the job did not end within ${limit} s of the kill (${secs} s; status $rc: a hang)"
        return
    fi
    if grep -q 'NOT-ENDED' "$out"; then
        fail "PE 0 went on: $(grep -m1 NOT-ENDED "$out")"; return
    fi
    if grep -q 'CORRUPT' "$out"; then
        fail "PE 0's own memory changed: $(grep -m1 CORRUPT "$out")"; return
    fi
    pin="" how=""
    grep -q '^PIN-LEFT' "$out" && pin=" (PE 1 died holding a pin)"
    if [ "$launcher" = launcher ]; then
        # mpirun's own report, uvas's if PE 0 noticed first, or the error
        # an operation on the dead PE returned (over UCX)
        want='signal 9|Killed|uvas: PE 0: PE 1 .*(is gone|died holding)|uvas: shmem_[a-z_]+: '
        # UCX 1.13.1's abort in its own tcp progress on the dead peer (see
        # the case without the launcher below) ends these jobs too, at once.
        [ "${UVAS_TRANSPORT:-}" = ucx ] && want="$want|uct_iface\.h:[0-9]+ +Assertion"
        if [ "$rc" -eq 0 ]; then
            fail "mpirun exited with status 0"; return
        fi
    else
        # Nobody else ends the job: uvas must, with its message (or the
        # error an operation on the dead PE returned, fatal by default).
        # (mpirun with recovery on exits 0 whatever PE 0 returned.) PE 0
        # may be ended inside an operation on the dead PE before it noticed
        # the death itself; once it did, it must check its memory before
        # the end.
        want='uvas: PE 0: PE 1 \(pid [0-9]+\) (is gone|died holding)|uvas: shmem_[a-z_]+: '
        # Over UCX tcp, UCX 1.13.1 (Debian 12) may abort the survivor in its
        # own progress on the dead peer's failed zero-copy send (uct_iface.h:
        # "Assertion comp->count > 0 failed", status -80, endpoint timeout)
        # before uvas's liveness check: the job still ends at once, with
        # UCX's message (seen under load: docs/reliability.md).
        [ "${UVAS_TRANSPORT:-}" = ucx ] && want="$want|uct_iface\.h:[0-9]+ +Assertion"
        if grep -q '^PE 0: PE 1 died' "$out"; then
            if [ -z "$pin" ] && ! grep -q 'PE 0: own memory intact' "$out"; then
                fail "PE 0 did not check its own memory before the end"; return
            fi
            if ! grep -q 'PE 0: private memory intact' "$out"; then
                fail "PE 0 did not check its private memory"; return
            fi
        else
            how=" (ended by uvas inside an operation on the dead PE)"
        fi
    fi
    if ! grep -Eq "$want" "$out"; then
        fail "no message matching /$want/ (status $rc, ${secs} s after the kill)"; return
    fi
    msg=$(grep -Eh -m1 "$want" "$out")
    echo "ok: $name: ended ${secs} s after the kill$pin$how, status $rc: $msg"
    summary="$summary $name=${secs}s${pin:+(pin)}"
}

for launcher in $modes; do
    check "put-$launcher" "$launcher" put 1.0 "$@"
    check "team-sync-$launcher" "$launcher" team-sync 1.0 "$@"
    check "migrate-remote-$launcher" "$launcher" migrate-remote 1.0 "$@"
    i=1
    while [ "$i" -le "$repeat" ]; do
        # a different moment of the put loop each time
        check "migrate-local-$launcher-$i" "$launcher" migrate-local "0.$((i * 3 % 10))5" "$@"
        i=$((i + 1))
    done
done

echo "pe-death times from the kill to the end of the job:$summary"
if [ "$fails" -ne 0 ]; then
    echo "test-pe-death: $fails of $cases cases failed"
    exit 1
fi
if [ "$skips" -ne 0 ]; then
    # Part of what this test claims went untested (the migrate cases need a
    # device tier): say so as a skip, never as a pass.
    echo "SKIP: $skips of $cases cases skipped (above); $((cases - skips)) ended within ${limit} s"
    exit 77
fi
echo "test-pe-death: $((cases - skips)) cases ended within ${limit} s of the kill, with a message"
exit 0
