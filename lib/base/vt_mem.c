/* SPDX-License-Identifier: MIT */
/* Large buffers that ask for huge pages (vt_mem.h). */
#include "base/vt_mem.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

void *vt_alloc_big(size_t n)
{
	size_t r = (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
	void *p;

	if (n < HUGE_PAGE || r < n)
		return malloc(n ? n : 1);
	if (posix_memalign(&p, HUGE_PAGE, r))
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, r, MADV_HUGEPAGE); /* advice: without it, small pages */
#endif
	return p;
}
