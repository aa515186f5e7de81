#!/bin/sh
# Install what a fresh Debian 12 machine lacks to build and test uvas.
# Idempotent and quiet when everything is already there. gdb is for the
# tests' watchdog (tests/helpers.c): a hung test prints its threads' stacks.
set -eu

PKGS="meson ninja-build pkg-config gcc g++ libc6-dev python3 libvulkan-dev
mesa-vulkan-drivers vulkan-tools libucx-dev libhwloc-dev libpmix-dev openmpi-bin
libopenmpi-dev gnuplot-nox clang-14 libclang-rt-14-dev glslc glslang-tools gdb"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || {
        echo "install-deps: missing packages:$missing; run this script as root" >&2
        exit 1
    }
    SUDO=sudo
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
