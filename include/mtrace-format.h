/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mtrace-format.h - the MALLOC_TRACE log format shared by libmtrace.so
 * (writer) and mtrace-check (reader).  doc/format.md is the grammar; this
 * header holds its constants so both sides agree by construction.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTRACE_FORMAT_H
#define MTRACE_FORMAT_H

/* Version of the extension records, written in the "#v" header. */
#define MTF_VERSION 1

/* Classic lines, exactly as glibc's malloc/mtrace-impl.c writes them. */
#define MTF_START "= Start"
#define MTF_END "= End"
#define MTF_OP_ALLOC '+'   /* [@ WHERE] + PTR SIZE          */
#define MTF_OP_FREE '-'    /* [@ WHERE] - PTR               */
#define MTF_OP_RE_OLD '<'  /* [@ WHERE] < OLD               */
#define MTF_OP_RE_NEW '>'  /* [@ WHERE] > NEW SIZE          */
#define MTF_OP_RE_FAIL '!' /* [@ WHERE] ! OLD SIZE          */
#define MTF_OP_MARK '='    /* = Start / = End               */

/* What each op means, for every reader and writer of the log (the
 * checker's serial and parallel replays read them from here).  An event
 * op changes which blocks are live: "+" and ">" make PTR live, "-" and
 * "<" end it; "!" (a failed realloc) and "=" change nothing. */
static inline int mtf_op_is_event(char op)
{
    return op == MTF_OP_ALLOC || op == MTF_OP_FREE || op == MTF_OP_RE_OLD ||
           op == MTF_OP_RE_NEW;
}

/* The ops that end a block ("- PTR", "< OLD"): their lines carry no SIZE,
 * so the stack field (an extension) follows PTR directly. */
static inline int mtf_op_releases(char op)
{
    return op == MTF_OP_FREE || op == MTF_OP_RE_OLD;
}

/* Extension: trailing field on event lines, "s<ID>" (decimal stack id).
 * glibc's Perl checker ignores fields after the ones it reads. */
#define MTF_STACK_FIELD_PREFIX 's'

/* Extension records: first field starts with '#', which the Perl checker
 * treats as an unknown op and ignores.  "# " (hash, space) is a comment. */
#define MTF_REC_VERSION "#v" /* #v VERSION key=value...                  */
#define MTF_REC_PROGRAM "#p" /* #p PATH-OF-EXECUTABLE (rest of line)     */
#define MTF_REC_MODULE "#m"  /* #m MID 0xBASE BUILDID|- PATH (rest)      */
#define MTF_REC_UNLOAD "#u"  /* #u MID                                   */
#define MTF_REC_SYMBOL "#f"  /* #f MID 0xOFF 0xSYMOFF NAME (rest)        */
#define MTF_REC_STACK "#s" /* #s SID FRAME...   FRAME = MID:0xOFF | -:0xADDR */
#define MTF_REC_COMMENT "# " /* free text, ignored by readers            */

/* Reachability verdicts (doc/format.md, "Reachability verdicts"), written
 * at each report point by the in-process scan:
 *   #C scan key=value...          a scan: every block live at this point
 *                                 is still reachable unless a "#c" follows
 *   #C suppression leak:PATTERN   a suppression the process was given
 *   #c 0xPTR CLASS [INDIRECT]     the block at PTR is not still reachable:
 *                                 CLASS is one letter below; a definitely
 *                                 lost block may add the decimal bytes lost
 *                                 through it (its indirectly lost blocks). */
#define MTF_REC_SCAN "#C"
#define MTF_REC_VERDICT "#c"
#define MTF_SCAN_KEYWORD "scan"
/* "#C cost seq=N us= stop_us= hold_us= stall_us=": what scan N cost. */
#define MTF_COST_KEYWORD "cost"
/* The trigger of a scan made by MEMLEAK_CONFIG=scan_every. */
#define MTF_TRIGGER_PERIODIC "periodic"
#define MTF_SUPPRESSION_KEYWORD "suppression"
#define MTF_VERDICT_REACHABLE 'r'
#define MTF_VERDICT_POSSIBLE 'p'
#define MTF_VERDICT_INDIRECT 'i'
#define MTF_VERDICT_DEFINITE 'd'

/* Block previews (doc/format.md, "Block previews"), after a scan's "#c"
 * records: "#w 0xPTR N HEX [MID:0xOFF]", the first N bytes (at most
 * MTF_PREVIEW_BYTES, N decimal) of the definitely lost block at PTR, and its first
 * word as module and offset when a module holds that address (a C++
 * object's vtable pointer).  One per allocation stack and scan. */
#define MTF_REC_PREVIEW "#w"
#define MTF_PREVIEW_BYTES 32

/* The end of a log (libmtrace writes it when it finishes a log; the
 * checker reads its absence as a log cut short): "#e REASON[ KEY=VALUE]".
 * The last "#e" of a log decides (an exec that failed goes on logging). */
#define MTF_REC_END "#e"
#define MTF_END_EXIT "exit"         /* exit(), _exit(), quick_exit()       */
#define MTF_END_MUNTRACE "muntrace" /* muntrace(): "= End" follows         */
#define MTF_END_EXEC "exec" /* the image was replaced: what it held is gone */
#define MTF_END_SIGNAL "signal" /* killed by a signal: "sig=N"         */

