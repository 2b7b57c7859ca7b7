#!/usr/bin/env bash
# The whole test suite: installs and builds what is missing (scripts/setup.sh),
# then runs lit (FileCheck), GoogleTest, ONNX conformance and end-to-end tests
# through ctest. Exit status is non-zero when any suite fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR="${NUNC_BUILD_DIR:-build}"
start=$(date +%s)
status=0
ctest --test-dir "$BUILD_DIR" --output-on-failure "$@" || status=$?
echo "test.sh: suite took $(( $(date +%s) - start )) s (exit $status)"
exit $status
