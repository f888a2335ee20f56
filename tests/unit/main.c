/* main.c - runs every unit suite; exit status is non-zero on a failure.
 * GPL-3.0-or-later. */
#include "unit.h"
#include <stdlib.h>

int main(void)
{
    Suite *(*const suites[])(void) = {
        fmt_suite,      writer_suite,   config_suite,  cmap_suite,
        stacktab_suite, frametab_suite, livetab_suite, threadlog_suite,
        logfile_suite,  modmap_suite,   ehframe_suite, cfa_suite,
        sampler_suite,  mark_suite,     suppress_suite,
    };
    SRunner *sr = srunner_create(NULL);
    for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++)
        srunner_add_suite(sr, suites[i]());
    /* Each test needs fresh process-wide tables (stack ids from 1, an
     * empty live table): run every test in its own child, whatever
     * CK_FORK says. */
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
