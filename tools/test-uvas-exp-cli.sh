#!/bin/sh
# uvas-exp's options where they met the user badly: -q hid why runs failed
# (then said "see the errors above"); -m 2 failed every run on a device
# tier smaller than the default 2M block the user never chose; a block
# size past 2^64 bytes wrapped around to 4K and was accepted.
# usage: test-uvas-exp-cli.sh path/to/uvas-exp. Exit 0 pass, 1 fail, 77 skip.
set -u
exe=${1:?usage: test-uvas-exp-cli.sh path/to/uvas-exp}
. "$(dirname "$0")/test-exp-lib.sh"
exp_test_setup test-uvas-exp-cli "$exe"
small() { "$exe" -w stream -r 1 -q --no-plots "$@"; }

# ---- a block size that overflows 64 bits: refused, not wrapped to 4K ----
for b in 18014398509481988K 17592186044417M 99999999999999999999K; do
    small -m 4 -p host -b "$b" -o "$tmp/b" >"$tmp/b.out" 2>&1
    rc=$?
    [ $rc -eq 2 ] && grep -q -- "-b $b: .*4K to 2M" "$tmp/b.out" ||
        fail "-b $b exited $rc, expected 2 and a message: $(cat "$tmp/b.out")"
done

# ---- -q still shows why a run failed ----
small -m 4 -p no-such-policy -o "$tmp/q" >"$tmp/q.out" 2>"$tmp/q.err"
rc=$?
[ $rc -eq 1 ] || fail "-q with a policy that does not exist exited $rc, expected 1"
grep -q "error: .*no-such-policy" "$tmp/q.err" ||
    fail "-q: the run's error is not shown: $(cat "$tmp/q.err")"
[ -s "$tmp/q.out" ] && fail "-q printed on stdout: $(cat "$tmp/q.out")"

# ---- -m 2 with the default block size: the runs complete ----
small -m 2 -p host -o "$tmp/m" >"$tmp/m.out" 2>&1
rc=$?
if grep -q "no device tier (.*the workloads need one" "$tmp/m.out"; then
    echo "SKIP (part): no device tier (UVAS_DEVICE=none or no Vulkan driver): -m 2 not run" >&2
else
    [ $rc -eq 0 ] || fail "-m 2 (default block size and device tier) exited $rc: $(cat "$tmp/m.out")"
    grep -q ",ok," "$tmp/m/results.csv" || fail "-m 2: the run failed: $(cat "$tmp/m/results.csv")"
fi
# A device tier the user gave, smaller than the block: said up front.
small -m 4 -p host -b 2M -d 1 -o "$tmp/d" >"$tmp/d.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "at least one block" "$tmp/d.out" ||
    fail "-d 1 -b 2M exited $rc, expected 2 and a message: $(cat "$tmp/d.out")"
UVAS_BLOCK_SIZE=2M small -m 4 -p host -d 1 -o "$tmp/d" >"$tmp/d.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "at least one block" "$tmp/d.out" ||
    fail "-d 1 with UVAS_BLOCK_SIZE=2M exited $rc, expected 2: $(cat "$tmp/d.out")"
echo "PASS"
exit 0
