#!/usr/bin/perl
# SPDX-License-Identifier: GPL-3.0-or-later
# gen-logs.pl - writes odd MALLOC_TRACE logs for compare.sh into DIR:
# hand-made lines exercising the Perl checker's quirks, random logs, and
# mutations of the real logs given after DIR.  Deterministic (fixed seed).
# Only the input is made here; the expected output always comes from
# running /usr/bin/mtrace on it.
#
# Copyright (C) 2026 the libmtrace authors.
use strict;
use warnings;

my ($dir, @real) = @ARGV;
mkdir $dir or die "mkdir $dir: $!" unless -d $dir;
srand(20261122);

sub write_log {
	my ($name, $text) = @_;
	open(my $f, '>:raw', "$dir/$name") or die "$dir/$name: $!";
	print $f $text;
	close $f;
}

# The quirks, one per line; see location() and the main loop of mtrace.
write_log('quirks.log', join('', map { "$_\n" } (
	'= Start',
	'@ ./basic-pie:[0x11c1] + 0x10 0x5',
	'@ ./basic-pie:[0x11c1] + 0x010 0x6',
	'+ 0x10 0x7',
	'+ 10 0x8',
	'- 10',
	'> 20 0x9',
	'> 20 0xa',
	'< 30',
	'@ [0x1234] + 0x40 0x1_0',
	'@ foo:bar:[0x99]:x + 0x41 0xffffffffffffffffff',
	'@ [0xabc]:f + 0x42 x1f',
	'@ weird + 0x43 0X1F',
	'@ ]:[0x1]] + 0x44 1_2',
	"  \t + 0x45 0x10",
	'@ + 0x46 0x1',
	'@',
	'+', '-', '<', '>', '!  0x10 0x5', '! 0x10',
	'= End',
	'+ 0x47',
	'+ 0xZZ 0x1',
	'+ 0x 0x1',
	'+ 0x48 0x1 extra fields here',
	'- 0x48 s99',
	'@ /lib/x86_64-linux-gnu/libc.so.6:(__strdup+1a)[0x9e9aa] + 0x49 0x6',
	'@ /lib/x86_64-linux-gnu/libc.so.6:[0x9e9aa] + 0x49 0x6',
	'@ ./basic-pie:[0x9e9aa] + 0x4b 0x6',
	'@ [0x9e9aa]:z + 0x4c 0x1',
	'@ nosuch.so:[0x10] + 0x4d 1',
	'@ :[0x11c2] + 0x4e 1',
	'@ ./basic-pie:(main+0x10)[0x11c3] + 0x4f 1',
	'@ a[0xb]c:[0x11c4] + 0x50 1',
	'@ ./basic-pie:[0x11c5 + 0x51 1',
	'@ [0x[0x11c6] + 0x52 1',
	'@ x:[0x11c7]junk + 0x53 1',
	'@ [0x11c8]: + 0x54 1',
	'@ [0x11c9]:ab + 0x55 1',
	'@ ./basic-pie:[0x11C1] + 0x56 1',
	'@ ./basic-pie:[0x] + 0x57 1',
	'@ ./basic-pie:[0xffffffffffffffffffff] + 0x58 1',
	'@ ./basic-pie:[0x0011c1] + 0xABCDEF 0x1',
	'+ 0xffffffffffffffffffffff 0x1',
	'+ 0x0 0',
	'- 0x0',
	'- 0x59',
	'@ ./basic-pie:[0x11c1] - 0x59',
	'@ ./basic-pie:[0x11d0] < 0x5a',
	'@ ./basic-pie:[0x11c1] > 0x10 0x20',
	'@ /lib/x86_64-linux-gnu/libc.so.6:[0x27305] > 0x10 0x20',
	"+ 0x60 0x1\r",
	"\f+ 0x61\x0b0x2",
)));

# Extended logs written by hand: records with unknown or dangling ids,
# malformed records, modules that do not exist or are not ELF.  Only the
# Perl part of the output and the status are compared; the rest must
# simply not crash.
my $libc = '/lib/x86_64-linux-gnu/libc.so.6';
write_log('ext-dangling.log', join('', map { "$_\n" } (
	'= Start',
	'#v 1 pid=1 depth=32 unwinder=libunwind',
	'#p /nonexistent/prog',
	"#m 0 0x555555554000 - /nonexistent/prog",
	"#m 1 0x7f0000000000 - $libc",
	'#m 2 0x0 - /etc/passwd',
	'#m 3 0x0 zz /dev/null',
	'#m x 0x0 - /broken',
	'#m 4',
	'#f 1 0x9e9aa 0x1a __strdup',
	'#f 9 0x10 0x1 dangling_module',
	'#f 1 zz 0x1 bad',
	'#f - 0x7fff00001234 0x4 jitted code (anonymous)',
	'#f - 0x7fff00001234',
	'#s 1 0:0x11c1 1:0x9e9aa 7:0x10 -:0x7fff00001234 2:0x10 3:0x1 junk 1:0xzz',
	'#s 2',
	'#s 3 1:0x27305',
	'#s 99999999999999999999 1:0x1',
	'#u 1', '#u 42', '#u',
	'#x unknown record', '# a comment',
	'@ /nonexistent/prog:[0x11c1] + 0x1000 0x40 s1',
	'+ 0x2000 0x10 s2',
	'+ 0x3000 0x10 s3',
	'+ 0x4000 0x10 s77',
	'+ 0x5000 0x10 sx',
	'+ 0x6000 0x10',
	'- 0x6000 s3',
	'< 0x3000 s3',
	'> 0x3000 0x80 s3',
	'! 0x3000 0x80 s3',
	'+ 0x7000 0xffffffffffffffff s1',
	'+ 0x8000 0xffffffffffffffff s1',
)));
write_log('ext-quirks.log', "= Start\n#v 1 pid=1\n#s 1 0:0x10\n+ 0x62 0x3 s1\n+ 0x62 0x4 s1\n" .
	  "#v\n#v x\n- 0x70 s1\n");

