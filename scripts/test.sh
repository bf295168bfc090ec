#!/usr/bin/env bash
# Builds and runs the whole test suite three times: a normal build, one with
# AddressSanitizer + UndefinedBehaviorSanitizer, and one without assimp (the optional
# dependency: the scene tests skip, everything else must still build and pass). Warnings
# are errors in all three. Before the builds, scripts/lint.sh checks function lengths.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="$(nproc)"

"$here/scripts/setup.sh" --packages-only
echo "== lint"
"$here/scripts/lint.sh"

"$here/scripts/setup.sh" "$here/build" -DMB_BUILD_TESTS=ON -DMB_REQUIRE_PYTHON=ON
echo "== tests (release build, with the Python package's pytest suite)"
ctest --test-dir "$here/build" --output-on-failure -j"$jobs"

"$here/scripts/setup.sh" "$here/build-asan" -DMB_BUILD_TESTS=ON -DMB_SANITIZE=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== tests (ASan + UBSan build)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$here/build-asan" --output-on-failure -j"$jobs"

"$here/scripts/setup.sh" "$here/build-noassimp" -DMB_BUILD_TESTS=ON -DMB_WITH_ASSIMP=OFF \
  -DMB_REQUIRE_PYTHON=ON
echo "== tests (built without assimp)"
ctest --test-dir "$here/build-noassimp" --output-on-failure -j"$jobs"
echo "== all tests passed (release, sanitizer and no-assimp builds)"
