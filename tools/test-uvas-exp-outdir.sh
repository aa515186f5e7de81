#!/bin/sh
# uvas-exp's output directory is written safely: a directory another user
# owns or can write to is refused before any run (a symlink planted there
# redirected results.csv, and a FIFO at plot/throughput.gp fed gnuplot a
# script with system(): code execution as the victim); in the user's own
# directory a symlink is not followed, a FIFO does not hang the runner, and
# the plots of an earlier experiment do not stay beside the new results.
# usage: test-uvas-exp-outdir.sh path/to/uvas-exp. Exit 0 pass, 1 fail, 77 skip.
set -u
exe=${1:?usage: test-uvas-exp-outdir.sh path/to/uvas-exp}
. "$(dirname "$0")/test-exp-lib.sh"
exp_test_setup test-uvas-exp-outdir "$exe"
# A deadline against hangs only (a FIFO opened for writing blocks for ever).
run() { timeout 120 "$exe" -m 4 -r 1 -w stream -p host -q "$@"; }
echo precious >"$tmp/victim"
unchanged() { [ "$(cat "$tmp/victim")" = precious ] || fail "$1: the symlink's target was overwritten"; }

# ---- a directory others can write to: refused before any run ----
mkdir "$tmp/open" && chmod 0777 "$tmp/open"
ln -s "$tmp/victim" "$tmp/open/results.csv"
run --no-plots -o "$tmp/open" >"$tmp/o.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "-o a mode 0777 directory exited $rc, expected 1: $(cat "$tmp/o.out")"
grep -q "writable by" "$tmp/o.out" && grep -q "directory of your own" "$tmp/o.out" ||
    fail "-o a mode 0777 directory: no reason and remedy in: $(cat "$tmp/o.out")"
unchanged "mode 0777 directory"

if [ "$(id -u)" -eq 0 ]; then
    # Another user's directory, as -o /tmp/shared made first by an attacker.
    mkdir "$tmp/theirs" && chown 65534:65534 "$tmp/theirs" && chmod 0777 "$tmp/theirs"
    ln -s "$tmp/victim" "$tmp/theirs/results.csv"
    run --no-plots -o "$tmp/theirs" >"$tmp/t.out" 2>&1
    rc=$?
    [ $rc -eq 1 ] || fail "-o another user's directory exited $rc, expected 1: $(cat "$tmp/t.out")"
    grep -q "belongs to uid 65534" "$tmp/t.out" ||
        fail "-o another user's directory: the owner is not named in: $(cat "$tmp/t.out")"
    unchanged "another user's directory"
    chmod 0755 "$tmp/theirs"
    run --no-plots -o "$tmp/theirs" >"$tmp/t.out" 2>&1
    [ $? -eq 1 ] || fail "-o another user's mode 0755 directory was accepted"
    unchanged "another user's mode 0755 directory"
else
    echo "SKIP (part): not root, so no directory of another user can be made (chown);" \
         "the mode and symlink checks still ran" >&2
fi

# ---- the user's own directory: symlinks are not followed ----
mkdir "$tmp/mine" "$tmp/elsewhere"
ln -s "$tmp/victim" "$tmp/mine/results.csv"
run --no-plots -o "$tmp/mine" >"$tmp/m.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "results.csv a symlink: exited $rc, expected 1: $(cat "$tmp/m.out")"
grep -q "results.csv" "$tmp/m.out" && grep -q "symbolic link" "$tmp/m.out" ||
    fail "results.csv a symlink: no message naming it: $(cat "$tmp/m.out")"
unchanged "results.csv a symlink in the user's own directory"
ln -s "$tmp/mine" "$tmp/link"
run --no-plots -o "$tmp/link" >"$tmp/l.out" 2>&1
[ $? -eq 1 ] && grep -q "symbolic link" "$tmp/l.out" ||
    fail "-o a symlink to a directory: not refused: $(cat "$tmp/l.out")"
rm "$tmp/mine/results.csv"

if command -v gnuplot >/dev/null 2>&1; then
    # plot/ a symlink: nothing is written where it points.
    ln -s "$tmp/elsewhere" "$tmp/mine/plot"
    run -o "$tmp/mine" >"$tmp/p.out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || fail "plot/ a symlink: exited $rc: $(cat "$tmp/p.out")"
    [ -z "$(ls -A "$tmp/elsewhere")" ] || fail "plot/ a symlink: wrote into its target: $(ls "$tmp/elsewhere")"
    grep -q "plot.*symbolic link" "$tmp/p.out" || fail "plot/ a symlink: no message: $(cat "$tmp/p.out")"
    rm "$tmp/mine/plot"
    # A FIFO where a script goes: no hang, and gnuplot draws what uvas-exp wrote.
    mkdir "$tmp/mine/plot" && mkfifo "$tmp/mine/plot/throughput.gp"
    run -o "$tmp/mine" >"$tmp/f.out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || fail "a FIFO at plot/throughput.gp: exited $rc: $(cat "$tmp/f.out")"
    [ -f "$tmp/mine/plot/throughput.gp" ] && [ -s "$tmp/mine/throughput.png" ] ||
        fail "a FIFO at plot/throughput.gp: no plot: $(cat "$tmp/f.out")"
fi

# ---- plots of an earlier experiment are removed, others' files kept ----
d="$tmp/stale"
mkdir -p "$d/plot"
for f in throughput.png residency-random.png residency-trace.png plot/throughput.gp \
         plot/residency-random.dat plot/residency-random.gp plot/gnuplot.log; do
    echo old >"$d/$f"
done
echo mine >"$d/notes.png"
echo mine >"$d/plot/notes.gp"
# No policy that works: no plot is drawn, and none of the old ones may stay.
"$exe" -m 4 -r 1 -w stream -p no-such-policy -q -o "$d" >"$tmp/s.out" 2>&1
for f in throughput.png residency-random.png residency-trace.png plot/throughput.gp \
         plot/residency-random.dat plot/residency-random.gp; do
    [ -e "$d/$f" ] && fail "$f of an earlier experiment stayed beside the new results"
done
[ -f "$d/notes.png" ] && [ -f "$d/plot/notes.gp" ] || fail "files uvas-exp does not write were removed"
[ -f "$d/results.csv" ] || fail "no results.csv in $d: $(cat "$tmp/s.out")"
echo "PASS"
exit 0
