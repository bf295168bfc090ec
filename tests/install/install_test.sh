#!/usr/bin/env bash
# Installs the built project into a temporary prefix, then builds a consumer against it
# twice: through find_package(mblend) and through pkg-config (mblend.pc).
set -euo pipefail
build="$1"; src="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$src/tests/install/consumer" -B "$tmp/cbuild" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cbuild" >/dev/null
out="$("$tmp/cbuild/consumer")"
[ "$out" = "-2.000 0.000" ] || { echo "find_package consumer printed '$out'"; exit 1; }
libdir="$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -n1)"
PKG_CONFIG_PATH="$libdir" cc -std=c11 "$src/tests/install/consumer/main.c" -o "$tmp/pc_consumer" \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs --static mblend)
out="$("$tmp/pc_consumer")"
[ "$out" = "-2.000 0.000" ] || { echo "pkg-config consumer printed '$out'"; exit 1; }
echo "install test: find_package and pkg-config consumers OK"
