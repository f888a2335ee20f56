/* SPDX-License-Identifier: GPL-3.0-or-later */
/* elfinfo.h - the two facts about an ELF file that mtrace-check needs
 * before trusting or running it: whether it has a program interpreter
 * (only then does LD_TRACE_LOADED_OBJECTS make ld.so list the libraries
 * instead of running the program) and its GNU build-id (to tell whether a
 * file on disk is the one the log recorded).
 *
 * Copyright (C) 2026 the libmtrace authors. */
#ifndef MTC_ELFINFO_H
#define MTC_ELFINFO_H

enum { BUILD_ID_MAX = 64 };

struct elf_info {
    int is_elf;
    int has_interp;
    char build_id[2 * BUILD_ID_MAX + 1]; /* lowercase hex, "" if none */
};

/* Returns 0 and fills INFO for a readable regular file (is_elf tells if it
 * is ELF), -1 if the file cannot be opened or is not a regular file. */
int elf_inspect(const char *path, struct elf_info *info);

#endif
