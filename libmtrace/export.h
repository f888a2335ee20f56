/* export.h - marks the library's public entry points; everything else is
 * built with -fvisibility=hidden.  GPL-3.0-or-later. */
#ifndef MT_EXPORT_H
#define MT_EXPORT_H
#define MT_EXPORT __attribute__((visibility("default")))
#endif
