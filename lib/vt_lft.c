/* SPDX-License-Identifier: MIT */
#include "vt_lft.h"

#include <stdlib.h>
#include <string.h>

int vt_lfts_init(vt_lfts *t, const vt_fabric *f, vt_err *e)
{
	size_t n;

	t->nsw = f->nswitches;
	t->nlid = f->max_lid + 1;
	n = (size_t)t->nsw * t->nlid;
	t->port = malloc(n ? n : 1);
	if (!t->port)
		return vt_err_nomem(e, "out of memory for %u forwarding tables", t->nsw);
	memset(t->port, VT_LFT_NONE, n);
	return 0;
}

void vt_lfts_free(vt_lfts *t)
{
	free(t->port);
	t->port = NULL;
	t->nsw = t->nlid = 0;
}
