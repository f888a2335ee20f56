/* SPDX-License-Identifier: GPL-3.0-or-later */
/* vgxml.c - --xml FILE (vgreport.h): memcheck's XML, protocol 4, as
 * valgrind's docs/internals/xml-output-protocol4.txt defines it: a
 * preamble, pid, ppid, tool, args, the RUNNING and FINISHED status, one
 * <error> per listed loss record (kind Leak_DefinitelyLost, ...,
 * <leakedbytes>, <leakedblocks>, the allocation stack), the error counts
 * and the suppressions used.  IDEs and CI plugins that read valgrind's
 * XML read this.  Several processes (a tree) go into one document under
 * the first one's pid, their loss records numbered across them all.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/vgreport.h"
#include "replay/verdict.h"

#include <inttypes.h>
#include <string.h>

/* Text for an element: the five characters XML reserves escaped; other
 * control characters (never in a name or path worth showing) as '?'. */
static void esc(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&apos;", out);
            break;
        default:
            putc(c < 0x20 && c != '\t' ? '?' : c, out);
        }
    }
}

static void elem(FILE *out, const char *indent, const char *tag,
                 const char *text)
{
    fprintf(out, "%s<%s>", indent, tag);
    esc(out, text);
    fprintf(out, "</%s>\n", tag);
}

static void frame(FILE *out, const struct vg_frame *f)
{
    fprintf(out, "    <frame>\n      <ip>0x%" PRIX64 "</ip>\n", f->ip);
    if (f->obj)
        elem(out, "      ", "obj", f->obj);
    if (f->fn)
        elem(out, "      ", "fn", f->fn);
    if (f->file) {
        const char *slash = strrchr(f->file, '/');
        if (slash) {
            fputs("      <dir>", out);
            for (const char *p = f->file; p < slash; p++) {
                char c[2] = { *p, '\0' };
                esc(out, c);
            }
            fputs(slash == f->file ? "/</dir>\n" : "</dir>\n", out);
        }
        elem(out, "      ", "file", slash ? slash + 1 : f->file);
        if (f->line)
            fprintf(out, "      <line>%u</line>\n", f->line);
    }
    fputs("    </frame>\n", out);
}

static void suppression(FILE *out, const struct vg_record *r)
{
    fprintf(out,
            "  <suppression>\n    <sname>insert_a_suppression_name_here"
            "</sname>\n    <skind>Memcheck:Leak</skind>\n    <skaux>"
            "match-leak-kinds: %s</skaux>\n",
            vg_supp_word(r->cls));
    for (size_t i = 0; i < r->nf; i++) {
        const struct vg_frame *f = &r->f[i];
        fputs("    <sframe> ", out);
        if (f->fn)
            elem(out, "", "fun", f->fn);
        else
            elem(out, "", "obj", f->obj ? f->obj : "*");
        fputs("    </sframe>\n", out);
    }
    fputs("    <rawtext>\n<![CDATA[\n", out);
    vg_write_suppression(out, r, 1);
    fputs("]]>\n    </rawtext>\n  </suppression>\n", out);
}

