/* SPDX-License-Identifier: MIT */
/*
 * The loaders' entry points (vt_load.h): which of the dump formats a file or
 * buffer holds, told by its first bytes, and the loader that reads it.
 */
#include "io/vt_load.h"

#include <stdlib.h>
#include <string.h>

#include "base/vt_io.h"
#include "io/vt_load_text_int.h"

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

/*
 * A forwarding-table file given where a topology belongs (an easy mistake:
 * both come out of the same OpenSM or ibdiagnet run): what it is, its first
 * such line in *line; NULL if it is none.
 */
const char *vt_load_table_kind(const char *buf, size_t len, unsigned *line)
{
	static const struct {
		const char *start, *what;
	} kinds[] = {
		{"Unicast lids",
		 "forwarding tables (\"Unicast lids\": opensm-lfts.dump, dump_fts)"},
		{"dump_ucast_routes:", "forwarding tables (\"dump_ucast_routes:\": opensm.fdbs)"},
		{"osm_ucast_mgr_dump_ucast_routes:",
		 "forwarding tables (ibdiagnet2.fdbs, \"osm_ucast_mgr_dump_ucast_routes:\")"},
	};
	const char *p = buf, *end = buf + len;

	for (unsigned n = 1; p < end; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if ((size_t)(end - p) >= strlen(kinds[k].start) &&
			    !memcmp(p, kinds[k].start, strlen(kinds[k].start))) {
				*line = n;
				return kinds[k].what;
			}
		p = nl ? nl + 1 : end;
	}
	return NULL;
}
