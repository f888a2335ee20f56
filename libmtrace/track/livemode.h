/* SPDX-License-Identifier: GPL-3.0-or-later */
/* livemode.h - MEMLEAK_CONFIG=log=live seen from the tracker: whether it
 * is on, and the writing of the live blocks whose "+" line the log does
 * not hold yet (log/livelog.h says what a live log is).  The scan calls
 * livemode_write_locked before its "#C scan" record; every other point
 * where a log ends or a report is made without a scan (reach=0, sampled
 * or failed scans, _exit, exec, a fatal signal) calls livemode_write.
 * GPL-3.0-or-later. */
#ifndef MT_LIVEMODE_H
#define MT_LIVEMODE_H

/* Set once when collection starts (tracer_start). */
extern int livemode_on;

/* The unwritten live blocks' "+" lines and "#C totals", with
 * tracelog_scan_lock() and livetab_lock_all() held and the buffers
 * flushed (tracelog_scan_flush). */
void livemode_write_locked(void);
/* The same, taking and letting go of those locks.  The caller entered the
 * recursion guard and holds none of the tracer's locks. */
void livemode_write(void);

#endif
