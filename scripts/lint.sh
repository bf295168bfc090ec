#!/usr/bin/env bash
# Two checks.
# 1. Layers (docs/architecture.md): base < math < runtime < offline. A file of the library
#    (src/ and include/mblend/) includes only headers of its own layer or lower ones; above
#    all, runtime never includes offline. The umbrella mblend.h is for users, not the library.
# 2. Function length: every C function in src/ and tools/mblend/ is at most MAX_LINES long
# (ctags' start and end lines, inclusive), so that a reader can hold it in their head. A
# longer one fails the lint, listed as file:line name length, unless it is in ALLOWED below
# with a one-line reason. Needs universal-ctags (Debian: universal-ctags; scripts/setup.sh
# installs it). Usage: scripts/lint.sh (from anywhere; exit 0 clean, 1 violations, 2 setup).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MAX_LINES=100

# "file|function|reason". Keep each reason to one line; remove an entry once its function is
# split (an entry that no longer matches a long function is reported as stale).
ALLOWED=(
  # Allowed for good: hot loops kept in one function on purpose.
  "src/offline/io/bvh_read.c|read_motion|the BVH motion loop, the reader's hot path (see the comment above it)"
)

die() { echo "lint: $*" >&2; exit 2; }
command -v ctags >/dev/null || die "ctags not found: install universal-ctags (scripts/setup.sh does)"
ctags --version 2>/dev/null | grep -q "Universal Ctags" ||
  die "ctags is not universal-ctags (the end-line field is needed): install universal-ctags"

cd "$here"

# ---------- 1. layers ----------
# The layer of a path inside the repository: 0 base, 1 math, 2 runtime, 3 offline,
# 4 the umbrella; empty for anything else (system headers, .inc files beside their .c).
layer_of() {
  case "$1" in
    include/mblend/base.h | src/base/*) echo 0 ;;
    include/mblend/math.h | src/math/*) echo 1 ;;
    include/mblend/runtime/* | src/runtime/*) echo 2 ;;
    include/mblend/offline/* | src/offline/*) echo 3 ;;
    include/mblend/mblend.h) echo 4 ;;
  esac
}
layer_names=(base math runtime offline umbrella)
layer_bad=0
while IFS= read -r file; do
  from="$(layer_of "$file")"
  [ -n "$from" ] || { echo "lint: $file is in no layer (put it under a layer's folder)"; layer_bad=1; continue; }
  [ "$from" -lt 4 ] || continue
  while IFS=: read -r line inc; do
    name="$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/' <<<"$inc")"
    case "$file" in
      include/*) target="$(realpath -m --relative-to=. "$(dirname "$file")/$name")" ;;
      *) case "$name" in mblend/*) target="include/$name" ;; *) target="src/$name" ;; esac ;;
    esac
    to="$(layer_of "$target")"
    if [ -n "$to" ] && [ "$to" -gt "$from" ]; then
      echo "$file:$line includes $name: a ${layer_names[$from]} file includes ${layer_names[$to]}"
      layer_bad=1
    fi
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
done < <(find src include/mblend -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) | sort)
if [ "$layer_bad" -ne 0 ]; then
  echo "lint: a lower layer includes a higher one (base < math < runtime < offline): move the" \
    "code or the declaration to the layer that owns it (docs/architecture.md)" >&2
  exit 1
fi
echo "lint: layers clean (base < math < runtime < offline; runtime includes no offline header)"

# ---------- 2. function length ----------
# One line per function: file start end name (.inc files hold code included into .c files).
listing="$(ctags -x --_xformat='%F %n %e %N' --languages=C --langmap=C:+.inc --c-kinds=f \
  --fields=+ne -R src tools/mblend)"

declare -A reason=() used=()
for entry in "${ALLOWED[@]}"; do
  IFS='|' read -r file fn why <<<"$entry"
  [ -n "$why" ] || die "allow-list entry without a reason: $entry"
  reason["$file|$fn"]="$why"
done

bad=0
while read -r file start end name; do
  [[ "$end" =~ ^[0-9]+$ ]] || continue # no end line: not a definition ctags could close
  len=$((end - start + 1))
  [ "$len" -gt "$MAX_LINES" ] || continue
  if [ -n "${reason["$file|$name"]+x}" ]; then
    used["$file|$name"]=1
    continue
  fi
  echo "$file:$start $name $len lines (over $MAX_LINES)"
  bad=1
done <<<"$listing"

for key in "${!reason[@]}"; do
  [ -n "${used["$key"]+x}" ] || echo "lint: note: allow-list entry ${key/|/ } is not over $MAX_LINES lines (stale?)" >&2
done

if [ "$bad" -ne 0 ]; then
  echo "lint: functions over $MAX_LINES lines: split them into named steps, or add them to" \
    "ALLOWED in scripts/lint.sh with a one-line reason" >&2
  exit 1
fi
echo "lint: no function over $MAX_LINES lines outside the allow-list"
