/* SPDX-License-Identifier: GPL-3.0-or-later */
/* treesum.c - the rows of a list of logs and their combined summary (see
 * treesum.h).  Kept apart from the writers: the text report prints the
 * summary, the run's HTML page its process table, both from these rows.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define _GNU_SOURCE /* sigabbrev_np */
#include "output/treesum.h"
#include "base/util.h"
#include "output/vgreport.h"
#include "replay/logend.h"

#include <inttypes.h>
#include <string.h>

static struct tree tree;
static int active;

void treesum_begin(void)
{
    active = 1;
}

int treesum_active(void)
{
    return active;
}

void treesum_log(const char *log)
{
    tree.p = xrealloc(tree.p, (tree.n + 1) * sizeof *tree.p);
    struct tree_proc *p = &tree.p[tree.n++];
    memset(p, 0, sizeof *p);
    p->log = xstrdup(log);
    p->status = 2; /* until it is checked */
}

static struct tree_proc *current(void)
{
    return tree.n ? &tree.p[tree.n - 1] : NULL;
}

/* How the log ended, in a few words. */
static void end_words(struct tree_proc *p, const struct findings *f)
{
    const struct log_end *e = f->end;
    if (!f->extended)
        snprintf(p->end, sizeof p->end, "-");
    else if (!e || !e->seen)
        snprintf(p->end, sizeof p->end, "cut short");
    else if (e->reason == END_SIGNAL && e->sig > 0 && sigabbrev_np(e->sig))
        snprintf(p->end, sizeof p->end, "signal %d (SIG%s)", e->sig,
                 sigabbrev_np(e->sig));
    else
        snprintf(p->end, sizeof p->end, "%s", e->word);
}

static void add(struct tree_sum *s, uint64_t bytes, uint64_t blocks,
                uint64_t records)
{
    s->bytes += bytes;
    s->blocks += blocks;
    s->records += records;
}

static const enum tree_row row_of_class[CLASS_COUNT] = {
    [CLASS_UNKNOWN] = TREE_UNKNOWN,   [CLASS_REACHABLE] = TREE_REACHABLE,
    [CLASS_POSSIBLE] = TREE_POSSIBLE, [CLASS_INDIRECT] = TREE_INDIRECT,
    [CLASS_DEFINITE] = TREE_DEFINITE,
};

/* A log with verdicts: the sums by class, and its loss records. */
static void take_classes(struct tree_proc *p, const struct findings *f)
{
    for (int c = 0; c < CLASS_COUNT; c++) {
        const struct class_sum *s = &f->sums.sum[c];
        add(&p->row[row_of_class[c]], s->bytes, s->blocks, 0);
        if (class_is_leak((enum leak_class)c)) {
            p->lost_bytes += s->bytes;
            p->lost_blocks += s->blocks;
        }
    }
    add(&p->row[TREE_SUPPRESSED], f->sums.suppressed.bytes,
        f->sums.suppressed.blocks, 0);
    for (size_t i = 0; i < f->nrecords; i++) {
        const struct loss_record *r = &f->records[i];
        p->row[r->suppressed >= 0 ? TREE_SUPPRESSED : row_of_class[r->cls]]
            .records++;
    }
}

void treesum_findings(const struct findings *f)
{
    struct tree_proc *p = current();
    if (p == NULL)
        return;
    p->checked = 1;
    p->extended = f->extended;
    p->classified = f->classified;
    p->program = f->program ? xstrdup(f->program) : NULL;
    p->pid = f->stacks ? f->stacks->pid : 0;
    p->ppid = f->stacks ? f->stacks->ppid : 0;
    p->failing = f->failing;
    end_words(p, f);
    if (f->classified) {
        take_classes(p, f);
    } else {
        add(&p->row[TREE_NOTFREED], f->totals.leaked_bytes,
            f->totals.leaked_blocks, f->nrecords);
        p->lost_bytes = f->totals.leaked_bytes;
        p->lost_blocks = f->totals.leaked_blocks;
    }
    for (int r = 0; r < TREE_ROWS; r++)
        add(&tree.row[r], p->row[r].bytes, p->row[r].blocks,
            p->row[r].records);
    tree.any_extended |= f->extended;
}

