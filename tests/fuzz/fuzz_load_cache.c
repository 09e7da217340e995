/* SPDX-License-Identifier: MIT */
/* libFuzzer target: libibnetdisc cache files, checked before libibnetdisc reads them. */
#include "fuzz_common.h"
#include "io/vt_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vt_fabric *f = NULL;
	vt_err e = {0};

	if (vt_load_cache(fuzz_file(data, size), &f, &e)) {
		if (f)
			abort();
		fuzz_one_line(&e);
		return 0;
	}
	if (!f || !f->finished)
		abort();
	vt_fabric_free(f);
	return 0;
}