static void error(FILE *out, const struct vg_record *r, uint64_t unique,
                  uint64_t k, uint64_t total, const struct vg_options *o)
{
    char a[32], b[32], c[32], d[32], e[32], t[32];
    fprintf(out,
            "<error>\n  <unique>0x%" PRIx64 "</unique>\n  <tid>1</tid>\n"
            "  <kind>%s</kind>\n  <xwhat>\n    <text>",
            unique, vg_kind(r->cls));
    if (r->cls == CLASS_DEFINITE && r->indirect)
        fprintf(out, "%s (%s direct, %s indirect) bytes",
                vg_commas(r->bytes + r->indirect, a), vg_commas(r->bytes, b),
                vg_commas(r->indirect, c));
    else
        fprintf(out, "%s bytes", vg_commas(r->bytes, a));
    fprintf(out,
            " in %s blocks are %s in loss record %s of %s</text>\n"
            "    <leakedbytes>%" PRIu64 "</leakedbytes>\n"
            "    <leakedblocks>%" PRIu64 "</leakedblocks>\n  </xwhat>\n",
            vg_commas(r->blocks, d), vg_words(r->cls), vg_commas(k, e),
            vg_commas(total, t), r->bytes + r->indirect, r->blocks);
    if (r->nf) {
        fputs("  <stack>\n", out);
        for (size_t i = 0; i < r->nf; i++)
            frame(out, &r->f[i]);
        fputs("  </stack>\n", out);
    } else {
        /* a STACK has one FRAME at least: the unknown one */
        fputs("  <stack>\n    <frame>\n      <ip>0x0</ip>\n    </frame>\n"
              "  </stack>\n",
              out);
    }
    if (r->noverdict) /* protocol 4: an AUXWHAT after the stack */
        fprintf(out, "  <auxwhat>%s</auxwhat>\n", vg_noverdict_note);
    if (o->gen_supp)
        suppression(out, r);
    fputs("</error>\n\n", out);
}

static void head(FILE *out, const struct vg_process *p)
{
    const char *prog = p->program ? p->program : "?";
    fputs("<?xml version=\"1.0\"?>\n\n<valgrindoutput>\n\n"
          "<protocolversion>4</protocolversion>\n"
          "<protocoltool>memcheck</protocoltool>\n\n<preamble>\n",
          out);
    elem(out, "  ", "line",
         "Memcheck-compatible leak report of libmtrace (mtrace-check --xml)");
    fputs("  <line>Command: ", out);
    esc(out, prog);
    fprintf(out,
            "</line>\n</preamble>\n\n<pid>%" PRIu64 "</pid>\n<ppid>%" PRIu64
            "</ppid>\n<tool>memcheck</tool>\n\n<args>\n  <vargv>\n"
            "    <exe>mtrace-check</exe>\n  </vargv>\n  <argv>\n",
            p->pid, p->ppid);
    elem(out, "    ", "exe", prog);
    fputs("  </argv>\n</args>\n\n<status>\n  <state>RUNNING</state>\n"
          "  <time>00:00:00:00.000 </time>\n</status>\n\n<status>\n"
          "  <state>FINISHED</state>\n  <time>00:00:00:00.000 </time>\n"
          "</status>\n\n",
          out);
}

/* Suppressions used, summed by name over the processes. */
static void suppcounts(FILE *out, const struct vg_process *p, size_t n)
{
    fputs("<suppcounts>\n", out);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < p[i].nsupp; k++) {
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                for (size_t m = 0; m < p[j].nsupp && !seen; m++)
                    seen = strcmp(p[j].supp[m].name, p[i].supp[k].name) == 0;
            if (seen)
                continue;
            uint64_t count = 0;
            for (size_t j = i; j < n; j++)
                for (size_t m = 0; m < p[j].nsupp; m++)
                    if (strcmp(p[j].supp[m].name, p[i].supp[k].name) == 0)
                        count += p[j].supp[m].count;
            fprintf(out, "  <pair>\n    <count>%" PRIu64 "</count>\n", count);
            elem(out, "    ", "name", p[i].supp[k].name);
            fputs("  </pair>\n", out);
        }
    fputs("</suppcounts>\n", out);
}

void vg_xml(FILE *out, const struct vg_process *p, size_t n,
            const struct vg_options *o)
{
    static const struct vg_process none = { 0 };
    uint64_t total = 0, unique = 0, k = 0;
    head(out, n ? &p[0] : &none);
    for (size_t i = 0; i < n; i++)
        total += p[i].nrec;
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < p[i].nrec; r++) {
            k++;
            if (o->mode != VG_SUMMARY && vg_listed(&p[i].rec[r], o))
                error(out, &p[i].rec[r], unique++, k, total, o);
        }
    fputs("<errorcounts>\n</errorcounts>\n\n", out);
    suppcounts(out, p, n);
    fputs("\n</valgrindoutput>\n\n", out);
}
