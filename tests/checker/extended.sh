# SPDX-License-Identifier: GPL-3.0-or-later
# extended.sh - part of compare.sh (sourced): logs written by libmtrace.so.
# The Perl script's output must be a prefix of mtrace-check's, with the
# same status; every resolved frame must agree with addr2line -C -f -i on
# OFFSET-1; C++ frames must show demangled template and member functions
# at the lines marked "CALL:" in the sources; a leak in a plugin that was
# dlclose()d must resolve to plugin.c.
#
# Copyright (C) 2026 the libmtrace authors.

if [ ! -e "$LIBMTRACE" ]; then
	echo "== extended logs: skipped (libmtrace/libmtrace.so not built)"
	return 0
fi
echo "== extended logs from libmtrace.so"

# reach=0: these logs are compared with the Perl script's output, which a
# log with reachability verdicts is not (it is reported by class; see
# tests/integration/tests-verdicts.sh).
lm_traced() {
	local log=$1
	shift
	(cd "$OUT" && MALLOC_TRACE=$log MEMLEAK_CONFIG=reach=0 LD_PRELOAD=$LIBMTRACE timeout 60 "$@" >/dev/null 2>&1)
}

# mark FILE TAG: the line number of the source line tagged "CALL:TAG".
mark() {
	grep -n "CALL:$2\\b" "$1" | head -1 | cut -d: -f1
}

