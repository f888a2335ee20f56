#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# speed.sh - time mtrace-check against glibc's /usr/bin/mtrace on a log of
# about a million lines written by glibc's tracer for the 4-thread program
# (progs/threads.c), after checking that both print the same report.  Not
# part of "make check" (it takes a while); run by hand:
#     tests/checker/speed.sh [ROUNDS]        (default 130000: ~1.06M lines)
# SPEED_DIR=/dev/shm/x puts the log on tmpfs, out of reach of page-cache
# reclaim, which otherwise turns some runs into disk reads.
#
# Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
CHECK=$here/../../mtrace-check/mtrace-check
TRACER=/lib/x86_64-linux-gnu/libc_malloc_debug.so
dir=${SPEED_DIR:-$here/out/speed}
rounds=${1:-130000}

command -v hyperfine >/dev/null || { echo "speed: needs hyperfine"; exit 1; }
[ -x /usr/bin/mtrace ] || { echo "speed: needs /usr/bin/mtrace (libc-devtools)"; exit 1; }
mkdir -p "$dir"
cd "$dir"
gcc -g -O1 -pthread -o threads "$here/progs/threads.c"
GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1 \
	MALLOC_TRACE=big.log LD_PRELOAD=$TRACER ./threads "$rounds"
echo "log: $(wc -l <big.log) lines, $(du -m big.log | cut -f1) MB"
/usr/bin/mtrace threads big.log >perl.out 2>/dev/null || true
"$CHECK" threads big.log >c.out 2>/dev/null || true
cmp perl.out c.out
echo "identical reports ($(grep -c "duplicate\|never alloc'd" perl.out) warnings," \
	"$(grep -c '^0x' perl.out) leaks)"
MTRACE_CHECK_THREADS=2 "$CHECK" threads big.log | cmp - perl.out
hyperfine -N -i -w 2 -r 10 \
	-n "mtrace-check (one thread)" "env MTRACE_CHECK_THREADS=0 $CHECK threads big.log" \
	-n "mtrace-check (reader thread)" "env MTRACE_CHECK_THREADS=2 $CHECK threads big.log" \
	-n "/usr/bin/mtrace" "/usr/bin/mtrace threads big.log"
