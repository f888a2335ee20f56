/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config.h - MEMLEAK_CONFIG, a comma-separated list of options.
 *
 * Every option is described once, in CONFIG_OPTIONS below: the struct's
 * fields, the defaults, the parser, `MEMLEAK_CONFIG=help` and the option
 * tables of README.md and doc/libmtrace.3 (written by `make docs`, checked
 * by the unit suite) are all made from it. */
#ifndef MT_CONFIG_H
#define MT_CONFIG_H
#include "../include/mtrace-format.h"
#include <stddef.h>

/* Option kinds: FLAG (no value), NUMBER (decimal in LO..HI), CHOICE (one
 * of the names in CHOICES, stored as its index), SIGNAL (a signal that
 * can carry reports), TEXT (a string of at most CONFIG_TEXT_MAX - 1),
 * SIZE (bytes in LO..HI: decimal with an optional k, m or g suffix),
 * SECONDS (a duration, decimal with up to 6 digits after a point, stored
 * in microseconds; LO..HI in microseconds too). */
#define CONFIG_TEXT_MAX 512

enum unwinder { UNWIND_FAST, UNWIND_LIBUNWIND, UNWIND_GLIBC, UNWIND_FP };
#define CONFIG_UNWINDERS "fast", "libunwind", "glibc", "fp"
enum compress { COMPRESS_AUTO, COMPRESS_NONE, COMPRESS_ZSTD };
#define CONFIG_COMPRESSORS "auto", "none", "zstd"
enum log_kind { LOG_FULL, LOG_LIVE };
#define CONFIG_LOGS "full", "live"

/* X(NAME, KIND, DEFAULT, LO, HI, CHOICES, ARG, HELP) */
#define CONFIG_OPTIONS(X)                                                      \
    X(mtraceinit, FLAG, 0, 0, 0, NULL, "",                                     \
      "start collecting when the library loads, without any mtrace() "         \
      "call; the verdicts at exit go into the log, and a final report is "     \
      "written when there is no log or reports were asked for (report=, "      \
      "signal=)")                                                              \
    X(depth, NUMBER, MTF_DEFAULT_DEPTH, 1, MTF_MAX_DEPTH, NULL, "N",           \
      "frames kept per stack (1: the caller only, found without "             \
      "unwinding)")                                                            \
    X(classic, FLAG, 0, 0, 0, NULL, "",                                        \
      "write glibc's lines only: no stack records, no sN fields (the "         \
      "caller is still recorded)")                                             \
    X(unwind, CHOICE, UNWIND_FAST, 0, 0, config_unwinders, "NAME",             \
      "the unwinder. fast: libmtrace's own .eh_frame unwinder, correct on "    \
      "-O2 code without frame pointers; a walk that starts where a recent "    \
      "one did is replayed after checking the words it read. libunwind: "      \
      "libunwind's unw_backtrace (it keeps a pipe of its own and closes it "   \
      "again after a program closed all its descriptors, which can close "     \
      "the program's files). glibc: glibc's backtrace() (libgcc's "            \
      "unwinder), correct but about 30 times slower. fp: frame pointers, "     \
      "cheapest, only right for code built with -fno-omit-frame-pointer")      \
    X(signal, SIGNAL, 0, 0, 0, NULL, "SIG",                                    \
      "write a report on signal SIG (USR2, SIGUSR2 or a number), even "        \
      "while the program is idle")                                             \
    X(reach, NUMBER, 1, 0, 1, NULL, "0|1",                                     \
      "the reachability scan at each report point and at exit: every "         \
      "block classified as definitely, indirectly or possibly lost or "        \
      "still reachable (the other threads are stopped by SIGURG meanwhile); "  \
      "malloc() then hands blocks out zeroed up to 64 KiB, so that words "     \
      "the allocator left in them are no pointers; "                           \
      "0: no scan, no verdicts")                                               \
    X(suppressions, TEXT, "", 0, 0, NULL, "FILE",                              \
      "leak suppressions in LeakSanitizer's syntax (leak:PATTERN lines), "     \
      "applied to reports and carried in the log for mtrace-check")            \
    X(report, TEXT, "", 0, 0, NULL, "PATTERN",                                 \
      "where reports go: %p pid, %n sequence, %e program name; or stderr")     \
    X(sample, SIZE, 0, 1, 1L << 40, NULL, "BYTES",                             \
      "sampling mode for production: about one block per BYTES allocated "     \
      "(512k, 1m, 4096) is recorded, blocks of BYTES or more always; the "     \
      "others cost a few nanoseconds, no stack, no log line. Reports and "     \
      "mtrace-check scale the recorded blocks by their weights and say "       \
      "their figures are estimates (libmtrace(3)); not with classic")          \
    X(seed, NUMBER, 0, 1, 999999999, NULL, "N",                                \
      "the sampler's seed: the same blocks are sampled from run to run of a "  \
      "deterministic program (default: from the clock)")                       \
    X(compress, CHOICE, COMPRESS_AUTO, 0, 0, config_compressors, "HOW",        \
      "how the log is written. zstd: compressed with libzstd by a thread of "  \
      "libmtrace's, off the program's threads (read it with zstdcat; "         \
      "mtrace-check reads it as it is); none: plain text; auto: zstd when "    \
      "MALLOC_TRACE ends in .zst")                                             \
    X(children, NUMBER, 1, 0, 1, NULL, "0|1",                                  \
      "1: programs this process starts with exec or posix_spawn are traced "   \
      "as it is (they inherit LD_PRELOAD, MEMLEAK_CONFIG and MALLOC_TRACE); "  \
      "0: they run untraced, as valgrind's --trace-children=no has it: "       \
      "their environment loses libmtrace from LD_PRELOAD, MEMLEAK_CONFIG and " \
      "MALLOC_TRACE (fork children of this program stay traced; what "         \
      "system() and popen() start stays traced, glibc starts it by an "        \
      "internal call)")                                                       \
    X(scan_every, SECONDS, 0, 10000, 86400000000L, NULL, "SECONDS",           \
      "periodic scans: every SECONDS (0.5, 2, 0.01 to 86400) while the "      \
      "program runs, a thread of libmtrace's scans the heap and writes the "   \
      "verdicts into the log, as at a report point (#C scan "                  \
      "trigger=periodic), with what the scan cost (#C cost); mtrace-check "    \
      "then lists the stacks whose still reachable bytes keep growing. The "   \
      "program's sleeps and waits are never cut short; a fork child makes "    \
      "none; needs reach=1 and a log")                                          \
    X(mmap, NUMBER, 0, 0, 1, NULL, "0|1",                                      \
      "1: anonymous private mappings the program makes (mmap, munmap, "      \
      "mremap) are blocks too: logged with their stacks (#b mmap records), "   \
      "classified by the scan, which then takes them for no roots; "           \
      "malloc's and libmtrace's own mappings never appear")                    \
    X(fds, NUMBER, 0, 0, 1, NULL, "0|1",                                       \
      "record file descriptors as resources of kind fd: each open, socket, "   \
      "pipe, dup, accept, fopen... with its stack, each close, fclose, "       \
      "close_range and close-on-exec at exec; mtrace-check lists those still " \
      "open at the end (not 0-2, nor those inherited). 0: one test a call")   \
    X(log, CHOICE, LOG_FULL, 0, 0, config_logs, "MODE",                        \
      "what the log holds. full: every allocation, free and realloc as it "    \
      "happens. live: only what a verdict needs: at each report point and "    \
      "scan (and at exit) the + lines of the blocks still live that the log "  \
      "does not hold yet, and the - line of such a block when it is freed "    \
      "later; the tracer still unwinds and keeps every live block's stack. "   \
      "The log is far smaller and still valid for mtrace-check and glibc's "   \
      "mtrace, but holds no history (no totals from events, no churn). Not "   \
      "with classic or sample=: those write the full log")                    \
    X(offload, NUMBER, 4096, 0, 1000000000, NULL, "N",                        \
      "in a live log, once the program has met N distinct stacks, if it has "  \
      "one thread and the machine a second CPU: the thread only unwinds, and " \
      "a thread of libmtrace's own enters its events in the tables on the "    \
      "other CPU, in order, until the program's second thread or a fork "      \
      "(then every thread does its own again). 0: never")

