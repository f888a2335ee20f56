/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stopworld.c - see stopworld.h. */
#define _GNU_SOURCE
#include "scan/stopworld.h"
#include "base/arena.h"
#include "base/sigdefer.h"
#include "base/real.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define MAX_ROUNDS 16       /* re-reads of /proc/self/task               */
#define POLL_MS 10          /* between looks at threads that do not answer */
#define BLOCKED_GRACE_MS 50 /* a thread being created blocks signals briefly */

/* The slots of one stop, hashed by tid.  Tables are never unmapped: a
 * handler that runs late (its thread had the signal blocked) may still
 * look at one. */
struct stop_table {
    unsigned gen;
    pid_t pid;
    atomic_uint acks;
    size_t mask;
    struct stopped_thread slot[];
};

static struct stop_table *table;
static struct stop_table *_Atomic active;
static atomic_uint resume_gen;
static unsigned stop_gen;
static struct sigaction program_action;

static pid_t raw_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static void futex_wait(atomic_uint *word, unsigned seen, long timeout_ms)
{
    struct timespec ts = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000 };
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen,
            timeout_ms >= 0 ? &ts : NULL, NULL, 0);
}

static void futex_wake(atomic_uint *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static struct stopped_thread *lookup(struct stop_table *t, pid_t tid)
{
    size_t i = ((size_t)tid * 0x9e3779b97f4a7c15ull >> 32) & t->mask;
    while (t->slot[i].tid && t->slot[i].tid != tid)
        i = (i + 1) & t->mask;
    return &t->slot[i];
}

/* ---- the handler ------------------------------------------------------- */

static void pass_on(int sig, siginfo_t *si, void *ctx)
{
    /* A SIGURG of the program's with its handler interrupts a blocking
     * call as untraced; one it leaves at SIG_DFL or SIG_IGN would not
     * (the interruption is our handler's: restart.c resumes the call). */
    uintptr_t h = (program_action.sa_flags & SA_SIGINFO)
                      ? (uintptr_t)program_action.sa_sigaction
                      : (uintptr_t)program_action.sa_handler;
    if (h != (uintptr_t)SIG_DFL && h != (uintptr_t)SIG_IGN)
        sigdefer_count_program();
    else
        sigdefer_count_ours();
    if (program_action.sa_flags & SA_SIGINFO) {
        if (program_action.sa_sigaction)
            program_action.sa_sigaction(sig, si, ctx);
    } else if (program_action.sa_handler != SIG_DFL &&
               program_action.sa_handler != SIG_IGN) {
        program_action.sa_handler(sig);
    }
    /* SIG_DFL of SIGURG is to ignore it. */
}

static void save_context(struct stopped_thread *s, const ucontext_t *uc)
{
    const greg_t *g = uc->uc_mcontext.gregs;
    for (int i = 0; i < NGREG && i < STOP_REG_WORDS; i++)
        s->regs[i] = (uintptr_t)g[i];
    if (uc->uc_mcontext.fpregs)
        memcpy(&s->regs[NGREG], uc->uc_mcontext.fpregs->_xmm,
               sizeof uc->uc_mcontext.fpregs->_xmm);
    s->sp = (uintptr_t)g[REG_RSP];
    uintptr_t tp;
    __asm__("mov %%fs:0, %0" : "=r"(tp));
    s->tp = tp;
    stack_t ss;
    if (sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE)) {
        s->alt_lo = (uintptr_t)ss.ss_sp;
        s->alt_hi = (uintptr_t)ss.ss_sp + ss.ss_size;
    }
}

static void on_stop_signal(int sig, siginfo_t *si, void *ctx)
{
    int saved_errno = errno;
    struct stop_table *t = atomic_load(&active);
    struct stopped_thread *s = NULL;
    int expected = STOP_WANTED;
    if (t && si && si->si_code == SI_TKILL && si->si_pid == t->pid) {
        s = lookup(t, raw_gettid());
        if (s->tid == 0 ||
            !atomic_compare_exchange_strong(&s->state, &expected, STOP_TAKING))
            s = NULL;
    }
    if (s == NULL) {
        pass_on(sig, si, ctx);
        errno = saved_errno;
        return;
    }
    sigdefer_count_ours(); /* a blocking call it interrupts resumes */
    save_context(s, ctx);
    unsigned gen = t->gen;
    atomic_store(&s->state, STOP_DONE);
    atomic_fetch_add(&t->acks, 1);
    futex_wake(&t->acks);
    /* From here on only globals: the scanner may reuse the slot. */
    for (unsigned r; (r = atomic_load(&resume_gen)) != gen;)
        futex_wait(&resume_gen, r, -1);
    errno = saved_errno;
}

