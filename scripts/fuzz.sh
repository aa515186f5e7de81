#!/bin/sh
# Fuzzing (tests/fuzz, docs/fuzzing.md): build the libFuzzer targets with
# clang (AddressSanitizer + UBSan + coverage) in build-fuzz/, run each for
# SECONDS (default 10, what CI runs) on a scratch copy of its committed
# corpus, and print executions and coverage per target. Fails if any target
# finds a crash, a leak, a sanitizer report or a timeout; the input that did
# it is kept in build-fuzz/fuzz-artifacts/.
#   scripts/fuzz.sh [SECONDS] [TARGET...]    targets: size config policy trace peer api spirv elf
# Environment:
#   FUZZ_MERGE=1   afterwards, add the inputs that reach new coverage to
#                  tests/fuzz/corpus/<target> (libFuzzer -merge=1, minimal)
#   FUZZ_ARGS      more libFuzzer flags for every target (e.g. -jobs=2)
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh

secs=${1:-10}
[ $# -gt 0 ] && shift
targets=${*:-size config policy trace peer api spirv elf}
dir=build-fuzz
cc=clang-14
command -v "$cc" >/dev/null 2>&1 || cc=clang

if [ ! -f "$dir/build.ninja" ]; then
    CC=$cc meson setup "$dir" -Dfuzz=true -Dbuildtype=debugoptimized >"$dir.setup.log" 2>&1 || {
        cat "$dir.setup.log" >&2
        exit 1
    }
else
    meson configure "$dir" -Dfuzz=true >/dev/null
fi
ninja -C "$dir" fuzz >"$dir.compile.log" 2>&1 || {
    tail -50 "$dir.compile.log" >&2
    exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
art="$dir/fuzz-artifacts"
mkdir -p "$art"
# UBSan reports are fatal in the targets (-fno-sanitize-recover); make
# sure they come with a stack. LeakSanitizer runs after every input.
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
failed=""
printf '%s\n' "target	status	execs	exec/s	cov	ft	corpus" >"$work/table"
for t in $targets; do
    exe="$dir/tests/fuzz/fuzz-$t"
    [ -x "$exe" ] || { echo "fuzz: no target '$t'" >&2; exit 2; }
    mkdir -p "$work/$t"
    cp tests/fuzz/corpus/"$t"/* "$work/$t"/ 2>/dev/null || true
    dict=""
    [ -f "tests/fuzz/fuzz-$t.dict" ] && dict="-dict=tests/fuzz/fuzz-$t.dict"
    echo "fuzz: $t for ${secs}s" >&2
    rc=0
    # shellcheck disable=SC2086
    "$exe" -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="$work/$t-" $dict ${FUZZ_ARGS:-} "$work/$t" >"$work/$t.log" 2>&1 || rc=$?
    last=$(grep -E '^#[0-9]+.*cov: ' "$work/$t.log" | tail -1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -1)
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$t.log" | tail -1)
    cov=$(printf '%s' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(printf '%s' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(printf '%s' "$last" | sed -n 's/.* corp: \([^ ]*\).*/\1/p')
    status=ok
    if [ "$rc" -ne 0 ] || grep -qE '^SUMMARY: |ERROR: libFuzzer' "$work/$t.log"; then
        status=FAIL
        failed="$failed $t"
        cp "$work/$t.log" "$art/$t.log"
        for a in "$work/$t"-*; do
            [ -f "$a" ] && cp "$a" "$art/"
        done
        echo "fuzz: $t FAILED (exit $rc); log and input in $art/:" >&2
        grep -E 'invariant failed|runtime error|ERROR: |SUMMARY: |^    #[0-9]+ |Test unit written' \
            "$work/$t.log" | head -40 >&2
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$status" "${execs:-?}" "${eps:-?}" "${cov:-?}" \
        "${ft:-?}" "${corp:-?}" >>"$work/table"
    if [ "${FUZZ_MERGE:-0}" = 1 ] && [ "$status" = ok ]; then
        mkdir -p "tests/fuzz/corpus/$t"
        "$exe" -merge=1 "tests/fuzz/corpus/$t" "$work/$t" >"$work/$t.merge.log" 2>&1 ||
            echo "fuzz: merging $t's corpus failed (see $work/$t.merge.log)" >&2
    fi
done
echo
column -t -s '	' "$work/table" 2>/dev/null || cat "$work/table"
if [ -n "$failed" ]; then
    echo "fuzz: failed:$failed" >&2
    exit 1
fi
echo "fuzz: all targets ran ${secs}s without a finding"
