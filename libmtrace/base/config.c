/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config.c - parsing of MEMLEAK_CONFIG from the option table (config.h).
 * Runs at start-up inside the tracer, so it uses no stdio and no heap.
 */
#include "base/config.h"
#include "base/fmt.h"
#include <signal.h>
#include <string.h>

const char *const config_unwinders[] = { CONFIG_UNWINDERS, NULL };
const char *const config_compressors[] = { CONFIG_COMPRESSORS, NULL };
const char *const config_logs[] = { CONFIG_LOGS, NULL };

#define CONFIG_DESCRIBE(name_, kind_, def, lo_, hi_, choices_, arg_, help_)    \
    { .name = #name_,                                                          \
      .kind = CONFIG_##kind_,                                                  \
      .offset = offsetof(struct config, name_),                                \
      .lo = lo_,                                                               \
      .hi = hi_,                                                               \
      .choices = choices_,                                                     \
      .arg = arg_,                                                             \
      .help = help_ },
const struct config_option config_options[] = { CONFIG_OPTIONS(
    CONFIG_DESCRIBE) };
const size_t config_option_count = sizeof config_options /
                                   sizeof config_options[0];

struct config mt_config;
const char *mt_trace_path;

#define CONFIG_DEFAULT_FLAG(name, def) c->name = def;
#define CONFIG_DEFAULT_NUMBER(name, def) c->name = def;
#define CONFIG_DEFAULT_CHOICE(name, def) c->name = def;
#define CONFIG_DEFAULT_SIGNAL(name, def) c->name = def;
#define CONFIG_DEFAULT_TEXT(name, def) strcpy(c->name, def);
#define CONFIG_DEFAULT_SIZE(name, def) c->name = def;
#define CONFIG_DEFAULT_SECONDS(name, def) c->name = def;
#define CONFIG_DEFAULT(name, kind, def, ...) CONFIG_DEFAULT_##kind(name, def)

