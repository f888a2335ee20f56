/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sarif.c - --sarif FILE: the leaks as SARIF 2.1.0, what GitHub code
 * scanning (and other SARIF viewers) read.  One run of the tool
 * "mtrace-check" for every log of the check; one rule per class (rule id
 * = the class's name in --json); one result per leak loss record (a lost
 * class, or a --fail-on one; suppressed records left out), located at
 * the innermost frame of the program's own code with a source line
 * (fingerprint.h), relative to %SRCROOT% (the working directory) when the
 * file is below it; its whole allocation stack as a SARIF stack; the
 * fingerprint as partialFingerprints "mtraceLossRecord/v1" (stable across
 * rebuilds and ASLR: GitHub keeps an alert open across runs by it); with
 * --baseline, baselineState "unchanged" or "new".  Level: "error" for
 * records that fail the run, "warning" for other leaks, "note" for those
 * in the baseline.  tests/integration validates the file against the
 * OASIS schema.
 *
 * Copyright (C) 2026 the libmtrace authors. */
#include "output/cifields.h"
#include "base/diag.h"
#include "output/json.h"
#include "findings/noverdict.h"
#include "output/cires.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
    const char *name, *summary, *help;
} rule_text[CLASS_COUNT] = {
    [CLASS_DEFINITE] = { "DefinitelyLost",
                         "Memory definitely lost: no pointer to the block "
                         "was left anywhere the program could reach.",
                         "Free the block on every path, or keep a pointer "
                         "to it where it stays reachable." },
    [CLASS_INDIRECT] = { "IndirectlyLost",
                         "Memory indirectly lost: only lost blocks point "
                         "to it.",
                         "Freeing the definitely lost block that points to "
                         "it usually frees it too." },
    [CLASS_POSSIBLE] = { "PossiblyLost",
                         "Memory possibly lost: only pointers into the "
                         "middle of the block were left.",
                         "An interior pointer keeps it; check whether the "
                         "block is still meant to be freed." },
    [CLASS_REACHABLE] = { "StillReachable",
                          "Memory still reachable at exit: the program "
                          "could still have freed it.",
                          "Not a leak; listed because --fail-on asked for "
                          "it." },
    [CLASS_UNKNOWN] = { "NotClassified",
                        "Memory allocated after the last reachability "
                        "scan: not classified.",
                        "Listed because --fail-on asked for it." },
};

static const char *level(const struct ci_record *r)
{
    return r->baseline ? "note" : r->failing ? "error" : "warning";
}

/* Whether a record of REP is of a log without verdicts (the rule of
 * those is listed only then: other runs' files stay as they were). */
static int any_noverdict(const struct ci_report *rep)
{
    for (size_t k = 0; k < rep->nlogs; k++)
        for (size_t i = 0; i < rep->logs[k].n; i++)
            if (rep->logs[k].r[i].noverdict)
                return 1;
    return 0;
}

/* Whether a log of REP has a resource not released (its rule is listed
 * only then). */
static int any_resource(const struct ci_report *rep)
{
    for (size_t k = 0; k < rep->nlogs; k++)
        if (rep->logs[k].nres)
            return 1;
    return 0;
}

/* The rule of the blocks of a log without verdicts: after the classes'
 * (its ruleIndex is CLASS_COUNT). */
static const struct {
    const char *name, *summary, *help;
} not_freed_text = {
    "NotFreed",
    "Memory not freed at exit, in a log without reachability verdicts "
    "(glibc's tracer, MEMLEAK_CONFIG=reach=0, or a process killed before "
    "its exit scan): whether a pointer to it was left is not known.",
    "Free the block, or trace with libmtrace's reachability scan (the "
    "default) to know whether it is lost or still reachable.",
};

static void rule(FILE *out, int first, const char *id, const char *name,
                 const char *summary, const char *help, const char *lvl)
{
    fprintf(out, "%s{\"id\":\"%s\",\"name\":\"%s\"", first ? "\n" : ",\n",
            id, name);
    fputs(",\"shortDescription\":{\"text\":", out);
    json_cstring(out, summary);
    fputs("},\"help\":{\"text\":", out);
    json_cstring(out, help);
    fprintf(out, "},\"defaultConfiguration\":{\"level\":\"%s\"}}", lvl);
}

/* The rule of resources not released (cires.c): after the others. */
static const struct {
    const char *name, *summary, *help;
} resource_text = {
    "ResourceNotReleased",
    "A resource (memleak_resource_acquire, or a file descriptor with "
    "MEMLEAK_CONFIG=fds=1) acquired and never released before exit.",
    "Release it (memleak_resource_release, close) on every path.",
};

/* The rules, and with them, the one of a log without verdicts and the
 * one of resources not released. */
static void rules(FILE *out, const struct ci_report *rep)
{
    fputs("\"rules\":[", out);
    for (int c = 0; c < CLASS_COUNT; c++)
        rule(out, c == 0, class_name((enum leak_class)c), rule_text[c].name,
             rule_text[c].summary, rule_text[c].help,
             c == CLASS_DEFINITE ? "error" : "warning");
    if (any_noverdict(rep))
        rule(out, 0, nv_id, not_freed_text.name, not_freed_text.summary,
             not_freed_text.help, "error");
    if (any_resource(rep))
        rule(out, 0, CI_RESOURCE_ID, resource_text.name, resource_text.summary,
             resource_text.help, "error");
    fputs("]", out);
}

