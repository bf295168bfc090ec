#!/bin/sh
# Fuzzes the glTF pre-check (src/offline/io/gltf_check.c) from the shared .glb samples (copied at
# run time, never committed) and a few small hand-written assets.
#   tools/fuzz/run_fuzz_gltf.sh [build_dir] [seconds] [extra libFuzzer flags...]
# Work files go to tools/fuzz/corpus-work/gltf/ (git-ignored): seeds/, corpus/, artifacts/.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-fuzz}
SECS=${2:-600}
[ $# -ge 2 ] && shift 2 || shift $#
SHARED=${MB_SHARED_DIR:-$ROOT/../shared}
WORK=$ROOT/tools/fuzz/corpus-work/gltf
FUZZER=$BUILD/tools/fuzz/fuzz_gltf_check
[ -x "$FUZZER" ] || { echo "no $FUZZER: configure with CC=clang -DMB_BUILD_FUZZ=ON and build target fuzz_gltf_check" >&2; exit 1; }
mkdir -p "$WORK/seeds" "$WORK/corpus" "$WORK/artifacts"
for f in "$SHARED"/data/mesh/*.glb; do
    [ -f "$f" ] && cp "$f" "$WORK/seeds/"
done
# JSON seeds: a skinned node tree with a sparse accessor and a data URI buffer.
cat > "$WORK/seeds/small.gltf" <<'JSON'
{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
"nodes":[{"name":"Root","children":[1,2]},{"mesh":0,"skin":0},{"name":"Hip","children":[3]},{"name":"Knee"}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],
"skins":[{"joints":[2,3],"inverseBindMatrices":2}],
"animations":[{"samplers":[{"input":3,"output":3}],"channels":[{"sampler":0,"target":{"node":3,"path":"rotation"}}]}],
"accessors":[{"bufferView":0,"componentType":5126,"count":1,"type":"VEC3","sparse":{"count":1,"indices":{"bufferView":0,"componentType":5121},"values":{"bufferView":0}}},
{"bufferView":0,"componentType":5123,"count":3,"type":"SCALAR"},{"componentType":5126,"count":2,"type":"MAT4"},
{"bufferView":0,"byteOffset":4,"componentType":5126,"count":2,"type":"SCALAR"}],
"bufferViews":[{"buffer":0,"byteLength":12,"byteStride":4}],
"buffers":[{"byteLength":12,"uri":"data:application/octet-stream;base64,AAAAAAAAgD8AAABA"}]}
JSON
chmod u+w "$WORK"/seeds/*
exec "$FUZZER" -max_total_time="$SECS" -max_len=262144 -timeout=10 -malloc_limit_mb=1024 \
    -rss_limit_mb=2048 -dict="$ROOT/tools/fuzz/gltf.dict" -print_final_stats=1 -artifact_prefix="$WORK/artifacts/" "$@" \
    "$WORK/corpus" "$WORK/seeds"
