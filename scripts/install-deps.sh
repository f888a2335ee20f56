#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the Debian packages libmtrace builds, tests and benchmarks with.
# Used by `make deps` and by CI.  chromium: the HTML report's browser test
# (tests/html), headless, driven over a pipe with python3 alone.
# protobuf-c-compiler, libprotobuf-c-dev: mtrace-check --pprof's encoder
# (protoc-c turns mtrace-check/profile.proto into C at build time).
# golang-go: go tool pprof, the tests' reader of those profiles
# (tests/pprof); only the tests use it.
# cmake and libxml2-utils: mtrace-run under ctest -T memcheck, its XML
# checked with xmllint (tests/memcheck).
# python3-jsonschema: the SARIF file of mtrace-check --sarif validated
# against the SARIF 2.1.0 schema (tests/integration/tests-ci.sh).
set -euo pipefail
packages=(build-essential pkg-config binutils-dev libiberty-dev check
          libzstd-dev zlib1g-dev zstd libdeflate-dev
          protobuf-c-compiler libprotobuf-c-dev golang-go
          libunwind-dev libc-devtools clang libclang-rt-14-dev g++ gdb strace valgrind
          heaptrack hyperfine python3 python3-jsonschema chromium cmake libxml2-utils)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends "${packages[@]}"
