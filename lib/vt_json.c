/* SPDX-License-Identifier: MIT */
#include "vt_json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	/* overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8 */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

json_t *vt_json_text(const char *s)
{
	if (!s)
		return json_null();
	size_t n = strlen(s), k = 0;
	char *buf = malloc(3 * n + 1); /* each bad byte becomes the 3 bytes of U+FFFD */
	if (!buf)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t l = utf8_len((const unsigned char *)s + i, n - i);
		if (l) {
			memcpy(buf + k, s + i, l);
			k += l;
			i += l;
		} else {
			memcpy(buf + k, "\xEF\xBF\xBD", 3);
			k += 3;
			i++;
		}
	}
	json_t *v = json_stringn(buf, k);
	free(buf);
	return v;
}

json_t *vt_json_guid(uint64_t guid)
{
	char b[24];
	snprintf(b, sizeof(b), "0x%016" PRIx64, guid);
	return json_string(b);
}

json_t *vt_json_port(const vt_fabric *f, uint32_t p)
{
	const struct vt_port *pt = &f->ports[p];
	const struct vt_node *nd = &f->nodes[pt->node];
	json_t *o = json_object();
	uint16_t lid = vt_port_lid(f, p);

	if (!o)
		return NULL;
	vt_json_set(o, "desc", vt_json_text(nd->desc));
	vt_json_set(o, "guid", vt_json_guid(nd->guid));
	vt_json_set(o, "lid", lid ? json_integer(lid) : json_null());
	vt_json_set(o, "port", json_integer(pt->num));
	return o;
}

int vt_json_write_text(FILE *fp, const char *s)
{
	json_t *v = vt_json_text(s);
	char *d = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;
	int rc = d && fputs(d, fp) != EOF ? 0 : -1;

	free(d);
	json_decref(v);
	return rc;
}

int vt_json_dump(json_t *v, FILE *fp, vt_err *e)
{
	int rc = !v || json_dumpf(v, fp, JSON_INDENT(1) | JSON_PRESERVE_ORDER) ||
		 fputc('\n', fp) == EOF;

	json_decref(v);
	return rc ? vt_err_set(e, "cannot write the JSON output (out of memory or I/O error)") : 0;
}
