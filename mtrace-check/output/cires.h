/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cires.h - resources not released as records of the CI outputs
 * (cires.c).
 *
 * Copyright (C) 2026 the libmtrace authors.  GPL-3.0-or-later. */
#ifndef MTC_CIRES_H
#define MTC_CIRES_H

#include "findings/resfind.h"
#include "output/cireport.h"

#include <stdio.h>

/* The rule/check id of a resource not released. */
#define CI_RESOURCE_ID "resource-not-released"

/* L's records of RES's groups (L->res), each failing the run or not. */
void ci_keep_resources(struct ci_log *l, const struct res_findings *res,
                       int failing);
/* "2 fd not released, acquired in open_log" (then ci_message adds the
 * source line and the log). */
void ci_resource_message(FILE *out, const struct ci_record *r);
void ci_release_resources(struct ci_log *l);

#endif