/* A physicalLocation for FILE:LINE. */
static void physical(FILE *out, const char *file, unsigned line)
{
    fputs("\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"", out);
    if (file[0] == '/') {
        fputs("file://", out);
        ci_uri(out, file);
        putc('"', out);
    } else {
        ci_uri(out, file);
        fputs("\",\"uriBaseId\":\"SRCROOT\"", out);
    }
    putc('}', out);
    if (line)
        fprintf(out, ",\"region\":{\"startLine\":%u}", line);
    putc('}', out);
}

/* A location object for frame F (NULL: the log itself). */
static void location(FILE *out, const struct view_frame *f, const char *log)
{
    putc('{', out);
    const char *file = f ? (f->file ? ci_relpath(f->file) : f->module) : log;
    if (file)
        physical(out, file, f && f->file ? f->line : 0);
    if (f && f->function) {
        fputs(file ? ",\"logicalLocations\":[{\"fullyQualifiedName\":"
                   : "\"logicalLocations\":[{\"fullyQualifiedName\":",
              out);
        json_cstring(out, f->function);
        fputs(",\"kind\":\"function\"}]", out);
    }
    putc('}', out);
}

static void stack(FILE *out, const struct ci_record *r)
{
    fputs(",\"stacks\":[{\"message\":{\"text\":\"allocation stack, innermost "
          "frame first\"},\"frames\":[",
          out);
    for (size_t i = 0; i < r->frames.n; i++) {
        const struct view_frame *f = &r->frames.v[i];
        fputs(i ? ",{\"location\":" : "{\"location\":", out);
        location(out, f, NULL);
        if (f->module) {
            fputs(",\"module\":", out);
            json_cstring(out, f->module);
        }
        putc('}', out);
    }
    fputs("]}]", out);
}

static void result(FILE *out, const struct ci_report *rep,
                   const struct ci_log *l, const struct ci_record *r)
{
    int index = r->resource    ? CLASS_COUNT + any_noverdict(rep)
                : r->noverdict ? CLASS_COUNT
                               : (int)r->cls;
    fprintf(out, "{\"ruleId\":\"%s\",\"ruleIndex\":%d,\"level\":\"%s\"",
            ci_kind_id(r), index, level(r));
    fputs(",\"message\":{\"text\":", out);
    ci_message_json(out, rep, l, r);
    fputs("},\"locations\":[", out);
    location(out, r->has_stack ? fp_own_frame(&r->frames) : NULL, l->log);
    fprintf(out, "],\"partialFingerprints\":{\"mtraceLossRecord/v1\":\"%s\"}",
            r->fp);
    if (rep->baseline)
        fprintf(out, ",\"baselineState\":\"%s\"",
                r->baseline ? "unchanged" : "new");
    if (r->frames.n)
        stack(out, r);
    if (r->resource) {
        fputs(",\"properties\":{\"kind\":", out);
        json_cstring(out, r->resource);
        fprintf(out, ",\"count\":%" PRIu64 ",\"log\":", r->blocks);
    } else
        fprintf(out,
                ",\"properties\":{\"bytes\":%" PRIu64 ",\"blocks\":%" PRIu64
                ",\"indirectBytes\":%" PRIu64 ",\"log\":",
                r->bytes, r->blocks, r->indirect);
    json_cstring(out, l->log);
    fputs("}}", out);
}

/* %SRCROOT%: the working directory, where relative paths start. */
static void base_ids(FILE *out)
{
    char *cwd = getcwd(NULL, 0);
    if (cwd == NULL)
        return;
    fputs(",\"originalUriBaseIds\":{\"SRCROOT\":{\"uri\":\"file://", out);
    ci_uri(out, cwd);
    fputs(strcmp(cwd, "/") ? "/\"}}" : "\"}}", out);
    free(cwd);
}

int sarif_write(FILE *out, const struct ci_report *rep)
{
    fputs("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\","
          "\"version\":\"2.1.0\",\"runs\":[{\"tool\":{\"driver\":{"
          "\"name\":\"mtrace-check\",",
          out);
    rules(out, rep);
    fputs("}}", out);
    base_ids(out);
    fputs(",\"results\":[", out);
    int first = 1;
    for (size_t k = 0; k < rep->nlogs; k++)
        for (size_t i = 0; i < rep->logs[k].n + rep->logs[k].nres; i++) {
            const struct ci_log *l = &rep->logs[k];
            const struct ci_record *r =
                i < l->n ? &l->r[i] : &l->res[i - l->n];
            if (!ci_reported(r))
                continue;
            fputs(first ? "\n" : ",\n", out);
            first = 0;
            result(out, rep, l, r);
        }
    fputs("]}]}\n", out);
    return ferror(out) ? -1 : 0;
}
