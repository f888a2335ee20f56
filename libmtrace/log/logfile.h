/* SPDX-License-Identifier: GPL-3.0-or-later */
/* logfile.h - choosing and opening the MALLOC_TRACE file so that no traced
 * process truncates or interleaves with the log of another live one.
 */
#ifndef MT_LOGFILE_H
#define MT_LOGFILE_H
#include <stddef.h>
#include <sys/types.h>

/* Opens the log for process PID given the MALLOC_TRACE value PATTERN ("%p"
 * is replaced by PID).  The plain path is taken when no live process holds
 * it (flock) and its header does not name PID (an image of this process
 * before exec); otherwise, and always for a fork child (FORKED), the first
 * free of PATH.PID, PATH.PID.1, ...  The chosen name, made absolute, goes
 * to CHOSEN.
 * Returns the descriptor (close-on-exec, locked, truncated) or -1 with
 * errno set. */
int logfile_open(const char *pattern, pid_t pid, int forked, char *chosen,
                 size_t chosen_size);

/* "PID:STARTTIME:BOOT": names this process and no other, even one that
 * had the same pid before (the "proc=" key of the log header). */
const char *logfile_process_tag(void);

/* PATTERN with "%p" replaced by PID into OUT; 0, or -1 when too long. */
int logfile_expand(const char *pattern, pid_t pid, char *out, size_t size);

#endif
