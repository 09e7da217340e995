/* SPDX-License-Identifier: MIT */
#include "vt_err.h"

#include <stdio.h>
#include <string.h>

int vt_err_vset(vt_err *e, const char *fmt, va_list ap)
{
	if (e) {
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		e->kind = VT_ERR_INPUT;
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

	vsnprintf(cause, sizeof(cause), fmt, ap);
	if (line)
		return vt_err_set(e, "%s:%u: %s", file, line, cause);
	return vt_err_set(e, "%s: %s", file, cause);
}
