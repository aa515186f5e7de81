#!/bin/sh
# A diagnostic libuvas: HEAD in a throwaway git worktree, the named
# patches applied (scripts/diag/NAME.py: stages, fill, lone; each says
# what it prints and which variable turns it on), built, stripped and put
# in OUTDIR (build-diag by default, ignored by git) for an A/B on the GPU
# machine: AB_LIBS="new=build-dev diag=build-diag,UVAS_DIAG_STAGES=1"
# (docs/device.md). The checkout here is not touched.
# usage: scripts/diag/build.sh [-o OUTDIR] NAME...
set -eu
cd "$(dirname "$0")/../.."
out=build-diag
if [ "${1:-}" = -o ]; then out=$2; shift 2; fi
[ $# -ge 1 ] || { echo "usage: $0 [-o OUTDIR] NAME..." >&2; exit 2; }
for n in "$@"; do
    [ -f "scripts/diag/$n.py" ] || { echo "diag: no scripts/diag/$n.py" >&2; exit 2; }
done
wt=$(mktemp -d /tmp/uvas-diag.XXXXXX)
git worktree add -q --detach "$wt" HEAD
trap 'git worktree remove --force "$wt"' EXIT
for n in "$@"; do
    python3 "scripts/diag/$n.py" "$wt"
done
meson setup "$wt/build" "$wt" >"$wt/setup.log" 2>&1 || { cat "$wt/setup.log" >&2; exit 1; }
ninja -C "$wt/build" libuvas.so.0.1.0 >"$wt/build.log" 2>&1 || { cat "$wt/build.log" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
cp -P "$wt/build/libuvas.so" "$wt/build/libuvas.so.0" "$wt/build/libuvas.so.0.1.0" "$out/"
strip --strip-debug "$out/libuvas.so.0.1.0"
echo "diag: $out/ holds libuvas with $* at $(git rev-parse --short HEAD)"
