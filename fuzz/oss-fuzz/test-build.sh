#!/usr/bin/env bash
# fuzz/oss-fuzz/test-build.sh - run build.sh as OSS-Fuzz would, here: set the
# variables it expects (clang, ASan + libFuzzer flags, a temporary $OUT),
# build every target, then run each one over its own seed zip with its
# dictionary and options, as the fuzzing infrastructure starts it. Any build
# error, missing artifact or crash fails. Needs clang, zip and unzip.
#
# usage: fuzz/oss-fuzz/test-build.sh [WORKDIR]   (default: a temporary folder)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$(mktemp -d)}
rm -rf "$dir"
mkdir -p "$dir/out" "$dir/work" "$dir/src"

export CC=clang CXX=clang++
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE="-fsanitize=fuzzer"
export OUT=$dir/out WORK=$dir/work SRC=$dir/src

bash "$root/fuzz/oss-fuzz/build.sh"

status=0
count=0
for src in "$root"/fuzz/fuzz_*.c; do
  name=$(basename "${src%.c}")
  count=$((count + 1))
  for f in "$OUT/$name" "$OUT/${name}_seed_corpus.zip" "$OUT/$name.dict" "$OUT/$name.options"; do
    [ -s "$f" ] || { echo "test-build: missing $f"; status=1; }
  done
  [ -x "$OUT/$name" ] || continue
  # The options' max_len and the target's own limit (used by its seed check) must agree.
  want=$(sed -n 's/^#define [A-Z]*_MAX_LEN \([0-9]*\).*/\1/p' "$src")
  have=$(sed -n 's/^max_len *= *//p' "$OUT/$name.options")
  [ "$want" = "$have" ] || { echo "test-build: $name.options max_len $have, target says $want"; status=1; }
  seeds=$dir/seeds/$name
  mkdir -p "$seeds"
  unzip -q -o "$OUT/${name}_seed_corpus.zip" -d "$seeds"
  # The options file's [libfuzzer] keys become flags, as the runner passes them.
  opts=$(sed -n '/^\[libfuzzer\]/,/^\[/{s/^\([a-z_]*\) *= *\(.*\)$/-\1=\2/p}' "$OUT/$name.options")
  # shellcheck disable=SC2086 # one flag per option line
  if "$OUT/$name" -runs=0 -dict="$OUT/$name.dict" -artifact_prefix="$dir/" $opts "$seeds" \
    >"$dir/$name.log" 2>&1; then
    echo "test-build: $name: $(find "$seeds" -type f | wc -l) seeds replayed"
  else
    echo "test-build: $name FAILED on its seed corpus; see $dir/$name.log"
    grep -E "ERROR: |invariant broken|runtime error|^fuzz_[a-z]*: " "$dir/$name.log" | head -5
    status=1
  fi
done
((count > 0)) || { echo "test-build: no fuzz targets"; exit 1; }
((status == 0)) && echo "test-build: $count targets built and replayed their seeds"
exit $status