# frames_agree_with_addr2line REPORT: every "#k FUNC at FILE:LINE (MOD+0xOFF)"
# whose file is known appears in addr2line's inline chain for OFF-1.
frames_agree_with_addr2line() {
	(cd "$OUT" && perl -e '
		my ($bad, $n, %seen) = (0, 0);
		while (<STDIN>) {
			next unless /^    #\d+ (.*) at (.*):(\d+) \((.*)\+0x([0-9a-f]+)\)( \[inlined\])?$/;
			my ($func, $file, $line, $mod, $off) = ($1, $2, $3, $4, hex($5));
			my $key = "$mod $off";
			$seen{$key} //= `addr2line -C -f -i -e '\''$mod'\'' 0x@{[sprintf("%x", $off - 1)]}`;
			my @out = split /\n/, $seen{$key};
			my $ok = 0;
			for (my $i = 0; $i + 1 < @out; $i += 2) {
				(my $loc = $out[$i + 1]) =~ s/ \(discriminator \d+\)$//;
				$ok = 1 if $out[$i] eq $func && $loc eq "$file:$line";
			}
			$n++;
			unless ($ok) { $bad++; print "  frame differs from addr2line: $_"; }
		}
		print "  ($n frames checked against addr2line)\n" if $ENV{VERBOSE};
		exit($bad ? 1 : ($n ? 0 : 2));' <"$1")
}

# functions_agree_with_addr2line REPORT: every "#k FUNC at FILE:? (MOD+0xOFF)"
# (a module without line information) names what addr2line -C -f names for
# OFF-1, at the file it gives; a "??" frame is one that no function
# symbol of MOD (readelf -s: its size, or up to the next symbol when 0)
# holds, where addr2line names the nearest one before it.
functions_agree_with_addr2line() {
	(cd "$OUT" && perl -e '
		my ($bad, $n, %seen, %syms) = (0, 0);
		sub covered {
			my ($mod, $pc) = @_;
			$syms{$mod} //= [ sort { $a->[0] <=> $b->[0] } map {
				my @f = split; @f >= 8 && $f[6] =~ /^\d+$/ && $f[3] ne "FILE" && $f[3] ne "SECTION" &&
				$f[3] ne "TLS" ? [hex($f[1]), $f[2] =~ /^0x/ ? hex($f[2]) : $f[2], $f[3]] : () }
				`readelf -sW '\''$mod'\''` ];
			my @s = @{$syms{$mod}};
			for my $i (0 .. $#s) {
				my ($v, $size, $type) = @{$s[$i]};
				next unless $type =~ /^(FUNC|IFUNC|NOTYPE)$/ && $v <= $pc;
				my $end = $v + $size;
				if ($size == 0) {
					my ($next) = grep { $_->[0] > $v } @s[$i .. $#s];
					$end = $next ? $next->[0] : $v + 1;
				}
				return 1 if $pc < $end;
			}
			return 0;
		}
		while (<STDIN>) {
			next unless /^    #\d+ (.*) at (.*):\? \((.*)\+0x([0-9a-f]+)\)$/;
			my ($func, $file, $mod, $off) = ($1, $2, $3, hex($4));
			if ($func eq "??" && $file eq "??") {
				$n++;
				next unless covered($mod, $off - 1);
				$bad++;
				print "  ?? where a function symbol holds the address: $_";
				next;
			}
			my $key = "$mod $off";
			$seen{$key} //= `addr2line -C -f -e '\''$mod'\'' 0x@{[sprintf("%x", $off - 1)]}`;
			my @out = split /\n/, $seen{$key};
			$n++;
			next if $out[0] eq $func && $out[1] eq "$file:?";
			$bad++;
			print "  function differs from addr2line (@out): $_";
		}
		print "  ($n functions checked against addr2line)\n" if $ENV{VERBOSE};
		exit($bad ? 1 : ($n ? 0 : 2));' <"$1")
}

# has_frame REPORT REGEX DESCRIPTION
has_frame() {
	if grep -Eq "$2" "$1"; then ok; else
		bad "$3: no frame matching /$2/ in $1"; fi
}

for v in pie nopie; do
	lm_traced lm-basic-$v.log ./basic-$v a b
	same_prefix "$OUT" basic-$v lm-basic-$v.log
	same_prefix "$OUT" lm-basic-$v.log
	cp "$OUT/.c.out" "$OUT/lm-basic-$v.report"
	if frames_agree_with_addr2line "$OUT/lm-basic-$v.report"; then ok; else
		bad "lm-basic-$v: frames disagree with addr2line"; fi
	has_frame "$OUT/lm-basic-$v.report" \
		"^    #1 main at .*basic.c:$(grep -n 'void \*a = make(100);' "$PROGS/basic.c" | cut -d: -f1) " \
		"basic-$v: the caller's line, not the line after"
done

for v in pie nopie; do
	lm_traced lm-cxx-$v.log ./cxx-$v
	same_prefix "$OUT" lm-cxx-$v.log
	same_prefix "$OUT" cxx-$v lm-cxx-$v.log
	r=$OUT/lm-cxx-$v.report
	cp "$OUT/.c.out" "$r"
	if frames_agree_with_addr2line "$r"; then ok; else bad "lm-cxx-$v: frames disagree with addr2line"; fi
	src=$PROGS/cxx.cc
	has_frame "$r" "#[0-9]+ demo::Box<long>::make\\(int\\) at .*cxx.cc:$(mark "$src" make) " \
		"C++ template member function"
	has_frame "$r" "#[0-9]+ demo::Node::grow\\(\\) at .*cxx.cc:$(mark "$src" grow) " \
		"C++ member function"
	has_frame "$r" "#[0-9]+ main at .*cxx.cc:$(mark "$src" main-make) " "call of Box<long>::make"
	has_frame "$r" "#[0-9]+ main at .*cxx.cc:$(mark "$src" main-grow) " "call of Node::grow"
	has_frame "$r" "#0 operator new" "operator new, demangled"
done

# -O2: grab() is inlined into fill(); both frames show, the inlined one
# first and marked, at the lines addr2line -i gives.
lm_traced lm-optimized.log ./optimized-pie
same_prefix "$OUT" optimized-pie lm-optimized.log
r=$OUT/lm-optimized.report
cp "$OUT/.c.out" "$r"
if frames_agree_with_addr2line "$r"; then ok; else bad "lm-optimized: frames disagree with addr2line"; fi
has_frame "$r" "#0 grab at .*optimized.c:$(mark "$PROGS/optimized.c" grab) \(.*\) \[inlined\]$" \
	"an inlined function, marked"
has_frame "$r" "#1 fill at .*optimized.c:[0-9]+ \(" "the function it was inlined into"

lm_traced lm-plugin.log ./useplugin ./plugin.so
same_prefix "$OUT" lm-plugin.log
same_prefix "$OUT" useplugin lm-plugin.log
r=$OUT/lm-plugin.report
cp "$OUT/.c.out" "$r"
if grep -q '^#u ' "$OUT/lm-plugin.log"; then ok; else bad "lm-plugin.log has no #u record"; fi
if frames_agree_with_addr2line "$r"; then ok; else bad "lm-plugin: frames disagree with addr2line"; fi
has_frame "$r" "#0 plugin_alloc at .*plugin.c:$(mark "$PROGS/plugin.c" plugin-malloc) \\(.*plugin.so\\+0x" \
	"leak in a dlclose()d plugin"
has_frame "$r" "plugin_name at .*plugin.c:$(mark "$PROGS/plugin.c" plugin-strdup) " \
	"strdup called from a dlclose()d plugin"

# Without DWARF: the functions come from the symbol table (symindex.c).
for p in nodebug cxx-nodebug; do
	lm_traced lm-$p.log ./$p
	same_prefix "$OUT" $p lm-$p.log
	r=$OUT/lm-$p.report
	cp "$OUT/.c.out" "$r"
	if functions_agree_with_addr2line "$r"; then ok; else
		bad "lm-$p: functions disagree with addr2line"; fi
done
has_frame "$OUT/lm-cxx-nodebug.report" "#[0-9]+ demo::Box<long>::make\\(int\\) at \\?\\?:\\? \\(" \
	"a C++ function named from the symbol table"

lm_traced lm-threads.log ./threads-pie 3000
same_prefix "$OUT" lm-threads.log
same_prefix "$OUT" threads-pie lm-threads.log
# The wrong program as BINARY: its build-id differs, the log's path is used.
same_prefix "$OUT" threads-pie lm-basic-pie.log
stack_part() { sed -n '/^Leaks grouped by allocation stack/,$p' "$1"; }
if [ -n "$(stack_part "$OUT/.c.out")" ] &&
	[ "$(stack_part "$OUT/.c.out")" = "$(stack_part "$OUT/lm-basic-pie.report")" ]; then ok; else
	bad "a BINARY that is not the traced program changed the stack report"; fi

for log in lm-basic-pie.log lm-cxx-pie.log lm-plugin.log; do
	(cd "$OUT" && "$CHECK" --json "$log" >.json 2>/dev/null)
	if json_ok "$OUT/.json" && perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
		exit(@{$j->{groups}} && @{$j->{groups}[0]{frames}} ? 0 : 1)' <"$OUT/.json"; then ok; else
		bad "--json on $log: no groups with frames"; fi
done

# A module moved away since the run: found again through its build-id in
# /usr/lib/debug/.build-id (when libc's debug file is installed).
libc_id=$(awk '$1 == "#m" && $5 == "/lib/x86_64-linux-gnu/libc.so.6" { print $4; exit }' \
	"$OUT/lm-basic-pie.log")
sed 's|/lib/x86_64-linux-gnu/libc.so.6|/nonexistent/libc.so.6|g' "$OUT/lm-basic-pie.log" \
	>"$OUT/lm-moved.log"
same_prefix "$OUT" lm-moved.log
if [ -n "$libc_id" ] && [ -e "/usr/lib/debug/.build-id/${libc_id:0:2}/${libc_id:2}.debug" ]; then
	if grep -q " at .*libc-start.c:[0-9]* (/nonexistent/libc.so.6+0x" "$OUT/.c.out"; then ok; else
		bad "lm-moved.log: libc frames not resolved through the build-id debug file"; fi
fi

# Module files that are gone, build-id unknown: frames fall back to the
# names of the log's "#f" records (as the tracer recorded them with dladdr).
sed 's|^\(#m [0-9]* 0x[0-9a-f]*\) [0-9a-f]* /lib/x86_64-linux-gnu/libc.so.6$|\1 - /nonexistent/libc.so.6|' \
	"$OUT/lm-basic-pie.log" >"$OUT/lm-gone.log"
same_prefix "$OUT" lm-gone.log
name=$(awk '$1 == "#f" { $1 = $2 = $3 = $4 = ""; sub(/^ +/, ""); print; exit }' "$OUT/lm-gone.log")
if [ -n "$name" ] && grep -Fq " $name at ??:? (/nonexistent/libc.so.6+0x" "$OUT/.c.out"; then ok; else
	bad "lm-gone.log: no frame named '$name' from the #f records"; fi
