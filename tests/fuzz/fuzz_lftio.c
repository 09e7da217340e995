/* SPDX-License-Identifier: MIT */
/* libFuzzer target: forwarding-table files (OpenSM dump, dump_fts, ibroute) against fat 4,2. */
#include "fuzz_common.h"
#include "io/vt_lftio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const vt_fabric *f = fuzz_fabric();
	vt_lfts t = {0};
	vt_err e = {0};

	if (vt_lfts_read_mem(&t, f, (const char *)data, size, "fuzz", &e)) {
		if (t.port)
			abort();
		fuzz_one_line(&e);
		return 0;
	}
	for (uint32_t s = 0; s < t.nsw; s++)
		for (uint32_t lid = 0; lid < t.nlid; lid++) {
			uint8_t p = vt_lft_get(&t, s, lid);

			if (p != VT_LFT_NONE && p > f->nodes[f->switches[s]].nports)
				abort();
		}
	vt_lfts_free(&t);
	return 0;
}
