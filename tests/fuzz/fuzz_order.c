/* SPDX-License-Identifier: MIT */
/* libFuzzer target: compute-node order files (ca-order dumps, name lists, MPI hostfiles) against
 * fat 4,2. */
#include "fuzz_common.h"
#include "model/vt_order.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const vt_fabric *f = fuzz_fabric();
	vt_order o = {0};
	vt_err e = {0};

	if (vt_order_read(&o, f, fuzz_file(data, size), &e)) {
		fuzz_one_line(&e);
		return 0;
	}
	for (uint32_t i = 0; i < o.n; i++)
		if (o.port[i] != VT_NONE && o.port[i] >= f->nports)
			abort();
	vt_order_free(&o);
	return 0;
}
