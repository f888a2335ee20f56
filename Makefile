# SPDX-License-Identifier: GPL-3.0-or-later
# libmtrace - top-level Makefile.  Each directory builds itself; this file
# only orders them and installs the results.  Flags and build variants
# (DEBUG=1, SAN=..., CC=clang) are in mk/common.mk.
#
#   make check           every test suite (tests/README.md)
#   make check-stress    the integration suite N times (N=5) beside busy loops
#   make sanitize        ASan+UBSan, UBSan and TSan builds and their suites
#   make fuzz            the checker's fuzz harness for FUZZ_LONG seconds
#   make DEBUG=1 check   libmtrace's assertions compiled in
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR   = $(DESTDIR)$(PREFIX)/bin
LIBDIR   = $(DESTDIR)$(PREFIX)/lib
INCDIR   = $(DESTDIR)$(PREFIX)/include
MANDIR   = $(DESTDIR)$(PREFIX)/share/man
PCDIR    = $(LIBDIR)/pkgconfig
include mk/version.mk

N ?= 5

.PHONY: all lib checker run check check-stress sanitize fuzz demo bench deps \
        install uninstall clean docs

all: lib checker run

lib:
	$(MAKE) -C libmtrace

checker:
	$(MAKE) -C mtrace-check

# valgrind memcheck's stand-in (mtrace-run(1))
run:
	$(MAKE) -C mtrace-run

# make check builds on every CPU unless -j was given (a 2-core machine
# builds in 33 s instead of 57 s); the suites then run side by side
# (tests/run-all.sh).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
check:
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(JOBS)) all
	@$(MAKE) --no-print-directory -C tests check

check-stress: all
	@$(MAKE) --no-print-directory -C tests/integration all
	bash scripts/check-stress.sh $(N)

sanitize:
	bash scripts/sanitize.sh

fuzz: checker
	@$(MAKE) --no-print-directory -C tests/fuzz fuzz

deps:
	bash scripts/install-deps.sh

# The MEMLEAK_CONFIG tables of README.md and doc/libmtrace.3, from the
# option table in libmtrace/config.h; the SYNOPSIS and OPTIONS of
# doc/mtrace-check.1, from mtrace-check/options/options.h; the version in the man
# pages' .TH lines, from mk/version.mk.
docs:
	$(MAKE) -C libmtrace options-doc
	libmtrace/options-doc update README.md doc/libmtrace.3
	$(MAKE) -C mtrace-check options-doc
	mtrace-check/options-doc update doc/mtrace-check.1
	sed -i -E 's/^(\.TH .*"libmtrace )[^"]*"/\1$(VERSION)"/' doc/*.[0-9]

demo: all
	$(MAKE) -C examples demo

bench: all
	$(MAKE) -C bench bench

install: all
	install -d $(BINDIR) $(LIBDIR) $(INCDIR) $(MANDIR)/man1 $(MANDIR)/man3 $(PCDIR)
	install -m 755 libmtrace/libmtrace.so $(LIBDIR)/libmtrace.so
	install -m 755 mtrace-check/mtrace-check $(BINDIR)/mtrace-check
	install -m 755 mtrace-run/mtrace-run $(BINDIR)/mtrace-run
	install -m 644 include/memleak.h include/mtrace-format.h $(INCDIR)/
	install -m 644 doc/mtrace-check.1 doc/mtrace-run.1 $(MANDIR)/man1/
	install -m 644 doc/libmtrace.3 doc/memleak_report.3 $(MANDIR)/man3/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	    libmtrace/libmtrace.pc.in > $(PCDIR)/libmtrace.pc

uninstall:
	rm -f $(LIBDIR)/libmtrace.so $(BINDIR)/mtrace-check $(BINDIR)/mtrace-run \
	      $(MANDIR)/man1/mtrace-run.1 $(INCDIR)/memleak.h \
	      $(INCDIR)/mtrace-format.h $(MANDIR)/man1/mtrace-check.1 \
	      $(MANDIR)/man3/libmtrace.3 $(MANDIR)/man3/memleak_report.3 \
	      $(PCDIR)/libmtrace.pc

clean:
	rm -rf .build
	$(MAKE) -C libmtrace clean
	$(MAKE) -C mtrace-check clean
	$(MAKE) -C mtrace-run clean
	$(MAKE) -C tests clean
	-$(MAKE) -C examples clean
	-$(MAKE) -C bench clean
