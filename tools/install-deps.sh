#!/usr/bin/env bash
# Installs the Debian packages yolort builds and tests with (idempotent; root or sudo).
# Usage: tools/install-deps.sh [--arm] [--fuzz]
#   --arm   adds the cross compilers and qemu-user; --fuzz adds clang and its libFuzzer runtime
set -euo pipefail
PKGS=(cmake make gcc g++ pkg-config libxnnpack-dev libcpuinfo-dev libpthreadpool-dev libturbojpeg0-dev
      libcmocka-dev libprotobuf-c-dev protobuf-c-compiler libonnx-dev python3-onnx python3-numpy python3-pip python3-setuptools valgrind)
for opt in "$@"; do
  case "$opt" in
    --arm) PKGS+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf qemu-user) ;;
    --fuzz) PKGS+=(clang libclang-rt-14-dev) ;;
    *) echo "install-deps: unknown option $opt" >&2; exit 2 ;;
  esac
done
command -v npm >/dev/null 2>&1 || PKGS+=(nodejs npm)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "install-deps: installing ${missing[*]}"
  # retried: a mirror mid-sync fails one index list for a few seconds (exit 100)
  for try in 1 2 3; do
    $SUDO apt-get update -qq && break
    [[ $try -lt 3 ]] && sleep 15
  done
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
