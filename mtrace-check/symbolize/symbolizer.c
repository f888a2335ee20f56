/* SPDX-License-Identifier: GPL-3.0-or-later */
/* symbolizer.c - libbfd-based symbolization (see symbolizer.h).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#define PACKAGE "mtrace-check" /* bfd.h insists on a config.h */
#define PACKAGE_VERSION "1"
#include <bfd.h>

#include "symbolize/debugimage.h"
#include "symbolize/demangle.h"
#include "base/maps.h"
#include "symbolize/symbolizer.h"
#include "symbolize/symextent.h"
#include "symbolize/symindex.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct objfile {
    char *path;
    /* The file, for another path that names it (the command line's
     * "./prog" and the log's "/abs/prog"): opened and read once.  Inode 0:
     * not known (stat failed), never shared. */
    dev_t dev;
    ino_t ino;
    struct objfile *next_owned;
    bfd *abfd;      /* NULL: unusable, addr2line would print nothing */
    asymbol **syms; /* NULL when the file has none */
    /* Without debug information, the functions are found in this index
     * of syms rather than by libbfd's scan of all of them per address. */
    int index_tried;
    struct symindex *index; /* NULL: libbfd answers */
    /* Where the file's function symbols end, for the stack report. */
    int extent_tried;
    struct symextent *extent; /* NULL: not known */
    char build_id[129];
    struct u64map frames_cache; /* vma -> struct sym_result * */
    /* For the stack report: the file holding the DWARF, its compressed
     * sections decompressed by libdeflate as libbfd reads them
     * (debugimage.h). */
    int image_tried;
    bfd *image_bfd; /* NULL: the frames come from abfd */
    asymbol **image_syms;
    struct debug_image image;
};

static struct strmap open_files; /* path -> struct objfile * */
static struct objfile *owned;    /* every objfile, each once */

/* libbfd is not thread-safe: every use of it, and of the tables above, is
 * under this lock (the prefetch thread below is the only other user). */
static pthread_mutex_t sym_lock = PTHREAD_MUTEX_INITIALIZER;

/* libbfd reports DWARF oddities on stderr through this hook; addr2line's
 * stderr is not part of the checker's output, so keep ours quiet. */
static void quiet_error_handler(const char *fmt, va_list ap)
{
    (void)fmt;
    (void)ap;
}

void sym_init(void)
{
    bfd_init();
    bfd_set_error_handler(quiet_error_handler);
    strmap_init(&open_files);
}

/* addr2line's get_file_size() test: it gives up on anything that is not a
 * regular file of at least one byte. */
static int looks_openable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 1;
}

/* addr2line's slurp_symtab(): static table, else dynamic, else none.
 * Where addr2line would die (a table it cannot read), *fatal is set. */
static asymbol **read_symbols(bfd *abfd, int *fatal)
{
    long storage, count;
    int dynamic = 0;
    asymbol **syms;

    *fatal = 0;
    if ((bfd_get_file_flags(abfd) & HAS_SYMS) == 0)
        return NULL;
    storage = bfd_get_symtab_upper_bound(abfd);
    if (storage == 0) {
        storage = bfd_get_dynamic_symtab_upper_bound(abfd);
        dynamic = 1;
    }
    if (storage < 0) {
        *fatal = 1;
        return NULL;
    }
    syms = xmalloc((size_t)storage);
    count = dynamic ? bfd_canonicalize_dynamic_symtab(abfd, syms)
                    : bfd_canonicalize_symtab(abfd, syms);
    if (count < 0) {
        *fatal = 1;
        free(syms);
        return NULL;
    }
    if (count == 0 && !dynamic) {
        storage = bfd_get_dynamic_symtab_upper_bound(abfd);
        if (storage > 0) {
            free(syms);
            syms = xmalloc((size_t)storage);
            count = bfd_canonicalize_dynamic_symtab(abfd, syms);
        }
    }
    if (count <= 0) {
        free(syms);
        return NULL;
    }
    return syms;
}

