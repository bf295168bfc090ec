#!/usr/bin/env bash
# Installs the built project into a temporary prefix, checks that every public header of the
# source tree (runtime/ and offline/ included) is installed and compiles on its own, then
# builds a consumer against it twice: through find_package(mblend) and through pkg-config
# (mblend.pc).
set -euo pipefail
build="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
count=0
while IFS= read -r h; do
  rel="${h#"$src"/include/}"
  [ -f "$tmp/prefix/include/$rel" ] || { echo "public header $rel not installed"; exit 1; }
  printf '#include <%s>\n' "$rel" | cc -std=c11 -Wall -Werror -fsyntax-only -I"$tmp/prefix/include" -x c - ||
    { echo "installed header $rel does not compile on its own"; exit 1; }
  count=$((count + 1))
done < <(find "$src/include/mblend" -name '*.h' | sort)
[ "$count" -ge 20 ] || { echo "only $count public headers found"; exit 1; }
cmake -S "$src/tests/install/consumer" -B "$tmp/cbuild" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cbuild" >/dev/null
out="$("$tmp/cbuild/consumer")"
[ "$out" = "-2.000 0.000" ] || { echo "find_package consumer printed '$out'"; exit 1; }
libdir="$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -n1)"
PKG_CONFIG_PATH="$libdir" cc -std=c11 "$src/tests/install/consumer/main.c" -o "$tmp/pc_consumer" \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs --static mblend)
# (the linker takes libmblend.so over libmblend.a; an install outside the loader's paths is
# found through LD_LIBRARY_PATH, as for any shared library)
out="$(LD_LIBRARY_PATH="$(dirname "$libdir")" "$tmp/pc_consumer")"
[ "$out" = "-2.000 0.000" ] || { echo "pkg-config consumer printed '$out'"; exit 1; }
# The Python package, when the build has it, imports from where it was installed (its
# module finds libmblend.so through its RPATH).
pydir="$(ls -d "$tmp"/prefix/lib/python3*/dist-packages 2>/dev/null | head -n1 || true)"
if [ -d "$build/python/mblend" ]; then
  [ -n "$pydir" ] || { echo "the Python package was built but not installed"; exit 1; }
  out="$(cd "$tmp" && PYTHONPATH="$pydir" /usr/bin/python3 -c \
    'import mblend, numpy as np; print(mblend.blend_rotations(np.array([[[0, 0, 0, 1.0]]] * 2), [1, 1])[0][3])')"
  [ "$out" = "1.0" ] || { echo "installed Python package printed '$out'"; exit 1; }
fi
echo "install test: $count headers, find_package, pkg-config and Python consumers OK"
