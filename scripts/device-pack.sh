#!/bin/sh
# Make build-dev/: a stripped copy of what a device run executes (the
# programs and libuvas.so of build/, no objects, no debug info), small
# enough to carry to the GPU machine (docs/device.md). usage: device-pack.sh [builddir]
set -eu
cd "$(dirname "$0")/.."
src=${1:-build}
rm -rf build-dev
mkdir build-dev
(cd "$src" && find . -type f \( -perm -u+x -o -name '*.so*' -o -name '*.spv' \) ! -path '*.p/*' \
    ! -path './meson-*' ! -name '*.a' ! -name 'libfloor-check-*' -print0 | xargs -0 -I{} cp --parents {} ../build-dev/)
cp -P "$src"/libuvas.so "$src"/libuvas.so.0 build-dev/
find build-dev -type f -exec strip --strip-debug {} \; 2>/dev/null || true
# The guard's OpenSHMEM rows run shmem-bench built beforehand: the GPU
# machine has no compilers (its own build of OSHMEM's fails at the link),
# so without them those rows read "not measured".
for impl in uvas oshmem; do
    [ -x "$src/bench-$impl/shmem-bench" ] ||
        echo "device-pack.sh: warning: no $src/bench-$impl/shmem-bench: the guard's shmem rows" \
             "will read 'not measured' (scripts/shmem-bench.sh --builddir $src builds both)" >&2
done
tar czf build-dev.tgz build-dev
du -sh build-dev build-dev.tgz | tr '\n' ' '; echo
