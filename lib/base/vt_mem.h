/* SPDX-License-Identifier: MIT */
/*
 * Large buffers (forwarding tables, routes models) that ask for huge pages.
 * A repair after a fault touches tens of megabytes for the first time, and
 * each 4 KiB page costs a fault: on a virtual machine some 15 us (pruned
 * 36,12, a leaf's up-link down: 5860 faults, about half of the repair's
 * CPU). Where the kernel gives huge pages on request (Linux transparent huge
 * pages, "madvise" mode), a 2 MiB page costs one fault.
 */
#ifndef VT_MEM_H
#define VT_MEM_H

#include <stddef.h>

/*
 * n bytes (at least 1), freed with free(); from 2 MiB on, aligned to and
 * rounded up to 2 MiB and advised to be backed by huge pages (advice only:
 * the memory is the same without). NULL when out of memory.
 */
void *vt_alloc_big(size_t n);

#endif
