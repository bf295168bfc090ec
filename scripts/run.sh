#!/usr/bin/env bash
# The main job on the shipped clips (data/bvh): installs what is missing, builds, then
#  1. summarises the walk and run clips,
#  2. blends them 50/50, in phase, into a jog (one loopable gait cycle) with a report,
#  3. joins the run to the walk with a transition (point found by pose matching),
#  4. re-exports both clips through the BVH writer (lossless round trip),
#  5. draws the jog and the transition (PNG contact sheets, an animated GIF of the transition),
# writing everything into out/ (or the folder given as the first argument).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$here/out}"
# A fresh build skips the tests (scripts/test.sh builds them); an existing build keeps its
# settings, so running the main job never turns a developer's tests off.
if [ -f "$here/build/CMakeCache.txt" ]; then
  "$here/scripts/setup.sh" "$here/build" >/dev/null
else
  "$here/scripts/setup.sh" "$here/build" -DMB_BUILD_TESTS=OFF >/dev/null
fi
mblend="$here/build/tools/mblend/mblend"
mkdir -p "$out"

for clip in walk run; do
  echo "== mblend info data/bvh/$clip.bvh"
  "$mblend" info "$here/data/bvh/$clip.bvh" | sed -n '1,8p'
done

echo "== mblend blend walk + run -> jog (weights 0.5, 0.5)"
"$mblend" blend "$here/data/bvh/walk.bvh" "$here/data/bvh/run.bvh" --weights 0.5,0.5 \
  --cycle auto --report "$out/jog_report.csv" --compare -o "$out/jog.bvh"
"$mblend" info "$out/jog.bvh" | sed -n '4,8p'

echo "== mblend transition run -> walk (searched transition point, 1 s cross-fade)"
"$mblend" transition "$here/data/bvh/run.bvh" "$here/data/bvh/walk.bvh" --at auto --duration 1.0 \
  --report "$out/run_to_walk_report.csv" -o "$out/run_to_walk.bvh"

echo "== re-export through the writer"
for clip in walk run; do
  "$mblend" convert "$here/data/bvh/$clip.bvh" -o "$out/${clip}_reexported.bvh"
  echo "wrote $out/${clip}_reexported.bvh"
done
echo "== previews (generated capsule skin, software rasterizer)"
"$mblend" render "$out/jog.bvh" --view side -o "$out/jog.png"
"$mblend" render "$out/run_to_walk.bvh" --view side --frames 0:126:14 --columns 9 \
  -o "$out/run_to_walk.png"
"$mblend" render "$out/run_to_walk.bvh" --view side --size 200x240 -o "$out/run_to_walk.gif"
echo "== done: results in $out"
