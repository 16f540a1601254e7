#!/bin/bash -eu
# fuzz/oss-fuzz/build.sh - build every fuzz target the way OSS-Fuzz and
# ClusterFuzzLite do: compile with $CC $CFLAGS, link with $LIB_FUZZING_ENGINE,
# and put into $OUT, per target fuzz_<name>: the binary,
# fuzz_<name>_seed_corpus.zip (corpus/<name>/), fuzz_<name>.dict and
# fuzz_<name>.options.
#
# Dependencies: when the image has cJSON and uriparser sources in $SRC/cjson
# and $SRC/uriparser (our Dockerfile clones them), they are built statically
# with the sanitizer flags, so the runner needs nothing installed. Otherwise the
# system's libcjson and liburiparser are linked and their shared objects are
# copied to $OUT/lib (found through an $ORIGIN rpath), which is how
# fuzz/oss-fuzz/test-build.sh runs it on a developer machine.
#
# Coverage instrumentation goes to our library only: the target files (their
# checks), fuzz/oracle_json.c and the dependencies (cJSON is an oracle too) are
# compiled with $CFLAGS minus the coverage flags, sanitizers kept (see
# fuzz/oracle.h). With AFL++'s compiler wrapper they are instrumented anyway.
#
# Expects: CC, CFLAGS, LIB_FUZZING_ENGINE, OUT; optional CXX, CXXFLAGS, SRC, WORK.
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${SRC:=$root/..}"
: "${WORK:=$(mktemp -d)}"
link_cc=${CXX:-$CC}
link_flags=${CXXFLAGS:-$CFLAGS}
mkdir -p "$OUT" "$WORK/obj" "$WORK/include/cjson"

plain_cflags=()
for flag in $CFLAGS; do
  case $flag in
    -fsanitize=fuzzer-no-link | -fsanitize=fuzzer | -fsanitize-coverage=* | \
      -fprofile-instr-generate | -fcoverage-mapping) ;;
    *) plain_cflags+=("$flag") ;;
  esac
done

cflags=(-std=c11 -D_POSIX_C_SOURCE=200809L -DMCPS_VERSION=\"oss-fuzz\" -I"$root/harness"
        -I"$root/fuzz" -I"$WORK/include")
dep_libs=()
rpath=()

if [ -f "$SRC/cjson/cJSON.c" ]; then
  cp "$SRC/cjson/cJSON.h" "$WORK/include/cjson/"
  $CC "${plain_cflags[@]}" -c "$SRC/cjson/cJSON.c" -o "$WORK/obj/cJSON.o"
  ar rcs "$WORK/libcjson.a" "$WORK/obj/cJSON.o"
  dep_libs+=("$WORK/libcjson.a")
else
  cflags+=($(pkg-config --cflags libcjson))
  dep_libs+=($(pkg-config --libs libcjson))
  mkdir -p "$OUT/lib"
  cp -L "$(pkg-config --variable=libdir libcjson)"/libcjson.so.1 "$OUT/lib/"
  rpath=(-Wl,-rpath,'$ORIGIN/lib')
fi

if [ -d "$SRC/uriparser/src" ]; then
  cmake -S "$SRC/uriparser" -B "$WORK/uriparser" -DCMAKE_C_COMPILER="$CC" \
    -DCMAKE_C_FLAGS="${plain_cflags[*]}" -DBUILD_SHARED_LIBS=OFF -DURIPARSER_BUILD_TESTS=OFF \
    -DURIPARSER_BUILD_DOCS=OFF -DURIPARSER_BUILD_TOOLS=OFF -DURIPARSER_BUILD_WCHAR_T=OFF >/dev/null
  cmake --build "$WORK/uriparser" -j"$(nproc)" >/dev/null
  cflags+=(-I"$SRC/uriparser/include")
  uri_libs=("$WORK/uriparser/liburiparser.a")
else
  cflags+=($(pkg-config --cflags liburiparser))
  uri_libs=($(pkg-config --libs liburiparser))
  mkdir -p "$OUT/lib"
  cp -L "$(pkg-config --variable=libdir liburiparser)"/liburiparser.so.1 "$OUT/lib/"
  rpath=(-Wl,-rpath,'$ORIGIN/lib')
