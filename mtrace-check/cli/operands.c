/* SPDX-License-Identifier: GPL-3.0-or-later */
/* operands.c - telling BINARY from a LOG (see operands.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "cli/operands.h"
#include "output/memlog.h"
#include "mtrace-format.h"
#include "read/source.h"

#include <string.h>

int looks_like_log(const char *path)
{
    char head[64];

    if (strcmp(path, "-") == 0)
        return 1;
    if (src_peek(path, head, sizeof head) < 0)
        return 0;
    size_t start = strlen(MTF_START);
    if (strncmp(head, MTF_START, start) == 0 &&
        (head[start] == '\n' || head[start] == '\0'))
        return 1;
    return memlog_is_report(head);
}

int first_is_binary(char *const *operands, int n)
{
    return n > 1 && !looks_like_log(operands[0]);
}
