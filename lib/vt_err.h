/* SPDX-License-Identifier: MIT */
/* Error reporting for the core: functions return 0 or -1 and fill a vt_err. */
#ifndef VT_ERR_H
#define VT_ERR_H

#include <stdarg.h>

#define VT_ERR_MAX 512

typedef struct vt_err {
	char msg[VT_ERR_MAX];
} vt_err;

/* Sets e->msg (printf-style) and returns -1 so callers can `return vt_err_set(...)`. */
int vt_err_set(vt_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int vt_err_vset(vt_err *e, const char *fmt, va_list ap);

/* "FILE:LINE: cause", the one-line form every loader error takes. */
int vt_err_at(vt_err *e, const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int vt_err_vat(vt_err *e, const char *file, unsigned line, const char *fmt, va_list ap);

#endif
