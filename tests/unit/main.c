/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c - runs every unit suite; exit status is non-zero on a failure.
 */
#include "unit.h"

int main(void)
{
    Suite *(*const suites[])(void) = {
        fmt_suite,      writer_suite,   config_suite,  cmap_suite,
        stacktab_suite, frametab_suite, livetab_suite, threadlog_suite,
        logfile_suite,  modmap_suite,   ehframe_suite, cfa_suite,
        sampler_suite,  mark_suite,     suppress_suite, elfsyms_suite,
        dynsyms_suite,  chunkwords_suite, mainarena_suite, writer_limits_suite,
        childenv_suite, writer_room_suite, counters_suite, offload_suite,
    };
    /* Each test needs fresh process-wide tables (stack ids from 1, an
     * empty live table): ut_main runs every test in its own child. */
    return ut_main(sizeof suites / sizeof suites[0], suites);
}