static void copy_build_id(struct objfile *o)
{
    static const char digits[] = "0123456789abcdef";
    const struct bfd_build_id *id = o->abfd->build_id;

    if (!id || id->size > 64)
        return;
    for (bfd_size_type i = 0; i < id->size; i++) {
        o->build_id[2 * i] = digits[id->data[i] >> 4];
        o->build_id[2 * i + 1] = digits[id->data[i] & 15];
    }
    o->build_id[2 * id->size] = '\0';
}

static bfd *open_object(const char *path)
{
    char **matching = NULL;
    bfd *abfd;

    if (!looks_openable(path))
        return NULL;
    abfd = bfd_openr(path, NULL);
    if (!abfd)
        return NULL;
    abfd->flags |= BFD_DECOMPRESS;
    if (bfd_check_format(abfd, bfd_archive) ||
        !bfd_check_format_matches(abfd, bfd_object, &matching)) {
        free(matching);
        bfd_close(abfd);
        return NULL;
    }
    return abfd;
}

/* The objfile already open for the file at PATH under another name. */
static struct objfile *same_file(const struct stat *st)
{
    for (struct objfile *o = owned; o; o = o->next_owned)
        if (o->ino != 0 && o->dev == st->st_dev && o->ino == st->st_ino)
            return o;
    return NULL;
}

static struct objfile *open_locked(const char *path)
{
    void **slot = strmap_put(&open_files, (struct slice){ path, strlen(path) });
    struct objfile *o = *slot;
    struct stat st;

    if (o)
        return o;
    int known = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    if (known && (o = same_file(&st)) != NULL)
        return *slot = o;
    o = xcalloc(1, sizeof *o);
    o->path = xstrdup(path);
    if (known) {
        o->dev = st.st_dev;
        o->ino = st.st_ino;
    }
    u64map_init(&o->frames_cache);
    o->abfd = open_object(path);
    if (o->abfd) {
        int fatal;
        o->syms = read_symbols(o->abfd, &fatal);
        copy_build_id(o);
        if (fatal) {
            /* A truncated or corrupt symbol table: addr2line dies there,
			 * printing nothing, so the file counts as unusable. */
            bfd_close(o->abfd);
            o->abfd = NULL;
        }
    }
    o->next_owned = owned;
    owned = o;
    *slot = o;
    return o;
}

int sym_usable(const struct objfile *o)
{
    return o->abfd != NULL;
}

const char *sym_build_id(const struct objfile *o)
{
    return o->build_id;
}

/* addr2line trims an address to the file's address size (and sign-extends
 * it on targets that want that) before looking it up. */
static uint64_t fit_to_target(bfd *abfd, uint64_t pc)
{
    if (bfd_get_flavour(abfd) != bfd_target_elf_flavour)
        return pc;
    int bits = bfd_get_arch_size(abfd);
    if (bits <= 0 || bits > 64)
        return pc;
    uint64_t sign = (uint64_t)1 << (bits - 1);
    pc &= (sign << 1) - 1;
    if (bfd_get_sign_extend_vma(abfd) > 0)
        pc = (pc ^ sign) - sign;
    return pc;
}

struct line_query {
    const char *file, *func;
    unsigned line, discriminator;
};

/* The index of O's symbols when libbfd would find its functions from
 * them alone (no debug information), built on the first lookup. */
static const struct symindex *index_of(struct objfile *o)
{
    if (!o->index_tried) {
        o->index_tried = 1;
        if (o->abfd && o->syms && symindex_applies(o->abfd))
            o->index = symindex_build(o->syms);
    }
    return o->index;
}

/* One section's answer for OFF: from IX when given (what libbfd's scan of
 * the symbol table would say), else from libbfd. */
static int find_in_section(bfd *abfd, asymbol **syms, const struct symindex *ix,
                           asection *sec, bfd_vma off, struct line_query *q)
{
    memset(q, 0, sizeof *q);
    if (ix)
        return symindex_find(ix, sec, off, &q->func, &q->file);
    return bfd_find_nearest_line_discriminator(
        abfd, sec, syms, off, &q->file, &q->func, &q->line, &q->discriminator);
}

/* The first allocated section of ABFD holding PC that yields a line
 * answers. */