write_log('empty-lines.log', "\n\n\n+ 0x1 0x2\n\n- 0x3\n");
write_log('truncated.log', "= Start\n+ 0x1 0x10\n+ 0x2 0x20\n- 0x1\n+ 0x3 0x");
write_log('nul-bytes.log', "= Start\n+ 0x1\0 0x10\n+ 0x2 0x2\0 0\n@ a\0b:[0x1] - 0x9\n" .
	  "@ [0x1\0]:q + 0x4 0x1\n\0\0\0\n+ \0 0x1\n- 0x1\0\n");
write_log('crlf.log', "= Start\r\n+ 0x1 0x10\r\n- 0x1\r\n+ 0x2 0x20\r\n= End\r\n");
write_log('long-line.log', "+ 0x1 0x2\n@ " . ('x' x 3_000_000) . ":[0x11c1] + 0x2 0x3\n" .
	  "- 0x5 " . ('y' x 2_000_000) . "\n@ " . ('z' x 1_500_000) . " - 0x9\n");
write_log('only-newlines.log', "\n" x 1000);

# Random events over a small address space, so duplicates and never
# alloc'd frees are frequent.  WHERE fields use names a shell would not
# interpret, since the Perl script passes them to a shell via addr2line.
my @progs = ('./basic-pie', 'basic-pie', '/lib/x86_64-linux-gnu/libc.so.6', './plugin.so',
	     'nonexistent', '/etc/passwd', '', 'a/b');
sub rand_hex { sprintf('0x%x', int(rand($_[0]))) }
# Caller addresses come from a pool of 16 per log: the Perl script runs
# one addr2line per distinct location it prints (over a second of CPU per
# log when every address was new), and 16 still cover every kind.
my @pool;
sub rand_where {
	my $p = $progs[int(rand(@progs))];
	my $a = $pool[int(rand(@pool))];
	my $k = int(rand(6));
	return "$p:[$a]" if $k == 0 || $k == 1;
	return "$p:(f+1a)[$a]" if $k == 2;
	return "[$a]" if $k == 3;
	return "[$a]:" . chr(97 + int(rand(26))) if $k == 4;
	return 'junk' . int(rand(5));
}
sub rand_line {
	my $r = rand();
	my $addr = rand() < 0.95 ? rand_hex(64) : int(rand(64));
	my $size = rand() < 0.9 ? rand_hex(5000) : int(rand(50));
	my $at = rand() < 0.85 ? '@ ' . rand_where() . ' ' : '';
	return "$at+ $addr $size" if $r < 0.35;
	return "$at- $addr" if $r < 0.65;
	return "$at< $addr" if $r < 0.75;
	return "$at> $addr $size" if $r < 0.85;
	return "$at! $addr $size" if $r < 0.88;
	return '= Start' if $r < 0.9;
	return '#m 1 0x0 - /x' if $r < 0.92;
	return join(' ', map { rand_where() } 1 .. 3) if $r < 0.95;
	return '';
}
for my $i (1 .. 12) {
	@pool = map { rand() < 0.8 ? rand_hex(0x3000) : rand_hex(0xa0000) } 1 .. 16;
	write_log(sprintf('random-%02d.log', $i),
		  join('', map { rand_line() . "\n" } 1 .. 150 + int(rand(400))));
}

# Mutations of real logs: dropped, repeated and swapped lines, altered
# digits, stray bytes, cut at a random byte.
sub mutate {
	my @lines = @_;
	for (1 .. 1 + int(rand(8))) {
		my $k = int(rand(6));
		my $i = int(rand(@lines));
		if ($k == 0) { splice(@lines, $i, 1) }
		elsif ($k == 1) { splice(@lines, $i, 0, $lines[$i]) }
		elsif ($k == 2) { my $j = int(rand(@lines)); @lines[$i, $j] = @lines[$j, $i] }
		elsif ($k == 3) { $lines[$i] =~ s/([0-9a-f])(?=[0-9a-f]* )/sprintf('%x', int(rand(16)))/e }
		elsif ($k == 4) {
			my @stray = ("\0", "\x01", "\x7f", "\xff", "\xc3\xa9", "\t", "\r", 'zz');
			substr($lines[$i], int(rand(length($lines[$i]) + 1)), 0) = $stray[int(rand(@stray))];
		}
		else { $lines[$i] = '' }
	}
	my $text = join('', map { "$_\n" } @lines);
	$text = substr($text, 0, int(rand(length($text)))) if rand() < 0.3;
	return $text;
}
my $m = 0;
for my $src (@real) {
	open(my $f, '<:raw', $src) or next;
	my @lines = map { chomp; $_ } <$f>;
	close $f;
	next unless @lines;
	@lines = @lines[0 .. 2999] if @lines > 3000;
	write_log(sprintf('mutant-%02d.log', ++$m), mutate(@lines)) for 1 .. 4;
}

# Binary junk.
write_log('garbage.log', join('', map { chr(int(rand(256))) } 1 .. 20000));
