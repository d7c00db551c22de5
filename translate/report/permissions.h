/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The permissions a manifest grants, as written, in the words validate
 * (docs/validate.md) and approve (docs/approve.md, "What approve does, in order") show them: one
 * labelled line per field, from "entrypoint:" to "limits:".  Shared so that what a reviewer stamps
 * is laid out exactly like what validate reports.
 */
#ifndef BENTO_PERMISSIONS_H
#define BENTO_PERMISSIONS_H

#include <stdio.h>

#include "manifest/manifest.h"

/* Print the permission lines of m to f (no header, no footer). */
void permissions_print(FILE *f, const struct manifest *m);

/* The "limits:" line of l ("memory 512M, cpu 50%, pids 64"); nothing when
 * the manifest sets no limit. */
void permissions_print_limits(FILE *f, const struct manifest_limits *l);

/* What exec allows, in the words of the "exec:" line. */
const char *permissions_exec_words(enum manifest_exec e);

#endif