static int find_frame_line(bfd *abfd, asymbol **syms, const struct symindex *ix,
                           uint64_t pc, struct line_query *q)
{
    for (asection *sec = abfd->sections; sec; sec = sec->next) {
        if ((bfd_section_flags(sec) & SEC_ALLOC) == 0)
            continue;
        bfd_vma vma = bfd_section_vma(sec);
        if (pc < vma || pc >= vma + bfd_section_size(sec))
            continue;
        if (find_in_section(abfd, syms, ix, sec, pc - vma, q))
            return 1;
    }
    return 0;
}

static bfd *image_of(struct objfile *o);

/* A line of O's DWARF from its decompressed image (image_of), which the
 * stack report reads too: libbfd reading the file itself for addr2line
 * would inflate that DWARF a second time, with zlib, on the main thread
 * after the replay (7.5 ms of the 60 on bench/wl's 2M-line stack log).
 * Only an answer with a line number is taken: it comes from the DWARF,
 * the same as through the file.  Line 0 or none may be libbfd's fallback
 * to a symbol table, and the image's table is the debug file's, not the
 * file's: find_line asks the file itself then, as addr2line does. */
static int image_line(struct objfile *o, uint64_t addr, struct line_query *q)
{
    bfd *image = image_of(o);
    return image &&
           find_frame_line(image, o->image_syms, NULL,
                           fit_to_target(image, addr), q) &&
           q->line != 0;
}

static int find_line(struct objfile *o, uint64_t addr, struct line_query *q)
{
    return image_line(o, addr, q) ||
           find_frame_line(o->abfd, o->syms, index_of(o),
                           fit_to_target(o->abfd, addr), q);
}

static char *addr2line_locked(struct objfile *o, uint64_t addr)
{
    struct line_query q;
    char buf[64];
    char *out;
    size_t n;

    if (!o->abfd)
        return NULL;
    if (!find_line(o, addr, &q))
        return xstrdup("??:0");
    const char *file = q.file ? q.file : "??";
    if (q.line == 0)
        snprintf(buf, sizeof buf, "?");
    else if (q.discriminator)
        snprintf(buf, sizeof buf, "%u (discriminator %u)", q.line,
                 q.discriminator);
    else
        snprintf(buf, sizeof buf, "%u", q.line);
    n = strlen(file) + 1 + strlen(buf) + 1;
    out = xmalloc(n);
    snprintf(out, n, "%s:%s", file, buf);
    return out;
}

static void push_frame(struct sym_result *r, unsigned *cap, const char *func,
                       const char *file, unsigned line)
{
    if (r->nframes == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        r->frames = xrealloc(r->frames, *cap * sizeof *r->frames);
    }
    struct sym_frame *f = &r->frames[r->nframes++];
    f->function = func && *func ? demangle_name(func) : NULL;
    f->file = file ? xstrdup(file) : NULL;
    f->line = line;
    f->inlined = 0;
}

/* Inline chains are finite, but a corrupt DWARF could loop: cap them. */
enum { MAX_INLINE_DEPTH = 64 };

/* ---- decompressed debug files -------------------------------------------
 * bfd_openr_iovec's callbacks serve the image from memory. */

static void *image_open(struct bfd *nbfd, void *closure)
{
    (void)nbfd;
    return closure;
}

static file_ptr image_pread(struct bfd *nbfd, void *stream, void *buf,
                            file_ptr nbytes, file_ptr offset)
{
    (void)nbfd;
    if (offset < 0 || nbytes < 0)
        return 0;
    return (file_ptr)debug_image_read(stream, buf, (size_t)nbytes,
                                      (uint64_t)offset);
}

static int image_close(struct bfd *nbfd, void *stream)
{
    (void)nbfd;
    (void)stream;
    return 0;
}

static int image_stat(struct bfd *abfd, void *stream, struct stat *sb)
{
    const struct debug_image *img = stream;
    (void)abfd;
    memset(sb, 0, sizeof *sb);
    sb->st_mode = S_IFREG | 0444;
    sb->st_size = (off_t)img->size;
    return 0;
}

/* The file libbfd would take O's DWARF from: O itself when it has any,
 * else its separate debug file named by build-id. */
static const char *dwarf_file(struct objfile *o, char *buf, size_t size)
{
    if (bfd_get_section_by_name(o->abfd, ".debug_info"))
        return o->path;
    if (strlen(o->build_id) < 4)
        return NULL;
    snprintf(buf, size, "/usr/lib/debug/.build-id/%.2s/%s.debug", o->build_id,
             o->build_id + 2);
    return looks_openable(buf) ? buf : NULL;
}

