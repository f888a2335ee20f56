# SPDX-License-Identifier: GPL-3.0-or-later
# tests-compat.sh - glibc compatibility: classic mode line by line against
# libc_malloc_debug.so, allocator semantics, and real programs run unchanged.
# Sourced by run-tests.sh; each t_NAME runs in its own temporary directory.

# normalize LOG: pointers become block ids B1, B2, ... numbered in order of
# allocation ("+", ">"); a "-", "<" or "!" names the live block at that
# address.  Raw addresses cannot be compared: glibc's tracer mallocs its FILE
# in the traced heap, which shifts memalign's split remainders and thus
# which freed chunk a later malloc reuses.
normalize() {
	awk '{
		i = ($1 == "@") ? 3 : 1
		p = $(i + 1)
		if ($i == "+" || $i == ">")
			live[p] = "B" (++n)
		if ($i ~ /^[-+<>!]$/)
			$(i + 1) = (p in live) ? live[p] : "?" p
		if ($i == "-" || $i == "<")
			delete live[p]
		print
	}' "$1"
}

# classic_case PROGRAM "SIZES": MEMLEAK_CONFIG=classic writes glibc's lines.
classic_case() {
	need_libmtrace || return
	rm -f log glibc.log
	setarch -R env MALLOC_TRACE=glibc.log LD_PRELOAD="$GLIBC_TRACER" "$BUILD/$1" >/dev/null ||
		{ fail "$1: glibc run failed"; return 1; }
	setarch -R env MALLOC_TRACE=log MEMLEAK_CONFIG=classic LD_PRELOAD="$LIB" "$BUILD/$1" >/dev/null 2>err ||
		{ fail "$1: classic run failed"; return 1; }
	[ ! -s err ] || { fail "$1: stderr: $(cat err)"; return 1; }
	normalize glibc.log >glibc.norm
	normalize log >ours.norm
	diff -u glibc.norm ours.norm >diff.out ||
		{ fail "$1: classic log differs from glibc's (- glibc, + ours):"; head -30 diff.out; return 1; }
	MODE=classic expect_leaks "$BUILD/$1" log "$2" || return 1
	extended_matches "$1"
}

# extended_matches PROGRAM: the default (extended) log without its "#"
# records and "sN" fields is the classic log (glibc.norm from classic_case)
# without the "@ WHERE" of its releases ("-" and "<" lines, doc/format.md).
extended_matches() {
	rm -f log
	setarch -R env MALLOC_TRACE=log LD_PRELOAD="$LIB" "$BUILD/$1" >/dev/null 2>err ||
		{ fail "$1: extended run failed"; return 1; }
	grep -v '^#' log | sed -E 's/ s[0-9]+$//' >stripped
	normalize stripped >stripped.norm
	sed -E 's/^@ [^ ]+ ([-<] )/\1/' glibc.norm >glibc.releases.norm
	diff -u glibc.releases.norm stripped.norm >diff.out ||
		{ fail "$1: extended log minus extensions differs from glibc's (- glibc, + ours):"; head -30 diff.out; return 1; }
}

t_classic() { classic_case classic "6 48 60 100 256 512 4096 4097"; }
t_classic_nopie() { classic_case classic_nopie "6 48 60 100 256 512 4096 4097"; }

# More programs: static functions, strdup, C++ (WHERE keeps the mangled
# names dladdr gives, e.g. _Znwm), no muntrace() before exit.
t_classic_more() {
	classic_case leak_static "63 100 200 5000" &&
		classic_case leak_strdup "5 13 41" &&
		classic_case leak_template "40 100 120 128" &&
		classic_case exitpaths "31 62 93"
}

# The program's own view of the allocator is the same natively, under
# libmtrace and under glibc's tracer.
t_semantics() {
	"$BUILD/semantics" >native.out || { fail "native run failed"; return 1; }
	traced log "$BUILD/semantics" >out 2>err || { fail "exit status $?"; return 1; }
	diff -u native.out out >diff.out || { fail "results differ (- native, + traced):"; cat diff.out; return 1; }
	[ ! -s err ] || { fail "stderr: $(cat err)"; return 1; }
	glibc_traced glibc.log "$BUILD/semantics" >glibc.out 2>&1
	cmp -s native.out glibc.out || note "glibc's tracer changes the results: $(diff native.out glibc.out | head -5)"
	expect_leaks "$BUILD/semantics" log ""
}

# same_run NAME CMD...: run CMD natively in ./native and traced from load
# (mtraceinit) in ./traced with its logs in ./logs/NAME*; same stdout and
# exit status required, and no never-alloc'd line in any log.
same_run() {
	local name=$1 st native_st
	shift
	mkdir -p native traced logs
	(cd native && limited "$@") >"$name.native" 2>/dev/null
	native_st=$?
	(cd traced && traced "$T/logs/$name" MEMLEAK_CONFIG=mtraceinit "$@") >"$name.traced" 2>"$name.err"
	st=$?
	[ $st -eq $native_st ] || { fail "$name: exit status $st, natively $native_st: $(head -c 300 "$name.err")"; return 1; }
	cmp -s "$name.native" "$name.traced" ||
		{ fail "$name: stdout differs:"; diff "$name.native" "$name.traced" | head -10; return 1; }
	! grep -q '^libmtrace:' "$name.err" || { fail "$name: $(grep '^libmtrace:' "$name.err")"; return 1; }
	[ -s "logs/$name" ] || { fail "$name: no log written"; return 1; }
	check_trace_logs "logs/$name"
}