/* ---- reading /proc ----------------------------------------------------- */

struct dirent64_raw {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

static char dents[8192];

/* Calls FN for each thread id in /proc/self/task; -1 when unreadable. */
static int each_task(void (*fn)(pid_t tid, void *arg), void *arg)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/task",
                          O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    for (;;) {
        long n = syscall(SYS_getdents64, fd, dents, sizeof dents);
        if (n <= 0)
            break;
        for (long at = 0; at < n;) {
            struct dirent64_raw *d = (struct dirent64_raw *)(dents + at);
            pid_t tid = 0;
            for (const char *p = d->name; *p >= '0' && *p <= '9'; p++)
                tid = tid * 10 + (*p - '0');
            if (tid > 0)
                fn(tid, arg);
            at += d->reclen;
        }
    }
    syscall(SYS_close, fd);
    return 0;
}

static char status_buf[4096];

/* What /proc/self/task/TID/status says of the thread: its state letter
 * ('R', 'S', 'D', 'Z', ...; 0 when unreadable) and its blocked signals. */
static char task_status(pid_t tid, uint64_t *blocked)
{
    char path[64] = "/proc/self/task/", *p = path + strlen(path);
    char digits[16];
    int nd = 0;
    *blocked = 0;
    for (pid_t v = tid; v; v /= 10)
        digits[nd++] = (char)('0' + v % 10);
    while (nd)
        *p++ = digits[--nd];
    memcpy(p, "/status", 8);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    long n = syscall(SYS_read, fd, status_buf, sizeof status_buf - 1);
    syscall(SYS_close, fd);
    if (n <= 0)
        return 0;
    status_buf[n] = '\0';
    const char *state = strstr(status_buf, "\nState:");
    const char *blk = strstr(status_buf, "\nSigBlk:");
    if (state == NULL || blk == NULL)
        return 0;
    state += 7;
    while (*state == ' ' || *state == '\t')
        state++;
    blk += 8;
    while (*blk == ' ' || *blk == '\t')
        blk++;
    uint64_t mask = 0;
    for (; (*blk >= '0' && *blk <= '9') || (*blk >= 'a' && *blk <= 'f'); blk++)
        mask = mask << 4 |
               (uint64_t)(*blk <= '9' ? *blk - '0' : *blk - 'a' + 10);
    *blocked = mask;
    return *state;
}

/* The thread blocks STOP_SIGNAL and sleeps (in a system call). */
static int blocked_and_sleeping(pid_t tid)
{
    uint64_t mask;
    char state = task_status(tid, &mask);
    return (state == 'S' || state == 'D') && ((mask >> (STOP_SIGNAL - 1)) & 1);
}

/* A thread that has exited but is still listed: the main thread after
 * pthread_exit() while others run on (a zombie until the process ends),
 * or any thread between its exit and its reaping.  It will never answer. */
static int exited(pid_t tid)
{
    uint64_t mask;
    char state = task_status(tid, &mask);
    return state == 'Z' || state == 'X';
}

/* ---- stopping ------------------------------------------------------------ */

static void count_task(pid_t tid, void *arg)
{
    (void)tid;
    (*(size_t *)arg)++;
}

int world_prepare(void)
{
    size_t n = 0;
    if (each_task(count_task, &n) < 0)
        return -1;
    size_t want = 256;
    while (want < 4 * n + 256)
        want *= 2;
    if (table && table->mask + 1 >= want)
        return 0;
    struct stop_table *t = pages_map(sizeof *t +
                                     want * sizeof(struct stopped_thread));
    if (t == NULL)
        return table ? 0 : -1;
    t->mask = want - 1;
    table = t; /* the old one stays mapped: see struct stop_table */
    return 0;
}

struct round {
    struct stop_table *t;
    const pid_t *skip;
    size_t nskip;
    pid_t self;
    size_t used, added;
};