/* When O's DWARF is compressed, open a decompressed image of the file
 * that holds it for the stack report; it gives the answers libbfd would
 * give from the file itself (the same DWARF, the file's own symbols). */
static void open_image(struct objfile *o)
{
    char buf[4096];
    const char *path;
    int fatal;

    o->image_tried = 1;
    if (!o->abfd || !(path = dwarf_file(o, buf, sizeof buf)) ||
        debug_image_build(path, &o->image) != 0)
        return;
    bfd *b = bfd_openr_iovec(path, NULL, image_open, &o->image, image_pread,
                             image_close, image_stat);
    if (b && bfd_check_format(b, bfd_object)) {
        o->image_syms = read_symbols(b, &fatal);
        if (!fatal) {
            o->image_bfd = b;
            return;
        }
    }
    if (b)
        bfd_close(b);
    debug_image_free(&o->image);
}

/* O's image, opened at the first call; NULL: the file serves. */
static bfd *image_of(struct objfile *o)
{
    if (!o->image_tried)
        open_image(o);
    return o->image_bfd;
}

/* An answer without a line comes from a symbol table (symindex.h, or
 * libbfd's fallback when the DWARF does not cover PC): the nearest symbol
 * before PC, however far it ends before PC.  Then PC must lie inside a
 * function symbol's extent, else the frame is unnamed ("??", with its
 * module and offset) rather than named after the wrong function.  The
 * STT_FILE name that came with it goes too. */
static void check_extent(struct objfile *o, uint64_t pc, struct line_query *q)
{
    if (q->line != 0 || !q->func)
        return;
    if (!o->extent_tried) {
        o->extent_tried = 1;
        o->extent = symextent_load(o->path);
    }
    if (o->extent && !symextent_covers(o->extent, pc))
        q->func = q->file = NULL;
}

static struct sym_result *resolve(struct objfile *o, uint64_t vma)
{
    struct sym_result *r = xcalloc(1, sizeof *r);
    struct line_query q;
    unsigned cap = 0;

    bfd *image = image_of(o);
    bfd *abfd = image ? image : o->abfd;
    asymbol **syms = image ? o->image_syms : o->syms;
    const struct symindex *ix = image ? NULL : index_of(o);
    uint64_t pc = abfd ? fit_to_target(abfd, vma) : 0;
    if (!abfd || !find_frame_line(abfd, syms, ix, pc, &q))
        return r;
    check_extent(o, pc, &q);
    push_frame(r, &cap, q.func, q.file, q.line);
    /* No inlined frames without DWARF (libbfd would find none). */
    while (!ix && r->nframes < MAX_INLINE_DEPTH &&
           bfd_find_inliner_info(abfd, &q.file, &q.func, &q.line)) {
        r->frames[r->nframes - 1].inlined = 1;
        push_frame(r, &cap, q.func, q.file, q.line);
    }
    return r;
}

static const struct sym_result *frames_locked(struct objfile *o, uint64_t vma)
{
    void **slot = u64map_put(&o->frames_cache, vma);

    if (!*slot)
        *slot = resolve(o, vma);
    return *slot;
}

struct objfile *sym_open(const char *path)
{
    pthread_mutex_lock(&sym_lock);
    struct objfile *o = open_locked(path);
    pthread_mutex_unlock(&sym_lock);
    return o;
}

char *sym_addr2line(struct objfile *o, uint64_t addr)
{
    pthread_mutex_lock(&sym_lock);
    char *line = addr2line_locked(o, addr);
    pthread_mutex_unlock(&sym_lock);
    return line;
}

const struct sym_result *sym_frames(struct objfile *o, uint64_t vma)
{
    pthread_mutex_lock(&sym_lock);
    const struct sym_result *r = frames_locked(o, vma);
    pthread_mutex_unlock(&sym_lock);
    return r;
}

/* ---- prefetch --------------------------------------------------------------
 * The first lookup in a module reads all of its DWARF (for glibc's own
 * debug file, tens of megabytes decompressed with zlib: a quarter of the
 * checker's time on a large log with leaks).  A thread does that while the
 * log is still being read, for the modules its stacks name. */

