/* SPDX-License-Identifier: MIT */
#include "out/vt_json.h"

#include <inttypes.h>
#include <math.h>
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

static json_t *node_json(const vt_fabric *f, uint32_t n, uint16_t lid)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	vt_json_set(o, "desc", vt_json_text(f->nodes[n].desc));
	vt_json_set(o, "guid", vt_json_guid(f->nodes[n].guid));
	vt_json_set(o, "lid", lid ? json_integer(lid) : json_null());
	return o;
}

json_t *vt_json_node(const vt_fabric *f, uint32_t n)
{
	const struct vt_node *nd = &f->nodes[n];
	uint16_t lid = nd->type == VT_SWITCH ? f->ports[nd->first_port].lid : 0;

	/* a CA's LIDs are its ports': the first connected one's */
	for (unsigned p = 1; !lid && p <= nd->nports; p++)
		if (vt_port(f, n, p)->peer != VT_NONE)
			lid = vt_port(f, n, p)->lid;
	return node_json(f, n, lid);
}

json_t *vt_json_port(const vt_fabric *f, uint32_t p)
{
	json_t *o = node_json(f, f->ports[p].node, vt_port_lid(f, p));

	if (o)
		vt_json_set(o, "port", json_integer(f->ports[p].num));
	return o;
}

json_t *vt_json_u64(uint64_t v)
{
	char b[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(b, sizeof(b), "%" PRIu64, v);
	return json_string(b);
}

double vt_json_round(double x, int decimals)
{
	double m = pow(10, decimals);

	return round(x * m) / m;
}

json_t *vt_json_real(double x, int decimals)
{
	return json_real(vt_json_round(x, decimals));
}

int vt_json_dump(json_t *v, FILE *fp, vt_err *e)
{
	int rc = !v || json_dumpf(v, fp, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) ||
		 fputc('\n', fp) == EOF;

	json_decref(v);
	return rc ? vt_err_set(e, "cannot write the JSON output (out of memory or I/O error)") : 0;
}
