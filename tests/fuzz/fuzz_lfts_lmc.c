/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: vt_lfts_lmc, the LMC vartree-analyze reads from a table
 * file's port GUIDs when the fabric file names none, on arbitrary bytes
 * against fat 4,2: it never fails, and gives an LMC of 0..7.
 */
#include "fuzz_common.h"
#include "io/vt_lftio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (vt_lfts_lmc(fuzz_fabric(), fuzz_file(data, size)) > 7)
		abort();
	return 0;
}
