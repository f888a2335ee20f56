/* SPDX-License-Identifier: GPL-3.0-or-later */
/* demangle.c - C++ demangling through libiberty (see demangle.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "symbolize/demangle.h"
#include "base/util.h"

#include <libiberty/demangle.h>
#include <stdlib.h>

char *demangle_name(const char *name)
{
    /* Only Itanium-ABI names ("_Z...") are worth the call; C names pass. */
    if (name[0] == '_' && name[1] == 'Z') {
        char *d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
        if (d) {
            /* libiberty allocates with its xmalloc (malloc): ours to free. */
            return d;
        }
    }
    return xstrdup(name);
}