enum { PREFETCH_MAX = 32 };

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    pthread_t thread;
    int started, stopping, busy;
    size_t head, count, total;
    struct {
        char *path;
        uint64_t vma;
    } queue[PREFETCH_MAX];
} pf = { .lock = PTHREAD_MUTEX_INITIALIZER,
         .wake = PTHREAD_COND_INITIALIZER,
         .idle = PTHREAD_COND_INITIALIZER };

static void *prefetch_thread(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pf.lock);
    for (;;) {
        while (pf.count == 0 && !pf.stopping)
            pthread_cond_wait(&pf.wake, &pf.lock);
        if (pf.stopping)
            break;
        char *path = pf.queue[pf.head].path;
        uint64_t vma = pf.queue[pf.head].vma;
        pf.head = (pf.head + 1) % PREFETCH_MAX;
        pf.count--;
        pf.busy = 1;
        pthread_mutex_unlock(&pf.lock);
        sym_frames(sym_open(path), vma);
        free(path);
        pthread_mutex_lock(&pf.lock);
        pf.busy = 0;
        if (pf.count == 0)
            pthread_cond_broadcast(&pf.idle);
    }
    pf.busy = 0;
    pthread_cond_broadcast(&pf.idle);
    pthread_mutex_unlock(&pf.lock);
    return NULL;
}

void sym_prefetch_wait_idle(void)
{
    pthread_mutex_lock(&pf.lock);
    while ((pf.busy || pf.count) && !pf.stopping)
        pthread_cond_wait(&pf.idle, &pf.lock);
    pthread_mutex_unlock(&pf.lock);
}

void sym_prefetch(const char *path, uint64_t vma)
{
    pthread_mutex_lock(&pf.lock);
    if (!pf.stopping && pf.total < PREFETCH_MAX) {
        if (!pf.started)
            pf.started = pthread_create(&pf.thread, NULL, prefetch_thread,
                                        NULL) == 0;
        if (pf.started) {
            size_t tail = (pf.head + pf.count) % PREFETCH_MAX;
            pf.queue[tail].path = xstrdup(path);
            pf.queue[tail].vma = vma;
            pf.count++;
            pf.total++;
            pthread_cond_signal(&pf.wake);
        }
    }
    pthread_mutex_unlock(&pf.lock);
}

/* Stops the prefetch thread; returns 0 when it is still inside libbfd (a
 * log without leaks never needed what it reads: the process may end
 * without waiting for it). */
static int prefetch_stop(void)
{
    pthread_mutex_lock(&pf.lock);
    pf.stopping = 1;
    for (; pf.count; pf.count--, pf.head = (pf.head + 1) % PREFETCH_MAX)
        free(pf.queue[pf.head].path);
    int busy = pf.busy;
    pthread_cond_signal(&pf.wake);
    pthread_cond_broadcast(&pf.idle);
    pthread_mutex_unlock(&pf.lock);
    if (pf.started && !busy)
        pthread_join(pf.thread, NULL);
    return !busy;
}

static void free_result(void *p)
{
    struct sym_result *r = p;
    for (unsigned i = 0; i < r->nframes; i++) {
        free(r->frames[i].function);
        free(r->frames[i].file);
    }
    free(r->frames);
    free(r);
}

static void close_objfile(struct objfile *o)
{
    u64map_each(&o->frames_cache, free_result);
    u64map_destroy(&o->frames_cache);
    if (o->abfd)
        bfd_close(o->abfd);
    if (o->image_bfd)
        bfd_close(o->image_bfd);
    free(o->image_syms);
    debug_image_free(&o->image);
    symindex_free(o->index);
    symextent_free(o->extent);
    free(o->syms);
    free(o->path);
    free(o);
}

void sym_stop(void)
{
    prefetch_stop();
}

void sym_shutdown(void)
{
    if (!prefetch_stop())
        return; /* the process ends: its memory goes with it */
    /* From the list, not the map: two paths may share an objfile. */
    while (owned) {
        struct objfile *next = owned->next_owned;
        close_objfile(owned);
        owned = next;
    }
    strmap_destroy(&open_files);
}
