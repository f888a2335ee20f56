/* SPDX-License-Identifier: GPL-3.0-or-later */
/* timestamp.c - see timestamp.h. */
#include "log/timestamp.h"
#include "../include/mtrace-format.h"
#include "base/fmt.h"
#include <string.h>
#include <time.h>

uint64_t timestamp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

size_t timestamp_line(char *out, uint64_t ns)
{
    size_t n = sizeof MTF_REC_TIME - 1;
    memcpy(out, MTF_REC_TIME " ", n + 1);
    char *end = fmt_dec(out + n + 1, ns);
    *end++ = '\n';
    return (size_t)(end - out);
}
