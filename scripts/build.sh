#!/bin/sh
# Configure (once) and build. usage: build.sh [builddir [meson options...]]
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1 || { cat "$dir.setup.log" >&2; exit 1; }
fi
meson compile -C "$dir" >"$dir.compile.log" 2>&1 || { cat "$dir.compile.log" >&2; exit 1; }
