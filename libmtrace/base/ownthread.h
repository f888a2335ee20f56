/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ownthread.h - a thread of libmtrace's own (the report thread, the
 * periodic scanner): detached, created with every signal blocked, so the
 * program's signals are never delivered to it and it keeps that mask, and
 * known to be running before the call returns: BODY posts READY once it
 * has registered itself, so no scan can start without knowing it is ours. */
#ifndef LIBMTRACE_OWNTHREAD_H
#define LIBMTRACE_OWNTHREAD_H

#include <semaphore.h>

/* Starts BODY(NULL) on a new thread and waits for it to post READY (which
 * this call initializes).  0, or -1 when the thread could not be made. */
int ownthread_start(void *(*body)(void *), sem_t *ready);

#endif
