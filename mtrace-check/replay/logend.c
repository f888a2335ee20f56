/* SPDX-License-Identifier: GPL-3.0-or-later */
/* logend.c - the "#e" record and the completeness verdict (see logend.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "replay/logend.h"
#include "base/diag.h"
#include "read/fields.h"
#include "mtrace-format.h"

#include <string.h>

/* The key of "#e signal sig=N" (include/mtrace-format.h names the record
 * and its reasons; this key only in a comment). */
#define END_KEY_SIG "sig"

/* Enough fields for REASON and a few keys; later ones are ignored. */
enum { END_FIELDS = 16 };

static const struct {
    const char *word;
    enum end_reason reason;
} reasons[] = {
    { MTF_END_EXIT, END_EXIT },
    { MTF_END_MUNTRACE, END_MUNTRACE },
    { MTF_END_EXEC, END_EXEC },
    { MTF_END_SIGNAL, END_SIGNAL },
};

/* "sig=N" */
static int signal_key(struct slice f, int *sig)
{
    size_t k = strlen(END_KEY_SIG);
    uint64_t v;
    if (f.n <= k + 1 || memcmp(f.p, END_KEY_SIG, k) != 0 || f.p[k] != '=')
        return 0;
    if (parse_dec_u64((struct slice){ f.p + k + 1, f.n - k - 1 }, &v) ||
        v == 0 || v > 1024)
        return 0;
    *sig = (int)v;
    return 1;
}

int logend_record(struct log_end *end, const char *line, size_t len,
                  uint64_t nr, int terminated)
{
    struct slice f[END_FIELDS];
    size_t nf = split_fields(line, len, f, END_FIELDS);

    if (nf < 2)
        return -1;
    if (!terminated)
        return 0; /* "#e sig" of "#e signal sig=11" must not count */
    end->seen = 1;
    end->line = nr;
    end->sig = 0;
    end->reason = END_OTHER;
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (slice_eq(f[1], reasons[i].word))
            end->reason = reasons[i].reason;
    size_t n = f[1].n < sizeof end->word - 1 ? f[1].n : sizeof end->word - 1;
    memcpy(end->word, f[1].p, n);
    end->word[n] = '\0';
    for (size_t i = 2; i < nf; i++)
        if (end->reason == END_SIGNAL && signal_key(f[i], &end->sig))
            break;
    return 0;
}

int logend_leaks_count(const struct log_end *end)
{
    return !(end->seen && end->reason == END_EXEC);
}

void logend_warn(const char *name, const struct log_end *end, int extended)
{
    if (extended && !end->seen)
        diag(name, 0,
             "the log ends early (no \"#e\" end record): blocks still live "
             "there are not proven leaks");
}
