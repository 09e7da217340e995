/* SPDX-License-Identifier: MIT */
/* Error reporting for the core: functions return 0 or -1 and fill a vt_err. */
#ifndef VT_ERR_H
#define VT_ERR_H

#include <stdarg.h>

#define VT_ERR_MAX 512

/* What failed: the input (or a check), or memory; OpenSM's plugin reports them apart. */
enum vt_err_kind { VT_ERR_INPUT = 0, VT_ERR_NOMEM };

typedef struct vt_err {
	char msg[VT_ERR_MAX];
	enum vt_err_kind kind;
	unsigned cause; /* where the cause starts in msg: past "FILE:LINE: ", else 0 */
} vt_err;

/*
 * Sets e->msg (printf-style) and e->kind to VT_ERR_INPUT; returns -1 so
 * callers can `return vt_err_set(...)`.
 */
int vt_err_set(vt_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int vt_err_vset(vt_err *e, const char *fmt, va_list ap);

/* As vt_err_set, for an allocation that failed: e->kind is VT_ERR_NOMEM. */
int vt_err_nomem(vt_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * "FILE:LINE: cause", the one-line form every loader error takes; "FILE: cause"
 * when line is 0. The arguments may point into e->msg.
 */
int vt_err_at(vt_err *e, const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int vt_err_vat(vt_err *e, const char *file, unsigned line, const char *fmt, va_list ap);

#endif
