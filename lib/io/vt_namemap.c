/* SPDX-License-Identifier: MIT */
#include "io/vt_namemap.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/vt_io.h"

/* Gives node n the description name (len bytes); the id is shared when they are equal. */
static int rename_node(struct vt_node *n, const char *name, size_t len)
{
	char *d = NULL;

	if (!(strlen(n->id) == len && !memcmp(n->id, name, len))) {
		d = malloc(len + 1);
		if (!d)
			return -1;
		memcpy(d, name, len);
		d[len] = 0;
	}
	if (n->desc != n->id)
		free(n->desc);
	n->desc = d ? d : n->id;
	return 0;
}

/* One line (without its newline); 1 when it named a node of f, 0 when not, -1 on error. */
static int map_line(vt_fabric *f, char *s, const char *path, unsigned ln, vt_err *e)
{
	char *end, *name;
	size_t len;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '#')
		return 0;
	errno = 0;
	unsigned long long g = strtoull(s, &end, 0);
	if (end == s || errno || *s == '-' || !isspace((unsigned char)*end))
		return vt_err_at(e, path, ln, "expected a GUID and a name, got '%.40s'", s);
	for (name = end; isspace((unsigned char)*name); name++)
		;
	if (*name == '"') {
		char *q = strchr(++name, '"');
		if (!q)
			return vt_err_at(e, path, ln, "name without its closing '\"'");
		len = (size_t)(q - name);
	} else {
		len = strcspn(name, "#");
		while (len && isspace((unsigned char)name[len - 1]))
			len--;
	}
	if (!len)
		return vt_err_at(e, path, ln, "GUID 0x%016llx without a name", g);
	uint32_t n = vt_fabric_node_by_guid(f, (uint64_t)g);
	if (n == VT_NONE)
		return 0;
	if (rename_node(&f->nodes[n], name, len))
		return vt_err_nomem(e, "out of memory");
	return 1;
}

int vt_namemap_apply(vt_fabric *f, const char *path, unsigned *renamed, vt_err *e)
{
	struct stat st;
	char *buf, *line, *next;
	size_t len;
	unsigned ln = 0, count = 0;

	if (renamed)
		*renamed = 0;
	if (!path) {
		if (stat(VT_NODE_NAME_MAP_DEFAULT, &st))
			return 0;
		path = VT_NODE_NAME_MAP_DEFAULT;
	}
	if (vt_read_file(path, &buf, &len, e))
		return -1;
	if (memchr(buf, 0, len)) {
		free(buf);
		return vt_err_set(e, "%s: NUL byte, not a node name map", path);
	}
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		ln++;
		line[strcspn(line, "\r")] = 0; /* CRLF files */
		int r = map_line(f, line, path, ln, e);
		if (r < 0) {
			free(buf);
			return -1;
		}
		count += (unsigned)r;
	}
	free(buf);
	if (renamed)
		*renamed = count;
	return 0;
}