fi

# PCRE2, fuzz_regex's differential oracle: the system's, its shared object beside the targets.
pcre2_cflags=($(pkg-config --cflags libpcre2-8) -DMCPS_FUZZ_PCRE2)
pcre2_libs=($(pkg-config --libs libpcre2-8))
mkdir -p "$OUT/lib"
cp -L "$(pkg-config --variable=libdir libpcre2-8)"/libpcre2-8.so.0 "$OUT/lib/"
rpath=(-Wl,-rpath,'$ORIGIN/lib')

# The library's layers below the report (the suite loader pulls in most of the
# engine); the archive lets each target link only the objects it uses.
# The HTTP client and the server host are left out: they need libcurl, which
# the fuzzing image does not have, and no target reaches them; http_absent.c
# stands in for them, refusing every call. The same for the YAML reader of
# baselines (libyaml): yaml_absent.c.
lib_sources=("$root"/harness/{base,codec,uri,schema,transport,session,engine}/*.c
  "$root"/fuzz/oss-fuzz/http_absent.c "$root"/fuzz/oss-fuzz/yaml_absent.c)
# Compiles run $max_jobs at a time (OSS-Fuzz builders and CI machines have several cores).
# A job that fails leaves $WORK/failed behind, which fails the build once all have ended.
max_jobs=$(nproc 2>/dev/null || echo 2)
rm -f "$WORK/failed"
in_background() {
  while (($(jobs -rp | wc -l) >= max_jobs)); do wait -n || true; done
  { "$@" || touch "$WORK/failed"; } &
}
all_done() {
  wait
  [ ! -e "$WORK/failed" ] || { echo "build.sh: a compile or link failed (see above)" >&2; exit 1; }
}
objs=()
for src in "${lib_sources[@]}"; do
  case $src in */harness/transport/http*.c | */harness/transport/host.c) continue ;; esac
  case $src in */harness/engine/yaml_tree.c) continue ;; esac
  obj="$WORK/obj/mcps_$(basename "${src%.c}").o"
  in_background $CC $CFLAGS "${cflags[@]}" -c "$src" -o "$obj"
  objs+=("$obj")
done
all_done
rm -f "$WORK/libmcps.a"
ar rcs "$WORK/libmcps.a" "${objs[@]}"

$CC "${plain_cflags[@]}" "${cflags[@]}" -c "$root/fuzz/oracle_json.c" -o "$WORK/obj/oracle_json.o"

# One target: its binary, seed zip, dictionary (with the ones it extends) and options. It runs
# where -e is off (in_background's ||), hence the explicit returns.
build_target() {
  local src=$1 name target libs extra_cflags extra
  name=$(basename "${src%.c}")
  target=${name#fuzz_}
  libs=("${dep_libs[@]}")
  extra_cflags=()
  [ "$target" != uri ] || libs+=("${uri_libs[@]}")
  [ "$target" != regex ] || { libs+=("${pcre2_libs[@]}"); extra_cflags=("${pcre2_cflags[@]}"); }
  $CC "${plain_cflags[@]}" "${cflags[@]}" "${extra_cflags[@]}" -c "$src" -o "$WORK/obj/$name.o" ||
    return 1
  $link_cc $link_flags "$WORK/obj/$name.o" "$WORK/obj/oracle_json.o" -o "$OUT/$name" \
    "$WORK/libmcps.a" "${libs[@]}" $LIB_FUZZING_ENGINE "${rpath[@]}" -lm || return 1
  rm -f "$OUT/${name}_seed_corpus.zip"
  (cd "$root/corpus/$target" && zip -q -r "$OUT/${name}_seed_corpus.zip" .) || return 1
  cp "$root/fuzz/$target.dict" "$OUT/$name.dict"
  for extra in $(sed -n 's/^# extends: *//p' "$root/fuzz/$target.dict"); do
    cat "$root/fuzz/$extra" >>"$OUT/$name.dict"
  done
  cp "$root/fuzz/$target.options" "$OUT/$name.options"
}

for src in "$root"/fuzz/fuzz_*.c; do
  in_background build_target "$src"
done
all_done
