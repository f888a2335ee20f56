# SPDX-License-Identifier: GPL-3.0-or-later
# mk/version.mk - the version of libmtrace, in one place: the top Makefile
# (libmtrace.pc), mtrace-check --version and, through `make docs`, the
# .TH lines of the man pages take it from here.
VERSION = 0.1.0
