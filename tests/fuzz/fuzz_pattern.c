/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: communication patterns. An input starting with 'F' is a
 * file: pattern's contents, any other is a pattern spec (up to its first NUL).
 */
#include "fuzz_common.h"
#include "model/vt_pattern.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[256];
	vt_pattern p;
	vt_err e = {0};

	if (size && data[0] == 'F')
		snprintf(spec, sizeof(spec), "file:%s", fuzz_file(data + 1, size - 1));
	else
		snprintf(spec, sizeof(spec), "%.*s", (int)(size < 255 ? size : 255),
			 (const char *)data);
	if (vt_pattern_parse(&p, spec, 16, &e)) {
		fuzz_one_line(&e);
		return 0;
	}
	vt_pattern_free(&p);
	return 0;
}
