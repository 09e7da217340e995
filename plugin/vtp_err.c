/* SPDX-License-Identifier: MIT */
/* The wording of the plugin's ERR lines for a failed step (vartree-plugin(8) lists the codes). */
#include <stdio.h>

#include "vtp_opts.h"

void vtp_err_text(char *buf, size_t n, const char *code, const char *what, const char *step,
		  const vt_err *e)
{
	if (e->kind == VT_ERR_NOMEM)
		snprintf(buf, n, "%s: out of memory while %s: %s", VTP_ERR_NOMEM, step, e->msg);
	else
		snprintf(buf, n, "%s: %s: %s", code, what, e->msg);
}
