#!/bin/sh
# ctest gltf_validator: writes the kinds of .glb mblend makes (glTF characters converted
# with their materials and textures, a blended loop, a transition, BVH with generated
# skins, Z-up, skin frames) and checks each with the Khronos glTF validator (no errors
# allowed) and with mblend's own reader, whose glTF check (src/offline/io/gltf_check.c)
# must accept it.
#
# The validator is only on npm (gltf-validator), not in Debian, so this test is optional:
# it runs when MB_GLTF_VALIDATOR names the installed package (the folder with its
# package.json, or a prefix holding node_modules/gltf-validator), or when the package is
# installed in the cache prefix ${MB_GLTF_VALIDATOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mblend/gltf-validator}:
#   npm install --prefix ~/.cache/mblend/gltf-validator gltf-validator@2.0.0-dev.3.10
# Otherwise it exits 77, which ctest reports as skipped (SKIP_RETURN_CODE).
#
# usage: gltf_validate.sh MBLEND SHARED_DATA_DIR
set -eu
mblend=$1
data=$2
here=$(cd "$(dirname "$0")" && pwd)

find_validator() {
  for d in "${MB_GLTF_VALIDATOR:-}" "${MB_GLTF_VALIDATOR:-}/node_modules/gltf-validator" \
           "${MB_GLTF_VALIDATOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mblend/gltf-validator}/node_modules/gltf-validator"; do
    if [ -n "$d" ] && [ -f "$d/package.json" ] && grep -q '"name": *"gltf-validator"' "$d/package.json"; then
      echo "$d"
      return 0
    fi
  done
  return 1
}
if ! validator=$(find_validator); then
  if [ -n "${MB_GLTF_VALIDATOR:-}" ]; then
    echo "FAIL: MB_GLTF_VALIDATOR=$MB_GLTF_VALIDATOR holds no gltf-validator package (package.json)"
    exit 1
  fi
  echo "SKIP: the Khronos glTF validator is not installed (it is on npm only). Set MB_GLTF_VALIDATOR to"
  echo "      its package folder, or: npm install --prefix ~/.cache/mblend/gltf-validator gltf-validator@2.0.0-dev.3.10"
  exit 77
fi
node=$(command -v node || command -v nodejs || true)
if [ -z "$node" ]; then
  echo "FAIL: the glTF validator is installed in $validator but node is not (scripts/setup.sh installs nodejs)"
  exit 1
fi

out=$(mktemp -d /tmp/mb_gltf_validate_XXXXXX)
trap 'rm -rf "$out"' EXIT
run() { # run NAME ARGS...: mblend ARGS, quietly unless it fails
  name=$1
  shift
  if ! "$mblend" "$@" > "$out/$name.log" 2>&1; then
    cat "$out/$name.log"
    echo "FAIL: mblend $*"
    exit 1
  fi
}
mesh=$data/mesh
bvh=$data/bvh
run fox_walk convert "$mesh/Fox.glb#Walk" -o "$out/fox_walk.glb"
run fox_survey convert "$mesh/Fox.glb#Survey" -o "$out/fox_survey.glb"
run cesium_man convert "$mesh/CesiumMan.glb" -o "$out/cesium_man.glb"
run rigged_simple convert "$mesh/RiggedSimple.glb" -o "$out/rigged_simple.glb"
run trot blend "$mesh/Fox.glb#Walk" "$mesh/Fox.glb#Run" -o "$out/trot.glb"
run fox_transition transition "$mesh/Fox.glb#Walk" "$mesh/Fox.glb#Run" --at auto --duration 0.3 -o "$out/fox_transition.glb"
run cmu_walk convert "$bvh/cmu_02_01_walk.bvh" -o "$out/cmu_walk.glb"
run cmu_blend blend "$bvh/cmu_02_01_walk.bvh" "$bvh/cmu_02_02_walk.bvh" --scale 0.056444 -o "$out/cmu_blend.glb"
run zup convert "$bvh/animdraw_fair1_dab_zup.bvh" -o "$out/zup.glb"
run fox_skin skin "$mesh/Fox.glb#Run" --frames 0:10:2 -o "$out/fox_skin.glb"
run fox_mapped skin "$mesh/Fox.glb#Walk" --mesh "$mesh/Fox.glb" -o "$out/fox_mapped.glb"

status=0
"$node" "$here/gltf_validate.js" "$validator" "$out"/*.glb || status=1
for f in "$out"/*.glb; do # mblend's reader (its glTF check first) reads each back
  if ! "$mblend" info "$f" > "$out/info.log" 2>&1; then
    cat "$out/info.log"
    echo "FAIL: mblend cannot read back $f"
    status=1
  fi
done
exit $status
