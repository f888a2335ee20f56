#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# variant.sh - build the tree another way in a copy of its own and run some
# of its test suites there, leaving the working tree's build alone.
#
# Usage: scripts/variant.sh NAME "MAKE VARIABLES" SUITE...
#   e.g. scripts/variant.sh clang "CC=clang CXX=clang++" unit checker:unit
# The copy is .build/NAME (VARIANT_DIR overrides .build); it is refreshed
# from the working tree each time, and incremental builds stay incremental
# (mk/common.mk's .flags stamps).  SUITE is a tests/ directory, or DIR:TARGET
# for one target of it (checker:unit).  What the variant's build leaves
# behind (libmtrace.so, mtrace-check) is in the copy, for other variants to
# use (sanitize.sh points the ASan checker's tests at the UBSan library).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
name=$1
vars=$2
shift 2
base=${VARIANT_DIR:-$top/.build}
dest=$base/$name
mkdir -p "$dest"

# The sources, not the build products: what git knows plus new files it
# does not ignore; without git, everything but the usual products.
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z -c -o --exclude-standard | grep -zv '^\.build/' |
		tar --null -T - -cf -) | tar -xf - -C "$dest"
else
	(cd "$top" && tar --exclude=./.build --exclude='*.o' --exclude='*.a' --exclude='*.so' \
		--exclude='*.d' --exclude=./tests/*/build --exclude=./tests/*/out -cf - .) |
		tar -xf - -C "$dest"
fi

jobs=$(nproc 2>/dev/null || echo 2)
echo "== variant $name ($vars): building in $dest"
start=$SECONDS
# shellcheck disable=SC2086 # VARS is a list of make assignments
if ! make --no-print-directory -C "$dest" -j"$jobs" $vars all >"$dest/build.log" 2>&1; then
	tail -30 "$dest/build.log"
	echo "variant $name: build failed (log: $dest/build.log)"
	exit 1
fi
echo "== variant $name: built in $((SECONDS - start)) s; suites: $*"
# shellcheck disable=SC2086
make --no-print-directory -C "$dest/tests" $vars SUITES="$*" check
