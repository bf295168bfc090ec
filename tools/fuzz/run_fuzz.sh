#!/bin/sh
# Builds a seed corpus from small real files (copied at run time from ../shared, never
# committed) plus the golden invalid inputs, then fuzzes the BVH reader.
#   tools/fuzz/run_fuzz.sh [build_dir] [seconds] [extra libFuzzer flags...]
# Work files go to tools/fuzz/corpus-work/ (git-ignored): seeds/, corpus/, artifacts/.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-fuzz}
SECS=${2:-600}
[ $# -ge 2 ] && shift 2 || shift $#
SHARED=${MB_SHARED_DIR:-$ROOT/../shared}
WORK=$ROOT/tools/fuzz/corpus-work
FUZZER=$BUILD/tools/fuzz/fuzz_bvh_read
[ -x "$FUZZER" ] || { echo "no $FUZZER: configure with CC=clang -DMB_BUILD_FUZZ=ON and build target fuzz_bvh_read" >&2; exit 1; }
[ -d "$SHARED/data/bvh" ] || { echo "shared data missing: $SHARED/data/bvh" >&2; exit 1; }
mkdir -p "$WORK/seeds" "$WORK/corpus" "$WORK/artifacts"
# Small real files whole; the first 16 KiB of larger ones (header + some frames).
for f in "$SHARED"/data/bvh/*.bvh "$SHARED"/data/bvh/derived/*.bvh; do
    if [ "$(wc -c < "$f")" -le 65536 ]; then
        cp "$f" "$WORK/seeds/"
    else
        head -c 16384 "$f" > "$WORK/seeds/head_$(basename "$f")"
    fi
done
for d in "$ROOT"/tests/data/invalid/*/; do
    cp "$d/input.bvh" "$WORK/seeds/invalid_$(basename "$d").bvh"
done
chmod u+w "$WORK"/seeds/*
# One process (the machine's CPUs are shared); 64 KiB inputs; allocations above 1 GiB are
# reported as crashes (the reader's documented bounds stay far below that for such inputs).
exec "$FUZZER" -max_total_time="$SECS" -max_len=65536 -timeout=10 -malloc_limit_mb=1024 \
    -rss_limit_mb=2048 -dict="$ROOT/tools/fuzz/bvh.dict" -print_final_stats=1 \
    -artifact_prefix="$WORK/artifacts/" "$@" "$WORK/corpus" "$WORK/seeds"