/* Sampling mode: "#v ... sample=RATE" marks a sampled
 * log.  A "+"/">" block of SIZE bytes with SIZE < RATE stands for
 * 1 / (1 - exp(-(SIZE + 1) / RATE)) blocks of its size, one of RATE bytes
 * or more for itself; a reader scales by these weights and reports
 * estimates, never exact leaks. */
#define MTF_KEY_SAMPLE "sample"

/* Live logs: "#v ... log=live" marks a log written with
 * MEMLEAK_CONFIG=log=live (doc/format.md, "Live logs"): it holds the "+"
 * lines of the blocks live at each report point and scan, not every
 * event, and "#C totals" records with the library's own counts. */
#define MTF_KEY_LOG "log"
#define MTF_LOG_LIVE "live"
/* "#C totals allocs=N alloc-bytes=N frees=N freed-bytes=N peak-bytes=N":
 * a live log's counts since collection began, at each report point. */
#define MTF_REC_TOTALS "#C totals"

/* "#v ... untraced=valgrind-TOOL": the program ran under a valgrind tool
 * whose allocator replaced libmtrace's wrappers (libmtrace/valgrind.c):
 * nothing was traced, and a reader must not call the log leak-free. */
#define MTF_KEY_UNTRACED "untraced"

/* Blocks that are not malloc's (doc/format.md, "Other blocks"): a pool's
 * blocks (memleak.h's memleak_pool_* calls) and anonymous private
 * mappings (MEMLEAK_CONFIG=mmap=1).  Records, so glibc's checker ignores
 * them:
 *   #b KIND 0xPTR 0xSIZE sSID [POOL]   a block of KIND becomes live
 *   #x KIND 0xPTR                      it ends
 *   #P new POOL NAME                   pool POOL is created (NAME: rest)
 *   #P destroy POOL                    every block of pool POOL ends
 *   #k KIND 0xPTR CLASS [INDIRECT]     a scan's verdict on such a block,
 *                                      as "#c" is on a malloc block
 * A block is named by its kind and address (a pool block may start where
 * the chunk it was carved from starts). */
#define MTF_REC_XBLOCK "#b"
#define MTF_REC_XBLOCK_END "#x"
#define MTF_REC_POOL "#P"
#define MTF_REC_XVERDICT "#k"
#define MTF_POOL_NEW "new"
#define MTF_POOL_DESTROY "destroy"
#define MTF_KIND_MALLOC "malloc" /* never in a record: the events' kind */
#define MTF_KIND_POOL "pool"
#define MTF_KIND_MMAP "mmap"

/* A frame outside every known module is written with this module field. */
#define MTF_NO_MODULE "-"

/* The first line of a libmtrace report (doc/report.md), by which the
 * checker tells a report from a log. */
#define MTF_REPORT_MAGIC "# libmtrace report"
#define MTF_REPORT_FORMAT 1

/* Limits both sides rely on. */
#define MTF_MAX_DEPTH 256 /* frames per stack                      */
#define MTF_DEFAULT_DEPTH 32

/* "#t NS" - time (doc/format.md, "Time"): CLOCK_MONOTONIC in nanoseconds
 * at this point of the log.  One follows the header; then a thread writes
 * one after handing its buffer to the shared log, unless another was
 * written less than MTF_TIME_STEP_NS before; and one at each flush of
 * every buffer (reports, fork, exec, exit).  Readers take the largest
 * value seen so far as the time of the lines that follow. */
#define MTF_REC_TIME "#t"
#define MTF_TIME_STEP_NS 1000000u /* 1 ms */
/* "#t NS rss-anon=BYTES rss-file=BYTES": the process's resident memory
 * at that time (doc/format.md, "Time"), anonymous and file-backed or
 * shared, from /proc/self/statm.  A "#t" carries them when the last
 * sample is MTF_RSS_STEP_NS old, and at every flush of all the buffers
 * (reports, fork, exec, exit); readers ignore keys they do not know. */
#define MTF_KEY_RSS_ANON "rss-anon"
#define MTF_KEY_RSS_FILE "rss-file"
#define MTF_RSS_STEP_NS 10000000u /* 10 ms */

/* Resources (doc/format.md, "Resources"): what a program acquires and
 * must give back besides memory, by kind and id, one record per event:
 *   #r + KIND 0xID sSID    acquired (SID: the acquiring stack)
 *   #r - KIND 0xID sSID    released (SID: the releasing stack)
 * KIND is one word of at most MTF_RES_KIND_MAX bytes (libmtrace writes
 * other bytes as '_'); "fd" is the kind of the descriptors libmtrace
 * records itself with MEMLEAK_CONFIG=fds=1.  glibc's checker ignores the
 * record like every '#' line. */
#define MTF_REC_RESOURCE "#r"
#define MTF_RES_ACQUIRE '+'
#define MTF_RES_RELEASE '-'
#define MTF_RES_KIND_FD "fd"
#define MTF_RES_KIND_MAX 64

/* Compressed logs (doc/format.md, "Compressed logs"): a log
 * written compressed (MALLOC_TRACE=NAME.zst, MEMLEAK_CONFIG=compress=zstd)
 * is a sequence of zstd frames whose content is the log.  It starts with
 * a skippable frame of this magic (little-endian, then a 32-bit length)
 * holding the header lines as text; decompressors pass over it. */
#define MTF_ZSTD_SUFFIX ".zst"
#define MTF_ZSTD_HEADER_MAGIC 0x184D2A5Cu

#endif /* MTRACE_FORMAT_H */
