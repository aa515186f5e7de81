#!/bin/sh
# Quick start 1: install what is missing, build, run the main job.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build
exec build/examples/uvas-demo