void config_defaults(struct config *c)
{
    memset(c, 0, sizeof *c);
    CONFIG_OPTIONS(CONFIG_DEFAULT)
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

/* A size: decimal, with an optional k, m or g (KiB, MiB, GiB); -1 if it
 * is not one. */
static long parse_bytes(const char *s, size_t len)
{
    static const char units[] = "kmg";
    const char *unit = len > 1 ? strchr(units, s[len - 1] | 0x20) : NULL;
    long v = parse_decimal(s, unit ? len - 1 : len);
    if (v < 0)
        return -1;
    for (int shift = unit ? (int)(unit - units + 1) : 0; shift > 0; shift--)
        v <<= 10;
    return v;
}

/* A duration in seconds, "2", "0.5", "0.001", to microseconds; -1 if it
 * is not one (more than 6 digits after the point, no digit, a sign). */
static long parse_seconds(const char *s, size_t len)
{
    const char *dot = memchr(s, '.', len);
    size_t whole = dot ? (size_t)(dot - s) : len;
    size_t frac = dot ? len - whole - 1 : 0;
    if (frac > 6 || (whole == 0 && frac == 0))
        return -1;
    long w = whole ? parse_decimal(s, whole) : 0;
    long f = frac ? parse_decimal(dot + 1, frac) : 0;
    if (w < 0 || f < 0)
        return -1;
    for (size_t i = frac; i < 6; i++)
        f *= 10;
    return w * 1000000 + f;
}

/* Microseconds US as seconds: "0.01", "86400". */
static char *fmt_seconds(char *p, long us)
{
    p = fmt_dec(p, (uint64_t)(us / 1000000));
    long f = us % 1000000;
    if (f) {
        char digits[7];
        for (int i = 5; i >= 0; i--, f /= 10)
            digits[i] = (char)('0' + f % 10);
        int n = 6;
        while (digits[n - 1] == '0')
            n--;
        *p++ = '.';
        memcpy(p, digits, (size_t)n);
        p += n;
    }
    return p;
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
    { "SYS", SIGSYS },     { "KILL", SIGKILL },     { "STOP", SIGSTOP },
    { "SEGV", SIGSEGV },   { "BUS", SIGBUS },       { "ILL", SIGILL },
    { "FPE", SIGFPE },     { "TRAP", SIGTRAP },     { "ABRT", SIGABRT },
};

/* Signals a report cannot ride on: uncatchable, or raised by faults. */
static int usable_for_reports(long sig)
{
    return sig != SIGKILL && sig != SIGSTOP && sig != SIGSEGV &&
           sig != SIGBUS && sig != SIGILL && sig != SIGFPE && sig != SIGTRAP &&
           sig != SIGABRT;
}

int config_signal_number(const char *name, size_t len)
{
    long n = parse_decimal(name, len);
    if (n == -1) {
        if (len > 3 && memcmp(name, "SIG", 3) == 0) {
            name += 3;
            len -= 3;
        }
        for (size_t i = 0; i < sizeof signal_names / sizeof signal_names[0];
             i++)
            if (token_is(name, len, signal_names[i].name))
                n = signal_names[i].number;
    }
    if (n <= 0 || n >= NSIG)
        return 0;
    return usable_for_reports(n) ? (int)n : CONFIG_SIGNAL_UNUSABLE;
}

/* Reports "MEMLEAK_CONFIG: WHAT 'TOKEN' ignored" (the token cut to 120). */
static void warn_token(config_warn_fn warn, const char *what, const char *tok,
                       size_t len)
{
    char msg[256];
    size_t n = 0;
    const char *parts[] = { "MEMLEAK_CONFIG: ", what, " '" };
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

/* "value out of range (LO-HI) in option", in a buffer of its own (the
 * message is used before the next option is read). */
static const char *range_problem(const struct config_option *o)
{
    static char msg[96];
    char *p = msg;
    static const char head[] = "value out of range (", tail[] = ") in option";
    memcpy(p, head, sizeof head - 1);
    p += sizeof head - 1;
    if (o->kind == CONFIG_SECONDS) {
        p = fmt_seconds(p, o->lo);
        *p++ = '-';
        p = fmt_seconds(p, o->hi);
        memcpy(p, " seconds", 8);
        p += 8;
    } else {
        p = fmt_dec(p, (uint64_t)o->lo);
        *p++ = '-';
        p = fmt_dec(p, (uint64_t)o->hi);
    }
    memcpy(p, tail, sizeof tail);
    return msg;
}

/* The value VAL of option O into C; returns the problem, or NULL. */
static const char *set_value(struct config *c, const struct config_option *o,
                             const char *val, size_t len)
{
    void *field = (char *)c + o->offset;
    switch (o->kind) {
    case CONFIG_FLAG:
        if (val)
            return "takes no value: option";
        *(int *)field = 1;
        return NULL;
    case CONFIG_NUMBER: {
        if (val == NULL || len == 0)
            return "no value given: option";
        long v = parse_decimal(val, len);
        if (v < 0)
            return "not a whole number (digits only): option";
        if (v < o->lo || v > o->hi)
            return range_problem(o);
        *(long *)field = v;
        return NULL;
    }
    case CONFIG_CHOICE:
        if (val == NULL || len == 0)
            return "no value given: option";
        for (int i = 0; val && o->choices[i]; i++)
            if (token_is(val, len, o->choices[i])) {
                *(int *)field = i;
                return NULL;
            }
        return "unknown value in option";
    case CONFIG_SIGNAL: {
        if (val == NULL || len == 0)
            return "no value given: option";
        int sig = config_signal_number(val, len);
        if (sig == CONFIG_SIGNAL_UNUSABLE)
            return "signal cannot be caught or is raised by faults, option";
        if (sig == 0)
            return "unknown signal in option";
        *(int *)field = sig;
        return NULL;
    }
    case CONFIG_SIZE: {
        if (val == NULL || len == 0)
            return "no value given: option";
        long v = parse_bytes(val, len);
        if (v < 0)
            return "not a size (512k, 1m, 4096): option";
        if (v < o->lo || v > o->hi)
            return range_problem(o);
        *(long *)field = v;
        return NULL;
    }
    case CONFIG_SECONDS: {
        if (val == NULL || len == 0)
            return "no value given: option";
        long v = parse_seconds(val, len);
        if (v < 0)
            return "not a duration in seconds (0.5, 2): option";
        if (v != 0 && (v < o->lo || v > o->hi)) /* 0: off */
            return range_problem(o);
        *(long *)field = v;
        return NULL;
    }
    case CONFIG_TEXT:
        if (val == NULL || len == 0)
            return "no value given: option";
        if (len >= CONFIG_TEXT_MAX)
            return "value too long in option";
        memcpy(field, val, len);
        ((char *)field)[len] = '\0';
        return NULL;
    }
    return "unknown option";
}

/* "  NAME=ARG  HELP (default D)" for each option, through WARN. */
static void list_options(config_warn_fn warn)
{
    char line[1024], def[64];
    for (size_t i = 0; warn && i < config_option_count; i++) {
        const struct config_option *o = &config_options[i];
        const char *parts[] = { "MEMLEAK_CONFIG option ",
                                o->name,
                                *o->arg ? "=" : "",
                                o->arg,
                                ": ",
                                o->help,
                                *config_default_text(o, def, sizeof def)
                                    ? " (default "
                                    : "",
                                def,
                                *def ? ")" : "" };
        size_t n = 0;
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
            size_t l = strlen(parts[k]);
            if (l > sizeof line - 1 - n)
                l = sizeof line - 1 - n;
            memcpy(line + n, parts[k], l);
            n += l;
        }
        line[n] = '\0';
        warn(line);
    }
}

/* One option; returns 0 when understood. */
static int parse_option(struct config *c, const char *tok, size_t len,
                        config_warn_fn warn)
{
    const char *eq = memchr(tok, '=', len);
    size_t key_len = eq ? (size_t)(eq - tok) : len;
    if (!eq && token_is(tok, len, "help")) {
        list_options(warn);
        return 0;
    }
    for (size_t i = 0; i < config_option_count; i++) {
        const struct config_option *o = &config_options[i];
        if (!token_is(tok, key_len, o->name))
            continue;
        if (!eq && o->kind != CONFIG_FLAG) {
            warn_token(warn, "needs a value: option", tok, len);
            return 1;
        }
        const char *problem = set_value(c, o, eq ? eq + 1 : NULL,
                                        eq ? len - key_len - 1 : 0);
        if (problem == NULL)
            return 0;
        warn_token(warn, problem, tok, len);
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

const char *config_default_text(const struct config_option *o, char *buf,
                                size_t size)
{
    struct config d;
    config_defaults(&d);
    const void *field = (const char *)&d + o->offset;
    buf[0] = '\0';
    if (o->kind == CONFIG_NUMBER && size >= 24 && *(const long *)field >= o->lo)
        *fmt_dec(buf, (uint64_t) * (const long *)field) = '\0';
    else if (o->kind == CONFIG_CHOICE &&
             strlen(o->choices[*(const int *)field]) < size)
        strcpy(buf, o->choices[*(const int *)field]);
    return buf;
}
