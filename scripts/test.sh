#!/bin/sh
# Quick start 2: install what is missing, build, run every test.
#   scripts/test.sh             the normal build (build/)
#   scripts/test.sh --sanitize  AddressSanitizer + UBSan build (build-san/)
#   scripts/test.sh --tsan      ThreadSanitizer build, concurrency suite (build-tsan/)
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=build
opts=""
suite=""
if [ "${1:-}" = "--tsan" ]; then
    dir=build-tsan
    opts="-Db_sanitize=thread -Db_lundef=false"
    suite="--suite concurrency"
elif [ "${1:-}" = "--sanitize" ]; then
    dir=build-san
    opts="-Db_sanitize=address,undefined -Db_lundef=false"
    # Any UB report fails the test; leaks are reported at exit.
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
    # intercept_tls_get_addr=0: the runtime's guess at dynamic TLS blocks
    # (GCC 12's) gave LeakSanitizer a range it could not read in the PEs
    # of every UCX test, 'Tracer caught signal 11' at their exit, with these
    # options and not without them (docs/reliability.md).
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:intercept_tls_get_addr=0"
fi
# shellcheck disable=SC2086
scripts/build.sh "$dir" $opts
# test-huge-pages (UVAS_HUGE_PAGES=1) needs free 2 MiB huge pages: where
# we may (root), 64 of them (128 MiB) are reserved for the run and the
# system's setting is put back after it; elsewhere that test skips.
hp=/proc/sys/vm/nr_hugepages
hp_old=""
if [ -w "$hp" ]; then
    hp_old=$(cat "$hp")
    hp_free=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
    if [ "${hp_free:-0}" -lt 64 ]; then
        echo $((hp_old + 64 - ${hp_free:-0})) > "$hp" 2>/dev/null || true
        echo "test.sh: $(cat "$hp") huge pages reserved for the run (were $hp_old)"
    fi
fi
rc=0
# shellcheck disable=SC2086
meson test -C "$dir" --print-errorlogs --num-processes 2 $suite || rc=$?
[ -n "$hp_old" ] && echo "$hp_old" > "$hp" 2>/dev/null || true
python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
res = [json.loads(l)["result"] for l in open(sys.argv[1]) if l.strip()]
ok = sum(r in ("OK", "EXPECTEDFAIL") for r in res)
skip = sum(r == "SKIP" for r in res)
print(f"{ok} passed, {len(res) - ok - skip} failed, {skip} skipped")
PY
exit $rc
