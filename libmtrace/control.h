/* control.h - configuration and start-up state shared by the core.
 * GPL-3.0-or-later. */
#ifndef MT_CONTROL_H
#define MT_CONTROL_H
#include "config.h"

/* MEMLEAK_CONFIG as parsed at start-up (defaults before). */
extern struct config mt_config;
/* MALLOC_TRACE (secure_getenv), or NULL: no log. */
extern const char *mt_trace_path;

#endif
