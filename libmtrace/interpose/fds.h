/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fds.h - what exec.c asks of the descriptor wrappers (fds.c). */
#ifndef MT_FDS_H
#define MT_FDS_H

/* Before an exec (guard held): the recorded descriptors marked
 * close-on-exec are released, with the stack from CALLER up. */
void fds_before_exec(const void *caller);

#endif
