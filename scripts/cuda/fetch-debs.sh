#!/usr/bin/env bash
# Downloads, on a Debian bookworm host with network, the packages that a GPU host
# without network lacks for `scripts/cuda/build.sh` (ZeroMQ, METIS, Scotch and
# their runtime libraries, CLI11's headers, GLPK), into DIR (default .cuda-debs/, which git ignores).
# The rest (protobuf, yaml-cpp, googletest, zlib) were on the GPU hosts tried;
# docs/runtime.md, "CUDA devices".
set -euo pipefail
dir="${1:-$(dirname "$0")/../../.cuda-debs}"
mkdir -p "$dir"
cd "$dir"
apt-get download libzmq5 libzmq3-dev cppzmq-dev libsodium23 libpgm-5.3-0 libnorm1 \
  libmetis5 libmetis-dev libscotch-7.0 libscotch-dev libcli11-dev libglpk40 libglpk-dev libamd2 libcolamd2 libsuitesparseconfig5 libltdl7 libgmp10
ls -1 "$PWD"/*.deb
