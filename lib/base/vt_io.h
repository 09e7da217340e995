/* SPDX-License-Identifier: MIT */
/* Output files that appear whole or not at all: written to a temporary name, renamed on commit. */
#ifndef VT_IO_H
#define VT_IO_H

#include <stdint.h>
#include <stdio.h>

#include "base/vt_err.h"

typedef struct vt_out {
	FILE *fp;
	char *path; /* NULL when writing to stdout */
	char *tmp;
	int direct; /* writing in place to a device or FIFO */
} vt_out;

/*
 * path "-" or NULL writes to stdout; an existing path that is not a regular
 * file (/dev/null, a FIFO) is written in place. Neither can be atomic.
 */
int vt_out_open(vt_out *o, const char *path, vt_err *e);
/* Flushes, closes and renames into place; on failure removes the temporary file. */
int vt_out_commit(vt_out *o, vt_err *e);
/* Drops what was written. Safe to call after a failed open or a commit. */
void vt_out_abort(vt_out *o);
/*
 * After a writer failed on o->fp: drops the output and, when the stream saw a
 * write error, makes e "NAME: write error: CAUSE" (NAME the file or "standard
 * output"); returns -1.
 */
int vt_out_fail(vt_out *o, vt_err *e);
/* Flushes stdout: 0, or -1 with "standard output: write error: CAUSE" (a full disk, /dev/full). */
int vt_stdout_flush(vt_err *e);
/*
 * For commands: on SIGINT, SIGTERM, SIGHUP or SIGQUIT remove the temporary files
 * of outputs still open, then die of the signal as before. Never called inside
 * OpenSM (its handlers are its own); without it vt_out keeps no record.
 */
void vt_out_catch_signals(void);

/* Reads a whole file into a NUL-terminated buffer (*len excludes the NUL). */
int vt_read_file(const char *path, char **buf, size_t *len, vt_err *e);
/*
 * vt_read_file for text formats: a NUL byte is refused ("FILE:LINE: NUL byte,
 * not a text file") rather than silently ending the text there.
 */
int vt_read_text(const char *path, char **buf, size_t *len, vt_err *e);

/*
 * Reads a GUID file as OpenSM does (one GUID per line, 0x prefix optional,
 * '#' comments and blank lines ignored); more than 16 hex digits is refused,
 * not saturated. When lines is not NULL, (*lines)[i] is the line GUID i is on,
 * for errors about an entry ("FILE:LINE: ..."). Caller frees *guids and *lines.
 */
int vt_guid_file_read(const char *path, uint64_t **guids, unsigned **lines, uint32_t *n, vt_err *e);

#endif