void treesum_status(int status)
{
    struct tree_proc *p = current();
    if (p)
        p->status = status;
}

const struct tree *treesum_tree(void)
{
    return &tree;
}

int treesum_exit_status(const struct tree *t)
{
    int worst = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->p[i].status == 2 || (t->p[i].status == 1 && worst == 0))
            worst = t->p[i].status;
    return worst;
}

const char *treesum_words(enum tree_row r)
{
    static const char *const words[TREE_ROWS] = {
        [TREE_DEFINITE] = "definitely lost",
        [TREE_INDIRECT] = "indirectly lost",
        [TREE_POSSIBLE] = "possibly lost",
        [TREE_REACHABLE] = "still reachable",
        [TREE_UNKNOWN] = "not classified",
        [TREE_NOTFREED] = "not freed (no verdict)",
        [TREE_SUPPRESSED] = "suppressed",
    };
    return words[r];
}

/* ---- the text ------------------------------------------------------------ */

static void text_process(FILE *out, const struct tree_proc *p)
{
    char pid[24] = "?", ppid[24] = "-", a[32], b[32];
    if (p->pid)
        snprintf(pid, sizeof pid, "%" PRIu64, p->pid);
    if (p->ppid)
        snprintf(ppid, sizeof ppid, "%" PRIu64, p->ppid);
    if (!p->checked) {
        fprintf(out, "%8s %8s  %-20s %6d  %-24s %s\n", "?", "-", "-",
                p->status, "not checked", p->log);
        return;
    }
    char lost[80];
    snprintf(lost, sizeof lost, "%s bytes in %s blocks",
             vg_commas(p->lost_bytes, a), vg_commas(p->lost_blocks, b));
    fprintf(out, "%8s %8s  %-20s %6d  %-24s %s", pid, ppid, p->end, p->status,
            lost, p->log);
    if (p->program)
        fprintf(out, " (%s)", p->program);
    putc('\n', out);
}

static void text_row(FILE *out, const struct tree *t, enum tree_row r)
{
    char a[32], b[32], c[32];
    const struct tree_sum *s = &t->row[r];
    fprintf(out, "%24s: %s bytes in %s blocks, %s loss records\n",
            treesum_words(r), vg_commas(s->bytes, a), vg_commas(s->blocks, b),
            vg_commas(s->records, c));
}

static size_t count(const struct tree *t, int (*pred)(const struct tree_proc *))
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += pred(&t->p[i]) != 0;
    return n;
}

static int not_checked(const struct tree_proc *p)
{
    return !p->checked;
}

static int with_leaks(const struct tree_proc *p)
{
    return p->status == 1;
}

static int no_verdicts(const struct tree_proc *p)
{
    return p->checked && !p->classified;
}

void treesum_text(FILE *out, const struct tree *t)
{
    if (!t->any_extended)
        return;
    fprintf(out, "\n==> summary of %zu logs <==\n\n", t->n);
    fprintf(out, "%8s %8s  %-20s %6s  %-24s %s\n", "pid", "ppid", "end",
            "status", "leaks", "log (program)");
    for (size_t i = 0; i < t->n; i++)
        text_process(out, &t->p[i]);
    size_t checked = t->n - count(t, not_checked);
    fprintf(out, "\nLEAK SUMMARY of %zu processes:\n", checked);
    for (int r = TREE_DEFINITE; r <= TREE_REACHABLE; r++)
        text_row(out, t, (enum tree_row)r);
    if (t->row[TREE_UNKNOWN].blocks)
        text_row(out, t, TREE_UNKNOWN);
    if (count(t, no_verdicts))
        text_row(out, t, TREE_NOTFREED);
    text_row(out, t, TREE_SUPPRESSED);
    int status = treesum_exit_status(t);
    fprintf(out, "\nstatus %d: %zu of %zu logs with leaks that fail the check, "
                 "%zu not checked\n",
            status, count(t, with_leaks), t->n, count(t, not_checked));
}
