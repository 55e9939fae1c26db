#!/usr/bin/env bash
# First command of the README: set up, build the release binary, run the quickstart scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target fabricsim
build/release/tools/fabricsim run scenarios/quickstart.yaml "$@"