# summarize_logs: one note line on what the real-program logs contained.
summarize_logs() {
	local f n=0 lines=0
	for f in logs/*; do
		[[ $f != *.memlog ]] || continue
		n=$((n + 1))
		lines=$((lines + $(wc -l <"$f")))
	done
	note "$n log(s), $lines lines"
}

t_real_python() {
	need_libmtrace || return
	local py=/usr/bin/python3
	[ -x $py ] || py=$(command -v python3) || { skip "no python3"; return; }
	same_run python $py -c '
import json, re, decimal, collections, subprocess
d = {str(i): list(range(i % 10)) for i in range(20000)}
r = subprocess.run(["/bin/echo", "from a child"], capture_output=True, text=True)
c = collections.Counter(re.findall(r"[a-z]+", json.dumps({"k": ["abc def"] * 500})))
print(decimal.Decimal(1) / decimal.Decimal(7), c.most_common(2), r.stdout.strip())
l = sorted(d, key=lambda k: (len(d[k]), k))
s = set(x * 3 for x in range(5000))
print(len(d), l[-1], sum(len(v) for v in d.values()), len(s))' || return 1
	summarize_logs
}

t_real_perl() {
	need_libmtrace || return
	same_run perl /usr/bin/perl -e '
my %h; $h{$_} = $_ * 2 for 1 .. 20000;
my @k = sort { $a <=> $b } keys %h;
my $s = join ",", map { uc } qw(alpha beta gamma);
print scalar(@k), " $k[-1] $s\n";' || return 1
	summarize_logs
}

t_real_bash() {
	need_libmtrace || return
	same_run bash /bin/bash -c '
x=0; for i in $(seq 1 2000); do x=$((x + i)); done
a=(); for i in {1..500}; do a+=("v$i"); done
declare -A m; for i in {1..300}; do m[k$i]=$i; done
echo "$x ${#a[@]} ${a[499]} ${m[k300]}"; exit 3' || return 1
	summarize_logs
}

# A script that opens descriptors 3..12 with "exec N>FILE" (bash dup2()s
# over whatever is there) must find exactly its own text in the files.
# Each $(...) is a fork, which writes the log out while 3..12 are open;
# 5 rounds make 50 of them (30 rounds made 300, each child a log of its
# own checked with glibc's mtrace: 100 s of CPU, nothing more tested).
t_real_bash_fds() {
	need_libmtrace || return
	same_run bash /bin/bash -c '
for fd in 3 4 5 6 7 8 9 10 11 12; do eval "exec $fd>o$fd"; done
for i in 1 2; do for fd in 3 4 5 6 7 8 9 10 11 12; do echo "$i $(echo fd$fd)" >&$fd; done; done
for fd in 3 4 5 6 7 8 9 10 11 12; do eval "exec $fd>&-"; done
cat o3 o4 o5 o6 o7 o8 o9 o10 o11 o12 | md5sum; wc -c o3 o4 o5 o6 o7 o8 o9 o10 o11 o12' || return 1
	summarize_logs
}

t_real_gcc() {
	need_libmtrace || return
	printf '#include <stdio.h>\nstatic int sq(int x) { return x * x; }\nint main(void) { printf("%%d\\n", sq(12)); return 0; }\n' >hello.c
	mkdir -p native traced && cp hello.c native/ && cp hello.c traced/
	same_run gcc gcc -O2 -o hello hello.c || return 1
	[ "$(traced/hello)" = 144 ] || { fail "compiled program does not print 144"; return 1; }
	summarize_logs
}

t_real_git() {
	need_libmtrace || return
	command -v git >/dev/null || { skip "git is not installed"; return; }
	export HOME=$T GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
	local g=(git -c user.name=Tester -c user.email=t@example.org -c init.defaultBranch=main)
	mkdir -p native/repo traced/repo
	printf 'line %s\n' $(seq 100) >native/repo/f
	cp native/repo/f traced/repo/f
	same_run init "${g[@]}" -C repo init -q || return 1
	same_run add "${g[@]}" -C repo add f || return 1
	same_run commit "${g[@]}" -C repo commit -q -m 'first commit' || return 1
	same_run log "${g[@]}" -C repo log --format='%H %s' || return 1
	summarize_logs
}

t_real_sort() {
	need_libmtrace || return
	awk 'BEGIN { srand(42); for (i = 0; i < 200000; i++) printf "%d %s\n", int(rand() * 1e9), (i % 7 ? "x" : "yy") }' >data
	mkdir -p native traced && cp data native/ && cp data traced/
	same_run sort sort -k1,1n -S 4M data || return 1
	summarize_logs
}
