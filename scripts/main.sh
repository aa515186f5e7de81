#!/bin/sh
# Quick start 1: install what is missing, build, run the main job: the
# default policy experiment (docs/experiments.md); results in exp-out/.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build
exec build/tools/uvas-exp "$@"
