/* SPDX-License-Identifier: GPL-3.0-or-later */
/* demangle.h - C++ symbol names made readable with libiberty's
 * cplus_demangle (DMGL_PARAMS | DMGL_ANSI, as addr2line -C and the
 * libmtrace writer use).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_DEMANGLE_H
#define MTC_DEMANGLE_H

/* A malloc'd readable form of NAME: demangled when it is a mangled C++
 * name, otherwise a copy of NAME. */
char *demangle_name(const char *name);

#endif