static void add_task(pid_t tid, void *arg)
{
    struct round *r = arg;
    if (tid == r->self)
        return;
    struct stopped_thread *s = lookup(r->t, tid);
    if (s->tid == tid || (r->used + 1) * 4 > (r->t->mask + 1) * 3)
        return; /* known, or no room: it runs on, unseen by the scan */
    memset(s, 0, sizeof *s);
    s->tid = tid;
    r->used++;
    for (size_t i = 0; i < r->nskip; i++)
        if (r->skip[i] == tid) {
            atomic_store(&s->state, STOP_SKIPPED);
            return;
        }
    atomic_store(&s->state, STOP_WANTED);
    r->added++;
    if (syscall(SYS_tgkill, r->t->pid, tid, STOP_SIGNAL) != 0)
        atomic_store(&s->state, STOP_GONE);
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void give_up(struct stopped_thread *s, int state, const char *why)
{
    int expected = STOP_WANTED;
    if (atomic_compare_exchange_strong(&s->state, &expected, state))
        s->why = why;
}

/* Waits until no slot is WANTED or TAKING. */
static void wait_for_answers(struct stop_table *t)
{
    long start = now_ms();
    for (;;) {
        size_t waiting = 0;
        long waited = now_ms() - start;
        for (size_t i = 0; i <= t->mask; i++) {
            struct stopped_thread *s = &t->slot[i];
            int st = atomic_load(&s->state);
            if (s->tid == 0 || (st != STOP_WANTED && st != STOP_TAKING))
                continue;
            if (st == STOP_WANTED && waited >= POLL_MS) {
                if ((syscall(SYS_tgkill, t->pid, s->tid, 0) != 0 &&
                     errno == ESRCH) ||
                    exited(s->tid))
                    give_up(s, STOP_GONE, "exited");
                else if (waited >= BLOCKED_GRACE_MS &&
                         blocked_and_sleeping(s->tid))
                    give_up(s, STOP_ABANDONED,
                            "blocks the stop signal in a system call");
                else if (waited >= STOP_TIMEOUT_MS)
                    give_up(s, STOP_ABANDONED, "did not answer in time");
            }
            st = atomic_load(&s->state);
            waiting += st == STOP_WANTED || st == STOP_TAKING;
        }
        if (waiting == 0)
            return;
        futex_wait(&t->acks, atomic_load(&t->acks), POLL_MS);
    }
}

int world_stop(struct world *w, const pid_t *skip, size_t nskip)
{
    memset(w, 0, sizeof *w);
    w->self = raw_gettid();
    struct stop_table *t = table;
    if (t == NULL)
        return -1;
    memset(t->slot, 0, (t->mask + 1) * sizeof t->slot[0]);
    t->gen = ++stop_gen;
    t->pid = getpid();
    atomic_store(&t->acks, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_stop_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask); /* nothing of the program's runs meanwhile */
    atomic_store(&active, t);
    real_sigaction(STOP_SIGNAL, &sa, &program_action);
    struct round r = { t, skip, nskip, w->self, 0, 0 };
    int rounds = 0;
    do {
        r.added = 0;
        if (each_task(add_task, &r) < 0) {
            world_resume(w);
            return -1;
        }
        wait_for_answers(t);
    } while (r.added && ++rounds < MAX_ROUNDS);
    w->threads = t->slot;
    w->nslots = t->mask + 1;
    for (size_t i = 0; i < w->nslots; i++) {
        int st = atomic_load(&t->slot[i].state);
        w->stopped += st == STOP_DONE;
        w->abandoned += st == STOP_ABANDONED;
        w->gone += st == STOP_GONE;
    }
    return 0;
}

void world_resume(struct world *w)
{
    struct stop_table *t = table;
    (void)w;
    for (size_t i = 0; i <= t->mask; i++)
        if (t->slot[i].tid)
            give_up(&t->slot[i], STOP_ABANDONED, "did not answer in time");
    /* A thread caught between WANTED and DONE finishes saving and, seeing
     * the new generation, leaves at once. */
    atomic_store(&resume_gen, t->gen);
    futex_wake(&resume_gen);
    atomic_store(&active, NULL);
    real_sigaction(STOP_SIGNAL, &program_action, NULL);
}
