/* SPDX-License-Identifier: GPL-3.0-or-later */
/* export.h - marks the library's public entry points; everything else is
 * built with -fvisibility=hidden. */
#ifndef MT_EXPORT_H
#define MT_EXPORT_H
#define MT_EXPORT __attribute__((visibility("default")))
#endif
