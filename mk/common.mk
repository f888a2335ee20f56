# SPDX-License-Identifier: GPL-3.0-or-later
# mk/common.mk - what every Makefile of the tree shares: warnings,
# dependency tracking, the DEBUG=1 and SAN=... build variants, and a stamp
# that rebuilds objects when the flags change.  Each Makefile includes it
# first thing; the variables below are only ingredients, each Makefile
# still says which of them its compile lines use.
#
#   make                       the release build (-O2, -O3 for the checker)
#   make DEBUG=1               -DMT_DEBUG -O1 -g: libmtrace's assertions on
#   make SAN=address,undefined a sanitizer build (also SAN=undefined,
#                              SAN=thread); scripts/sanitize.sh runs them
#   make CC=clang CXX=clang++  another compiler
#   make LTO=                  without link-time optimisation (on by
#                              default with GCC in libmtrace/ and
#                              mtrace-check/, off with clang, SAN, DEBUG)
#
# Switching between them rebuilds what changed: every object depends on
# .flags, a file holding the compile line, rewritten when it differs.

MK_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)

# Warnings are errors everywhere.  C++ gets what applies to it.
WARN_COMMON = -Wall -Wextra -Werror -Wshadow
WARN_C      = $(WARN_COMMON) -Wmissing-prototypes -Wstrict-prototypes
WARN_CXX    = $(WARN_COMMON)

# Each object gets a .d file naming the headers it read: a header change
# rebuilds what includes it, and nothing else.  -MP: a deleted header does
# not break the build.
DEPFLAGS = -MMD -MP

DEBUG ?=
ifeq ($(DEBUG),1)
# After the Makefile's own -O: the later -O wins.
DEBUG_FLAGS = -DMT_DEBUG -O1 -g
endif

SAN ?=
ifneq ($(SAN),)
SAN_FLAGS = -fsanitize=$(SAN) -fno-sanitize-recover=all \
            -fno-omit-frame-pointer -g
# gcc: "atomic_thread_fence is not supported with -fsanitize=thread"
# (TSan does not model a lone fence; forkgate.c's barriers use them).
ifneq ($(findstring thread,$(SAN)),)
SAN_FLAGS += $(if $(findstring clang,$(CC)),,-Wno-tsan)
endif
endif

# VARIANT_FLAGS go on every compile and link line of code that may be
# built in a variant (not on the traced test programs).
VARIANT_FLAGS = $(DEBUG_FLAGS) $(SAN_FLAGS)

# $(eval $(call track_flags,TEXT)): a rule that keeps the file .flags of
# the current directory equal to TEXT (the compile line), rewriting it only
# when TEXT changed; objects list $(FLAGS_STAMP) as a prerequisite, so that
# a build with other flags rebuilds them.  A rule run every time, not a
# write while the Makefile is read: make caches directory listings, and a
# file written behind its back may look missing (the pattern rules needing
# it would then give way to make's built-in ones).  It leaves the default
# goal alone.  TEXT must hold neither '$$', '#' nor a single quote.
FLAGS_STAMP = .flags
define track_flags
MK_SAVED_GOAL := $$(.DEFAULT_GOAL)
$(FLAGS_STAMP): FORCE
	@echo '$(strip $(1))' | cmp -s - $$@ || echo '$(strip $(1))' >$$@
.PHONY: FORCE
FORCE:
.DEFAULT_GOAL := $$(MK_SAVED_GOAL)
endef
