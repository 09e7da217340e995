/* SPDX-License-Identifier: MIT */
/* Shared by the libFuzzer targets: a scratch file per process, one-line error checks. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/vt_err.h"
#include "gen/vt_gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The loaders under test read files by name: the input goes to one per process. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	FILE *fp;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/vt-fuzz-%d", (int)getpid());
	fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp))
		abort();
	return path;
}

/* Every refusal is one line; anything else is a finding. */
static inline void fuzz_one_line(const vt_err *e)
{
	if (!e->msg[0] || strchr(e->msg, '\n'))
		abort();
}

/* A small routed-size fabric the table, order and pattern targets read against. */
static inline const vt_fabric *fuzz_fabric(void)
{
	static vt_fabric *f;
	struct vt_gen_spec s;
	vt_err e;

	if (!f && (vt_gen_parse(&s, "fat 4,2", &e) || vt_gen_build(&s, &f, &e)))
		abort();
	return f;
}

#endif
