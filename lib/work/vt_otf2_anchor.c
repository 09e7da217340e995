/* SPDX-License-Identifier: MIT */
/*
 * An OTF2 anchor file's layout checked before libotf2 reads it (vt_otf2.h):
 * libotf2 believes its counts and lengths, so a few damaged bytes make it
 * calloc for 2^32 properties or search an unterminated string chunk by chunk
 * for seconds to minutes before it gives up.
 *
 * The layout (OTF2's anchor formats 1 to 3, all additive): a chunk header
 * byte, the endianness byte, "OTF2" and its NUL, the anchor format, trace
 * format and version (4 bytes), the event and definition chunk sizes (8
 * each), substrate and compression (1 each), the numbers of locations and
 * global definitions (8 each), the machine, creator and description
 * strings; from format 2 the number of properties (4) and as many name and
 * value strings, the trace id (8); from format 3 the numbers of snapshots
 * and thumbnails (4 each) and the end-of-file mark.
 */
#include "work/vt_otf2.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

/* Anchor files hold a few hundred bytes; properties add a few strings. */
#define ANCHOR_MAX (1u << 20)

enum { CHUNK_HEADER = 3, LITTLE = 0x42, BIG = 0x23, END_OF_FILE = 2 };

struct cur {
	const uint8_t *p;
	size_t n, at;
	int big;
};

/* The unsigned integer of k bytes at the cursor, moved past it; -1 past the end. */
static int take(struct cur *c, size_t k, uint64_t *v)
{
	uint64_t x = 0;

	if (c->n - c->at < k)
		return -1;
	for (size_t i = 0; i < k; i++)
		x |= (uint64_t)c->p[c->at + i] << 8 * (c->big ? k - 1 - i : i);
	c->at += k;
	*v = x;
	return 0;
}

/* Past a NUL-terminated string; -1 if it runs to the end. */
static int skip_str(struct cur *c)
{
	const uint8_t *z = memchr(c->p + c->at, 0, c->n - c->at);

	if (!z)
		return -1;
	c->at = (size_t)(z - c->p) + 1;
	return 0;
}

/* The header up to the description; NULL or the cause of a refusal. */
static const char *head(struct cur *c, uint8_t *format, char *why, size_t len)
{
	static const char *const str[] = {"machine name", "creator", "description"};
	uint64_t v[8];

	if (c->n < 8 || c->p[0] != CHUNK_HEADER || (c->p[1] != LITTLE && c->p[1] != BIG) ||
	    memcmp(c->p + 2, "OTF2", 5) || !c->p[7])
		return "no OTF2 anchor header";
	c->big = c->p[1] == BIG;
	*format = c->p[7];
	c->at = 8;
	/* trace format and version, 2 chunk sizes, substrate and compression, 2 counts */
	if (take(c, 4, &v[0]) || take(c, 8, &v[1]) || take(c, 8, &v[2]) || take(c, 2, &v[3]) ||
	    take(c, 8, &v[4]) || take(c, 8, &v[5]))
		return "it ends within its header";
	for (int i = 1; i <= 2; i++)
		if (v[i] < OTF2_CHUNK_SIZE_MIN || v[i] > OTF2_CHUNK_SIZE_MAX) {
			snprintf(why, len,
				 "a chunk size of %llu bytes (OTF2's are 256 KiB to 16 MiB)",
				 (unsigned long long)v[i]);
			return why;
		}
	for (int i = 0; i < 3; i++)
		if (skip_str(c)) {
			snprintf(why, len, "its %s runs to the end of the file", str[i]);
			return why;
		}
	return NULL;
}

/* Properties, trace id, snapshots, thumbnails, end mark as the format has them. */
static const char *tail(struct cur *c, uint8_t format, char *why, size_t len)
{
	uint64_t v;

	if (format >= 2) {
		if (take(c, 4, &v))
			return "it ends before its properties";
		/* each property is two strings of one byte at least */
		if (v > (c->n - c->at) / 2) {
			snprintf(why, len, "%llu properties in its %zu bytes",
				 (unsigned long long)v, c->n);
			return why;
		}
		for (uint64_t i = 0; i < 2 * v; i++)
			if (skip_str(c))
				return "a property runs to the end of the file";
		if (take(c, 8, &v))
			return "it ends before its trace id";
	}
	if (format >= 3 && (take(c, 4, &v) || take(c, 4, &v)))
		return "it ends before its snapshot and thumbnail counts";
	if (format == 3 && (take(c, 1, &v) || v != END_OF_FILE))
		return "no end-of-file mark after its fields";
	return NULL;
}

int vt_otf2_anchor_check(const char *path, vt_err *e)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = malloc(ANCHOR_MAX + 1), format = 0;
	struct cur c = {buf, 0, 0, 0};
	char why[96];
	const char *bad = NULL;
	int err;
	int rc = 0;

	if (!fp || !buf) {
		rc = vt_err_set(e, "%s: %s", path, strerror(fp ? ENOMEM : errno));
		goto out;
	}
	c.n = fread(buf, 1, ANCHOR_MAX + 1, fp);
	err = errno;
	if (ferror(fp))
		bad = strerror(err); /* a directory, say */
	else if (c.n > ANCHOR_MAX)
		bad = "more than 1 MiB";
	else if (!(bad = head(&c, &format, why, sizeof(why))))
		bad = tail(&c, format, why, sizeof(why));
	if (bad)
		rc = vt_err_set(e, "%s: not an OTF2 anchor file, or a damaged one (%s)", path, bad);
out:
	if (fp)
		fclose(fp);
	free(buf);
	return rc;
}
