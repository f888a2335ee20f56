/* SPDX-License-Identifier: GPL-3.0-or-later */
/* unit.h - shared declarations of the libmtrace unit suites.
 */
#ifndef UNIT_H
#define UNIT_H
#include "ut.h" /* the shared scaffold: UT_CHECK, ut_main, ut_seed */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

Suite *fmt_suite(void);
Suite *childenv_suite(void);
Suite *writer_suite(void);
Suite *writer_limits_suite(void);
Suite *writer_room_suite(void);
Suite *counters_suite(void);
Suite *offload_suite(void);
Suite *config_suite(void);
Suite *cmap_suite(void);
Suite *stacktab_suite(void);
Suite *frametab_suite(void);
Suite *livetab_suite(void);
Suite *threadlog_suite(void);
Suite *logfile_suite(void);
Suite *modmap_suite(void);
Suite *ehframe_suite(void);
Suite *cfa_suite(void);
Suite *sampler_suite(void);
/* UT_SANITIZED: the runner is built with ASan or TSan (make sanitize),
 * whose malloc is not glibc's. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UT_SANITIZED 1
#endif
#endif
#ifndef UT_SANITIZED
#define UT_SANITIZED 0
#endif

Suite *mark_suite(void);
Suite *chunkwords_suite(void);
Suite *mainarena_suite(void);
Suite *suppress_suite(void);
Suite *elfsyms_suite(void);
Suite *dynsyms_suite(void);

/* Deterministic pseudo-random numbers (xorshift64*): failures reproduce. */
uint64_t ut_rand(uint64_t *state);

/* A fresh directory under $TMPDIR (or /tmp); removed by ut_rmtree. */
void ut_mkdtemp(char *out, size_t size);
void ut_rmtree(const char *path);
/* Whole file into a heap buffer (NUL-terminated); *len gets its length. */
char *ut_slurp(const char *path, size_t *len);
void ut_write_file(const char *path, const char *text);

/* The loaded object holding ADDR, found with our own dl_iterate_phdr walk:
 * its load bias and name ("" for the executable).  0 when none. */
int ut_object_of(uintptr_t addr, uintptr_t *bias, char *name, size_t size);
/* The GNU build-id of the ELF file PATH, read from the file's section
 * headers, in lowercase hex; "" when it has none.  -1 on I/O errors. */
int ut_file_build_id(const char *path, char *hex, size_t size);
/* Directory of the running test binary (for probe.so). */
void ut_exe_dir(char *out, size_t size);

/* Functions of the runner with exported, known names (see util.c). */
int ut_probe_a(int x);
int ut_probe_b(int x);
int ut_probe_c(int x);
/* In cxx_probe.cc: the address of mtt::probe(mtt::box<int> const&, char). */
uintptr_t ut_cxx_probe_address(void);


#endif
