/* SPDX-License-Identifier: MIT */
/* libFuzzer target: GUID files (root, compute-node and I/O GUIDs, as OpenSM reads them). */
#include "fuzz_common.h"
#include "base/vt_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t *g = NULL;
	unsigned *at = NULL;
	uint32_t n = 0;
	vt_err e = {0};

	if (vt_guid_file_read(fuzz_file(data, size), &g, &at, &n, &e)) {
		if (g || at || n)
			abort();
		fuzz_one_line(&e);
		return 0;
	}
	if (n > size / 2 + 1 || (n && (!g || !at)))
		abort();
	/* each GUID's line: increasing, within the file */
	for (uint32_t i = 0; i < n; i++)
		if (!at[i] || at[i] > size + 1 || (i && at[i] <= at[i - 1]))
			abort();
	free(g);
	free(at);
	return 0;
}
