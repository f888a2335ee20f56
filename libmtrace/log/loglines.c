/* SPDX-License-Identifier: GPL-3.0-or-later */
/* loglines.c - the trace log's lines as text: the header that opens each
 * log, and an allocation event's line, formatted into the caller's
 * buffer without a lock or an allocation (the hot path: tracelog.c calls
 * it for every event).  tracelog.c owns the log and says where the lines
 * go.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "log/loglines.h"
#include "../include/mtrace-format.h"
#include "base/config.h"
#include "base/fmt.h"
#include "base/sampler.h"
#include "base/valgrind.h"
#include "log/logfile.h"
#include "log/rss.h"
#include "log/timestamp.h"
#include "symbols/frametab.h"
#include "symbols/modmap.h"
#include "symbols/stacktab.h"
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

void loglines_header(struct writer *w, const char *unwinder, pid_t forked_from)
{
    writer_puts(w, MTF_START "\n");
    if (mt_config.classic)
        return;
    writer_puts(w, MTF_REC_VERSION " ");
    writer_dec(w, MTF_VERSION);
    writer_puts(w, " pid=");
    writer_dec(w, (uint64_t)getpid());
    writer_puts(w, " proc=");
    writer_puts(w, logfile_process_tag());
    writer_puts(w, " ppid=");
    writer_dec(w, (uint64_t)getppid());
    writer_puts(w, " depth=");
    writer_dec(w, (uint64_t)mt_config.depth);
    writer_puts(w, " unwinder=");
    writer_puts(w, unwinder);
    if (mt_sample_rate) {
        writer_puts(w, " " MTF_KEY_SAMPLE "=");
        writer_dec(w, mt_sample_rate);
    }
    const char *tool = valgrind_allocator();
    if (tool) {
        writer_puts(w, " " MTF_KEY_UNTRACED "=valgrind-");
        writer_puts(w, tool);
    }
    if (mt_config.log == LOG_LIVE) /* livelog.h */
        writer_puts(w, " " MTF_KEY_LOG "=" MTF_LOG_LIVE);
    if (forked_from) {
        writer_puts(w, " forked-from=");
        writer_dec(w, (uint64_t)forked_from);
    }
    writer_putc(w, '\n');
    const char *exe = modmap_executable_path();
    if (*exe) {
        writer_puts(w, MTF_REC_PROGRAM " ");
        writer_puts(w, exe);
        writer_putc(w, '\n');
    }
    if (mt_sample_rate)
        writer_puts(w, MTF_REC_COMMENT "sampled log: only some blocks are "
                                       "recorded, all figures are estimates\n");
    /* "#t NS": when this log began. */
    char line[TIMESTAMP_LINE_MAX + RSS_FIELDS_MAX];
    size_t n = timestamp_line(line, timestamp_now());
    n += rss_fields(line + n - 1); /* and the resident memory (rss.h) */
    line[n - 1] = '\n';
    writer_put(w, line, n);
}

/* "0xHEX" (fmt_hex16: 16 bytes of room). */
static char *put_ptr(char *p, uint64_t v)
{
    p[0] = '0';
    p[1] = 'x';
    return fmt_hex16(p + 2, v);
}

/* N bytes of a 16-byte padded SRC, 16 at a time. */
static void copy_padded(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i += 16)
        memcpy(dst + i, src + i, 16);
}

/* An extended line from S's parts: "[@ WHERE ]OP PTR[ SIZE] sID\n". */
static size_t format_from_parts(char *line, char op, const void *ptr,
                                size_t size, int with_size,
                                const struct stack *s, int where)
{
    char *p = line;
    if (where) {
        copy_padded(p, s->head, s->head_len);
        p += s->head_len;
    }
    p[0] = op;
    p[1] = ' ';
    p = put_ptr(p + 2, (uintptr_t)ptr);
    if (with_size) {
        *p++ = ' ';
        if (size)
            p = put_ptr(p, size);
        else
            *p++ = '0';
    }
    memcpy(p, s->tail, sizeof s->tail);
    return (size_t)(p - line) + s->tail_len;
}

size_t loglines_event(char *line, char op, const void *ptr, size_t size,
                      int with_size, const struct stack *s,
                           const struct frame *where)
{
    /* Extended lines: the WHERE of an allocation is its stack's first
     * frame (tracer.c), a release has none. */
    if (s && atomic_load_explicit(&s->line_parts, memory_order_acquire) &&
        (where == NULL || (where == s->frames[0] && s->head_len)))
        return format_from_parts(line, op, ptr, size, with_size, s,
                                 where != NULL);
    char *p = line;
    if (where && where->where) {
        if (where->where_len > EVENT_LINE_MAX - EVENT_FIELDS_MAX)
            return 0;
        *p++ = '@';
        *p++ = ' ';
        memcpy(p, where->where, where->where_len);
        p += where->where_len;
        *p++ = ' ';
    }
    *p++ = op;
    *p++ = ' ';
    p = put_ptr(p, (uintptr_t)ptr);
    if (with_size) {
        *p++ = ' ';
        if (size)
            p = put_ptr(p, size);
        else
            *p++ = '0';
    }
    if (!mt_config.classic && s) {
        *p++ = ' ';
        *p++ = MTF_STACK_FIELD_PREFIX;
        p = fmt_dec(p, stack_id(s));
    }
    *p++ = '\n';
    return (size_t)(p - line);
}
