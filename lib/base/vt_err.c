/* SPDX-License-Identifier: MIT */
#include "base/vt_err.h"

#include <stdio.h>
#include <string.h>

int vt_err_vset(vt_err *e, const char *fmt, va_list ap)
{
	if (e) {
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		e->kind = VT_ERR_INPUT;
		e->cause = 0;
	}
	return -1;
}

int vt_err_nomem(vt_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_err_vset(e, fmt, ap);
	va_end(ap);
	if (e)
		e->kind = VT_ERR_NOMEM;
	return -1;
}

int vt_err_set(vt_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_err_vset(e, fmt, ap);
	va_end(ap);
	return -1;
}

int vt_err_at(vt_err *e, const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vt_err_vat(e, file, line, fmt, ap);
	va_end(ap);
	return -1;
}

int vt_err_vat(vt_err *e, const char *file, unsigned line, const char *fmt, va_list ap)
{
	char cause[VT_ERR_MAX];
	size_t n;
	int at;

	if (!e)
		return -1;
	vsnprintf(cause, sizeof(cause), fmt, ap); /* first: the arguments may be in e->msg */
	if (line)
		at = snprintf(e->msg, sizeof(e->msg), "%s:%u: ", file, line);
	else
		at = snprintf(e->msg, sizeof(e->msg), "%s: ", file);
	e->kind = VT_ERR_INPUT;
	e->cause = at > 0 && (size_t)at < sizeof(e->msg) ? (unsigned)at : sizeof(e->msg) - 1;
	n = strlen(cause);
	if (n > sizeof(e->msg) - 1 - e->cause)
		n = sizeof(e->msg) - 1 - e->cause;
	memcpy(e->msg + e->cause, cause, n);
	e->msg[e->cause + n] = 0;
	return -1;
}
