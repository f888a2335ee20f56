/* config.h - MEMLEAK_CONFIG, a comma-separated list of options:
 *   mtraceinit        start collecting at load, without a call to mtrace()
 *   depth=N           frames kept per stack, 1..MTF_MAX_DEPTH
 *   classic           write glibc's lines only (no stack records)
 *   unwind=NAME       fast (default: our .eh_frame unwinder) | libunwind |
 *                     glibc | fp (frame pointers: only for code built with
 *                     -fno-omit-frame-pointer)
 *   signal=SIG        a report on signal SIG (USR2, SIGUSR2 or a number)
 *   report=PATTERN    where reports go: %p pid, %n sequence, %e program,
 *                     or "stderr"
 *   reach=0|1         the reachability scan at each report point (default 1)
 *   suppressions=FILE leak suppressions in LeakSanitizer's syntax
 * GPL-3.0-or-later. */
#ifndef MT_CONFIG_H
#define MT_CONFIG_H
#include <stddef.h>

enum unwinder { UNWIND_LIBUNWIND, UNWIND_GLIBC, UNWIND_FP, UNWIND_FAST };

#define CONFIG_PATTERN_MAX 512

struct config {
    int mtraceinit;
    int classic;
    int depth;
    enum unwinder unwinder;
    int report_signal;                       /* 0: none */
    char report_pattern[CONFIG_PATTERN_MAX]; /* "": the default */
    int reach;                               /* reachability scan on */
    char suppressions[CONFIG_PATTERN_MAX];   /* "": none */
};

/* The process's configuration, read once at start-up (control.c). */
extern struct config mt_config;
/* MALLOC_TRACE as read with secure_getenv, or NULL: no log. */
extern const char *mt_trace_path;

/* Called once per problem with a complete message line (no newline). */
typedef void (*config_warn_fn)(const char *message);

void config_defaults(struct config *c);
/* Parses TEXT (may be NULL) into C; an unknown or malformed option is
 * reported through WARN and skipped.  Returns the number of problems. */
int config_parse(struct config *c, const char *text, config_warn_fn warn);
/* "USR2", "SIGUSR2" or "12" -> signal number, or 0 (unknown, or a signal
 * that cannot carry reports: KILL, STOP and the fault signals). */
int config_signal_number(const char *name, size_t len);

#endif
