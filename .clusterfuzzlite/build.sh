#!/bin/bash -eu
# ClusterFuzzLite entry point: the real build is fuzz/oss-fuzz/build.sh, shared with OSS-Fuzz.
exec "$SRC/mcpspec/fuzz/oss-fuzz/build.sh"
