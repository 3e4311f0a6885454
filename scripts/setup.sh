#!/usr/bin/env bash
# Installs every Debian package the project needs (docs/architecture.md lists why
# each is here). Idempotent: when all are present it changes nothing and does not
# touch the network.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  googletest libgtest-dev libgmock-dev
  libprotobuf-dev protobuf-compiler
  libyaml-cpp-dev libcli11-dev
  libtorch-dev libopenblas0-pthread
  libgloo-dev python3-torch
  libzmq3-dev cppzmq-dev
  libscotch-dev libmetis-dev libglpk-dev
  dataset-fashion-mnist zlib1g-dev
  libonnx-dev libonnx-testdata python3-onnx python3-torchvision python3-yaml
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
