/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the text loader on arbitrary bytes must fail cleanly or give a sane fabric. */
#include "fuzz_common.h"
#include "io/vt_load.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vt_fabric *f = NULL;
	vt_err e;

	if (vt_load_text_mem((const char *)data, size, "fuzz", &f, &e)) {
		/* one line, prefixed by the name */
		if (f || strncmp(e.msg, "fuzz", 4) || strchr(e.msg, '\n'))
			abort();
		return 0;
	}
	if (!f || !f->finished || !f->nnodes)
		abort();
	for (uint32_t i = 0; i < f->nports; i++) {
		uint32_t q = f->ports[i].peer;

		if (q != VT_NONE && (q >= f->nports || f->ports[q].peer != i))
			abort();
	}
	vt_fabric_free(f);
	return 0;
}
