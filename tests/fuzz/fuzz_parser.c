/* fuzz_parser.c - libFuzzer harness for mtrace-check's reading side: the
 * streaming reader, the tokenizer, the Perl-compatible replay (table,
 * string pool, location patterns), the extension records, the stack view
 * and both report formats.  The input is a log; its length picks the mode
 * (plain loop or reader thread, text or JSON).  No BINARY is given, so no
 * program is run and addr2line is never asked; module paths named by the
 * log are opened with libbfd as the real tool would.
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#define _GNU_SOURCE
#include "engine.h"
#include "linereader.h"
#include "pipeline.h"
#include "stackview.h"
#include "symbolizer.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopen("/dev/null", "w");
	sym_init();
	view_init(NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("log", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	lseek(fd, 0, SEEK_SET);

	struct line_reader lr;
	struct report rep;
	struct engine e;
	lr_init_fd(&lr, fd);
	report_begin(&rep, sink, size % 3 == 1, "fuzz", NULL);
	engine_init(&e, &rep, NULL);
	if (size % 3 == 2)
		pipeline_run(&lr, &e);
	else
		replay_serial(&lr, &e);
	engine_finish(&e);
	engine_destroy(&e);
	lr_close(&lr);
	close(fd);
	return 0;
}
