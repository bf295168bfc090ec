#!/usr/bin/env bash
# Installs the Debian packages mblend needs (only the missing ones) and builds it.
# Usage: scripts/setup.sh [BUILD_DIR] [extra cmake args...]
#        scripts/setup.sh --packages-only   (install the packages, build nothing)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$here/build}"
shift || true

packages=(build-essential cmake pkg-config libcglm-dev liblapacke-dev libopenblas-dev
          libcriterion-dev libassimp-dev libcjson-dev libpng-dev libgif-dev
          python3-dev python3-cffi python3-numpy python3-pytest python3-scipy python3-matplotlib
          python3-distributed python3-dask
          nodejs libjs-three # tests/cli/test_cli_readers: three.js reads the BVH mblend writes
          universal-ctags) # universal-ctags: scripts/lint.sh (function lengths)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install ${missing[*]}" >&2; exit 1; }
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "$build" = "--packages-only" ] && exit 0

cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
