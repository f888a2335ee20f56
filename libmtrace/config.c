/* config.c - parsing of MEMLEAK_CONFIG (see config.h).  Runs at start-up
 * inside the tracer, so it uses no stdio and no heap.  GPL-3.0-or-later. */
#include "config.h"
#include "../include/mtrace-format.h"
#include <signal.h>
#include <string.h>

struct config mt_config = { .depth = MTF_DEFAULT_DEPTH, .reach = 1 };
const char *mt_trace_path;

void config_defaults(struct config *c)
{
    memset(c, 0, sizeof *c);
    c->depth = MTF_DEFAULT_DEPTH;
    c->unwinder = UNWIND_FAST;
    c->reach = 1;
}

static int token_is(const char *tok, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(tok, word, len) == 0;
}

/* Parses a decimal number that fills the whole token; -1 if it does not. */
static long parse_decimal(const char *s, size_t len)
{
    long v = 0;
    if (len == 0 || len > 9)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static const struct {
    const char *name;
    int number;
} signal_names[] = {
    { "HUP", SIGHUP },     { "INT", SIGINT },       { "QUIT", SIGQUIT },
    { "USR1", SIGUSR1 },   { "USR2", SIGUSR2 },     { "PIPE", SIGPIPE },
    { "ALRM", SIGALRM },   { "TERM", SIGTERM },     { "CHLD", SIGCHLD },
    { "CONT", SIGCONT },   { "TSTP", SIGTSTP },     { "TTIN", SIGTTIN },
    { "TTOU", SIGTTOU },   { "URG", SIGURG },       { "XCPU", SIGXCPU },
    { "XFSZ", SIGXFSZ },   { "VTALRM", SIGVTALRM }, { "PROF", SIGPROF },
    { "WINCH", SIGWINCH }, { "IO", SIGIO },         { "PWR", SIGPWR },
    { "SYS", SIGSYS },
};

/* Signals a report cannot ride on: uncatchable, or raised by faults. */
static int usable_for_reports(long sig)
{
    return sig > 0 && sig < NSIG && sig != SIGKILL && sig != SIGSTOP &&
           sig != SIGSEGV && sig != SIGBUS && sig != SIGILL && sig != SIGFPE &&
           sig != SIGTRAP && sig != SIGABRT;
}

int config_signal_number(const char *name, size_t len)
{
    long n = parse_decimal(name, len);
    if (n != -1)
        return usable_for_reports(n) ? (int)n : 0;
    if (len > 3 && memcmp(name, "SIG", 3) == 0) {
        name += 3;
        len -= 3;
    }
    for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0]; i++)
        if (token_is(name, len, signal_names[i].name))
            return signal_names[i].number;
    return 0;
}

/* Builds "libmtrace: MEMLEAK_CONFIG: WHAT 'TOKEN' ignored" and reports it. */
static void warn_token(config_warn_fn warn, const char *what, const char *tok,
                       size_t len)
{
    char msg[256];
    size_t n = 0;
    const char *parts[] = { "libmtrace: MEMLEAK_CONFIG: ", what, " '" };
    for (size_t i = 0; i < 3; i++) {
        size_t l = strlen(parts[i]);
        memcpy(msg + n, parts[i], l);
        n += l;
    }
    if (len > 120)
        len = 120;
    memcpy(msg + n, tok, len);
    n += len;
    memcpy(msg + n, "' ignored", 10);
    if (warn)
        warn(msg);
}

/* One option; returns 0 when understood. */
static int parse_option(struct config *c, const char *tok, size_t len,
                        config_warn_fn warn)
{
    const char *eq = memchr(tok, '=', len);
    size_t key_len = eq ? (size_t)(eq - tok) : len;
    const char *val = eq ? eq + 1 : NULL;
    size_t val_len = eq ? len - key_len - 1 : 0;

    if (!eq && token_is(tok, len, "mtraceinit")) {
        c->mtraceinit = 1;
        return 0;
    }
    if (!eq && token_is(tok, len, "classic")) {
        c->classic = 1;
        return 0;
    }
    if (eq && token_is(tok, key_len, "depth")) {
        long d = parse_decimal(val, val_len);
        if (d >= 1 && d <= MTF_MAX_DEPTH) {
            c->depth = (int)d;
            return 0;
        }
        warn_token(warn, "depth must be 1..256, option", tok, len);
        return 1;
    }
    if (eq && token_is(tok, key_len, "unwind")) {
        if (token_is(val, val_len, "libunwind")) {
            c->unwinder = UNWIND_LIBUNWIND;
            return 0;
        }
        if (token_is(val, val_len, "glibc")) {
            c->unwinder = UNWIND_GLIBC;
            return 0;
        }
        if (token_is(val, val_len, "fp")) {
            c->unwinder = UNWIND_FP;
            return 0;
        }
        if (token_is(val, val_len, "fast")) {
            c->unwinder = UNWIND_FAST;
            return 0;
        }
        warn_token(warn, "unknown unwinder in option", tok, len);
        return 1;
    }
    if (eq && token_is(tok, key_len, "signal")) {
        int sig = config_signal_number(val, val_len);
        if (sig) {
            c->report_signal = sig;
            return 0;
        }
        warn_token(warn, "unknown signal in option", tok, len);
        return 1;
    }
    if (eq && token_is(tok, key_len, "report")) {
        if (val_len > 0 && val_len < CONFIG_PATTERN_MAX) {
            memcpy(c->report_pattern, val, val_len);
            c->report_pattern[val_len] = '\0';
            return 0;
        }
        warn_token(warn, "bad report destination in option", tok, len);
        return 1;
    }
    if (eq && token_is(tok, key_len, "reach")) {
        if (token_is(val, val_len, "0") || token_is(val, val_len, "1")) {
            c->reach = *val == '1';
            return 0;
        }
        warn_token(warn, "reach must be 0 or 1, option", tok, len);
        return 1;
    }
    if (eq && token_is(tok, key_len, "suppressions")) {
        if (val_len > 0 && val_len < CONFIG_PATTERN_MAX) {
            memcpy(c->suppressions, val, val_len);
            c->suppressions[val_len] = '\0';
            return 0;
        }
        warn_token(warn, "bad suppressions file in option", tok, len);
        return 1;
    }
    warn_token(warn, "unknown option", tok, len);
    return 1;
}

int config_parse(struct config *c, const char *text, config_warn_fn warn)
{
    int problems = 0;
    if (text == NULL)
        return 0;
    while (*text) {
        const char *end = strchr(text, ',');
        size_t len = end ? (size_t)(end - text) : strlen(text);
        if (len > 0)
            problems += parse_option(c, text, len, warn);
        text += len;
        if (*text == ',')
            text++;
    }
    return problems;
}
