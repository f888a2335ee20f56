#!/usr/bin/env bash
# Installs the Debian packages libmtrace builds, tests and benchmarks with.
# Used by `make deps` and by CI.  GPL-3.0-or-later.
set -euo pipefail
packages=(build-essential pkg-config binutils-dev libiberty-dev check
          libzstd-dev zlib1g-dev zstd libdeflate-dev
          libunwind-dev libc-devtools clang libclang-rt-14-dev g++ gdb valgrind
          heaptrack hyperfine)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends "${packages[@]}"
