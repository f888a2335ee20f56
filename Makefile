# libmtrace - top-level Makefile.  Each directory builds itself; this file
# only orders them and installs the results.
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR   = $(DESTDIR)$(PREFIX)/bin
LIBDIR   = $(DESTDIR)$(PREFIX)/lib
INCDIR   = $(DESTDIR)$(PREFIX)/include
MANDIR   = $(DESTDIR)$(PREFIX)/share/man
PCDIR    = $(LIBDIR)/pkgconfig
VERSION  = 0.1.0

.PHONY: all lib checker check demo bench deps install uninstall clean docs

all: lib checker

lib:
	$(MAKE) -C libmtrace

checker:
	$(MAKE) -C mtrace-check

check: all
	@$(MAKE) --no-print-directory -C tests check

deps:
	bash scripts/install-deps.sh

# The MEMLEAK_CONFIG tables of README.md and doc/libmtrace.3, from the
# option table in libmtrace/config.h.
docs:
	$(MAKE) -C libmtrace options-doc
	libmtrace/options-doc update README.md doc/libmtrace.3

demo: all
	$(MAKE) -C examples demo

bench: all
	$(MAKE) -C bench bench

install: all
	install -d $(BINDIR) $(LIBDIR) $(INCDIR) $(MANDIR)/man1 $(MANDIR)/man3 $(PCDIR)
	install -m 755 libmtrace/libmtrace.so $(LIBDIR)/libmtrace.so
	install -m 755 mtrace-check/mtrace-check $(BINDIR)/mtrace-check
	install -m 644 include/memleak.h include/mtrace-format.h $(INCDIR)/
	install -m 644 doc/mtrace-check.1 $(MANDIR)/man1/
	install -m 644 doc/libmtrace.3 $(MANDIR)/man3/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	    libmtrace/libmtrace.pc.in > $(PCDIR)/libmtrace.pc

uninstall:
	rm -f $(LIBDIR)/libmtrace.so $(BINDIR)/mtrace-check $(INCDIR)/memleak.h \
	      $(INCDIR)/mtrace-format.h $(MANDIR)/man1/mtrace-check.1 \
	      $(MANDIR)/man3/libmtrace.3 $(PCDIR)/libmtrace.pc

clean:
	$(MAKE) -C libmtrace clean
	$(MAKE) -C mtrace-check clean
	$(MAKE) -C tests clean
	-$(MAKE) -C examples clean
	-$(MAKE) -C bench clean
