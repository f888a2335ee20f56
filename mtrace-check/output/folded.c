/* SPDX-License-Identifier: GPL-3.0-or-later */
/* folded.c - the folded-stack format (see folded.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/folded.h"
#include "output/writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

uint64_t folded_weight(const struct tl_stack *s, enum folded_view v)
{
    switch (v) {
    case FOLDED_LEAKS:
        return s->live_bytes;
    case FOLDED_PEAK:
        return s->peak_bytes;
    case FOLDED_ALL:
        return s->alloc_bytes;
    }
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *folded_label(const struct view_frame *f, char *buf, size_t size)
{
    if (f->function)
        snprintf(buf, size, "%s%s", f->function,
                 f->inlined ? " [inlined]" : "");
    else if (f->module)
        snprintf(buf, size, "%s+0x%" PRIx64, base_name(f->module), f->off);
    else
        snprintf(buf, size, "0x%" PRIx64, f->off);
    for (unsigned char *p = (unsigned char *)buf; *p; p++)
        if (*p == ';' || *p < 0x20 || *p == 0x7f)
            *p = '_';
    return buf;
}

struct line {
    char *text;
    uint64_t weight;
};

/* Root first: the view lists frame 0 (the allocation's caller) first. */
static char *stack_text(struct ext_store *x, int32_t stack,
                        struct view_frames *vf)
{
    char label[1024];
    size_t len = 0, cap = 256;

    if (stack < 0)
        return xstrdup(FOLDED_NO_STACK);
    char *s = xmalloc(cap);
    view_stack(x, &x->stacks[stack], vf);
    s[0] = '\0';
    for (size_t i = vf->n; i-- > 0;) {
        folded_label(&vf->v[i], label, sizeof label);
        size_t n = strlen(label);
        if (len + n + 2 > cap) {
            cap = (len + n + 2) * 2;
            s = xrealloc(s, cap);
        }
        if (len)
            s[len++] = ';';
        memcpy(s + len, label, n + 1);
        len += n;
    }
    if (len == 0) {
        free(s);
        return xstrdup(FOLDED_NO_STACK);
    }
    return s;
}

static int by_text(const void *a, const void *b)
{
    return strcmp(((const struct line *)a)->text,
                  ((const struct line *)b)->text);
}

static int write_lines(FILE *out, struct ext_store *x,
                       const struct timeline *tl, enum folded_view v,
                       const uint64_t *weights)
{
    struct line *lines = xcalloc(tl->nstacks + 1, sizeof *lines);
    struct view_frames vf = { 0 };
    size_t n = 0;

    for (size_t i = 0; i < tl->nstacks; i++) {
        uint64_t w = weights ? weights[i] : folded_weight(&tl->stacks[i], v);
        int32_t stack = (int32_t)i - 1;
        if (w == 0 || (stack >= 0 && (size_t)stack >= x->nstacks))
            continue;
        lines[n].text = stack_text(x, stack, &vf);
        lines[n].weight = w;
        n++;
    }
    free(vf.v);
    qsort(lines, n, sizeof *lines, by_text);
    for (size_t i = 0; i < n;) {
        uint64_t w = 0;
        size_t j = i;
        for (; j < n && strcmp(lines[j].text, lines[i].text) == 0; j++)
            w += lines[j].weight;
        fprintf(out, "%s %" PRIu64 "\n", lines[i].text, w);
        i = j;
    }
    for (size_t i = 0; i < n; i++)
        free(lines[i].text);
    free(lines);
    return ferror(out) ? -1 : 0;
}

int folded_write(FILE *out, struct ext_store *x, const struct timeline *tl,
                 enum folded_view v)
{
    return write_lines(out, x, tl, v, NULL);
}

int folded_write_weights(FILE *out, struct ext_store *x,
                         const struct timeline *tl, const uint64_t *weights)
{
    return write_lines(out, x, tl, FOLDED_LEAKS, weights);
}

/* A log reported by class: the leaks are the lost classes' bytes, as in
 * the text report and the HTML page. */
static int findings(struct writer *w, const struct findings *f)
{
    enum folded_view v = (enum folded_view)w->opt->folded_view;
    if (v != FOLDED_LEAKS || !f->classified)
        return folded_write(w->out, f->stacks, f->tl, v);
    uint64_t *weights = findings_lost_bytes(f, f->tl->nstacks);
    int r = folded_write_weights(w->out, f->stacks, f->tl, weights);
    free(weights);
    return r;
}

/* Folded stacks take the report's place on standard output. */
const struct writer_ops folded_writer = {
    .name = "folded",
    .findings = findings,
};