extern const char *const config_unwinders[];
extern const char *const config_compressors[];
extern const char *const config_logs[];

#define CONFIG_FIELD_FLAG(name) int name;
#define CONFIG_FIELD_NUMBER(name) long name;
#define CONFIG_FIELD_CHOICE(name) int name;
#define CONFIG_FIELD_SIGNAL(name) int name;
#define CONFIG_FIELD_TEXT(name) char name[CONFIG_TEXT_MAX];
#define CONFIG_FIELD_SIZE(name) long name;
#define CONFIG_FIELD_SECONDS(name) long name;
#define CONFIG_FIELD(name, kind, ...) CONFIG_FIELD_##kind(name)

/* One field per option, named as the option ("" / 0: not given). */
struct config {
    CONFIG_OPTIONS(CONFIG_FIELD)
};

enum config_kind {
    CONFIG_FLAG,
    CONFIG_NUMBER,
    CONFIG_CHOICE,
    CONFIG_SIGNAL,
    CONFIG_TEXT,
    CONFIG_SIZE,
    CONFIG_SECONDS
};

/* An option as the table describes it. */
struct config_option {
    const char *name;
    enum config_kind kind;
    size_t offset; /* of its field in struct config */
    long lo, hi;
    const char *const *choices; /* CHOICE: NULL-terminated */
    const char *arg;            /* the value's name in the docs, "" */
    const char *help;
};
extern const struct config_option config_options[];
extern const size_t config_option_count;

/* The process's configuration, read once at start-up (control.c). */
extern struct config mt_config;
/* MALLOC_TRACE as read with secure_getenv, or NULL: no log. */
extern const char *mt_trace_path;

/* Called once per problem with a message (no newline, no prefix). */
typedef void (*config_warn_fn)(const char *message);

void config_defaults(struct config *c);
/* Parses TEXT (may be NULL) into C; an unknown or malformed option is
 * reported through WARN and skipped.  Returns the number of problems.
 * "help" asks for the table: it is written through WARN, line by line. */
int config_parse(struct config *c, const char *text, config_warn_fn warn);
/* "USR2", "SIGUSR2" or "12" -> signal number; 0 when unknown, and
 * CONFIG_SIGNAL_UNUSABLE for a signal that cannot carry reports (KILL,
 * STOP, and the signals faults raise). */
#define CONFIG_SIGNAL_UNUSABLE (-1)
int config_signal_number(const char *name, size_t len);
/* The default of option O as the docs show it ("" for none). */
const char *config_default_text(const struct config_option *o, char *buf,
                                size_t size);

#endif
