#!/usr/bin/env bash
# Builds the project against the CUDA LibTorch of the host's python3 (pip's
# torch) into build-cuda/, so that `cuda` devices exist (docs/runtime.md, "CUDA
# devices"). pip's LibTorch ships no Gloo headers, so the trainer is left out
# (-DPLANNER_TRAINER=OFF). On a host without network, first unpack the packages
# scripts/cuda/fetch-debs.sh downloaded: PLANNER_DEBS=DIR unpacks DIR/*.deb
# into / (as root; only for a throwaway host). Extra arguments go to cmake's
# configure step.
set -euo pipefail
debs="${PLANNER_DEBS:+$(realpath "$PLANNER_DEBS")}"
cd "$(dirname "$0")/../.."
if [ -n "$debs" ]; then
  shopt -s nullglob
  packages=("$debs"/*.deb)
  if [ ${#packages[@]} -eq 0 ]; then
    echo "scripts/cuda/build.sh: no .deb files in $debs" >&2
    exit 1
  fi
  for f in "${packages[@]}"; do dpkg -x "$f" /; done
  ldconfig
  # Debian's libzmq.pc requires the .pc files of ZeroMQ's own dependencies
  # (Requires.private), which runtime packages do not ship: a minimal one.
  pc="$(mktemp -d)"
  cat >"$pc/libzmq.pc" <<PC
prefix=/usr
libdir=/usr/lib/$(gcc -dumpmachine)
includedir=/usr/include
Name: libzmq
Description: ZeroMQ
Version: 4.3.4
Libs: -L\${libdir} -lzmq
Cflags: -I\${includedir}
PC
  export PKG_CONFIG_PATH="$pc:${PKG_CONFIG_PATH:-}"
fi
# Or name the LibTorch with TORCH_PREFIX (the folder holding share/cmake/Torch).
torch_prefix="${TORCH_PREFIX:-$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')}"
# PLANNER_ONNX=OFF: Debian's libonnx is built on Debian's protobuf, which the
# GPU hosts' own protobuf need not match; pass -DPLANNER_ONNX=ON where it does.
cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_PREFIX_PATH="$torch_prefix" -DPLANNER_TRAINER=OFF -DPLANNER_ONNX=OFF "$@"
# PLANNER_TARGETS="a b": only those targets (a GPU session builds what it runs).
cmake --build build-cuda -j "$(nproc)" ${PLANNER_TARGETS:+--target $PLANNER_TARGETS}
