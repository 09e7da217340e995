/* SPDX-License-Identifier: MIT */
/*
 * The loaders' entry points (vt_load.h): which of the dump formats a file or
 * buffer holds, told by its first bytes, and the loader that reads it.
 */
#include "io/vt_load.h"

#include <stdlib.h>
#include <string.h>

#include "base/vt_io.h"

int vt_load(const char *path, vt_fabric **out, vt_err *e)
{
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	if (vt_read_file(path, &buf, &len, e))
		return -1;
	if (vt_load_is_cache(buf, len)) {
		free(buf);
		return vt_load_cache(path, out, e);
	}
	rc = vt_load_mem(buf, len, path, out, e);
	free(buf);
	return rc;
}

int vt_load_mem(const char *buf, size_t len, const char *name, vt_fabric **out, vt_err *e)
{
	const char *p = buf, *end = buf + len;

	if (end - p >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	/* the first line that is neither blank nor a comment tells the format */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *s = p;

		while (s < le && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		p = nl ? nl + 1 : end;
		if (s == le || *s == '#')
			continue;
		if (*s == '{')
			return vt_load_lst_mem(buf, len, name, out, e);
		if ((size_t)(le - s) >= 6 && !memcmp(s, "START_", 6))
			return vt_load_csv_mem(buf, len, name, out, e);
		break;
	}
	return vt_load_text_mem(buf, len, name, out, e);
}

int vt_load_text_file(const char *path, vt_fabric **out, vt_err *e)
{
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	if (vt_read_file(path, &buf, &len, e))
		return -1;
	rc = vt_load_text_mem(buf, len, path, out, e);
	free(buf);
	return rc;
}
