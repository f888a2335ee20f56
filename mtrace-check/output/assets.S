/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assets.S - the HTML report's page, built into mtrace-check as it is in
 * mtrace-check/output/html/ (html.c fills it in).  Each asset is followed by a
 * NUL byte and named by a start and an end symbol.
 */
#define ASSET(name, file)          \
    .globl name##_start;           \
    .globl name##_end;             \
    .balign 16;                    \
name##_start:                      \
    .incbin file;                  \
name##_end:                        \
    .byte 0

    .section .rodata
ASSET(mtc_page_html, "html/page.html")
ASSET(mtc_page_css, "html/page.css")
ASSET(mtc_page_js, "html/page.js")
ASSET(mtc_page_format_js, "html/page-format.js")

    .section .note.GNU-stack, "", @progbits
