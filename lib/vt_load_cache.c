/* SPDX-License-Identifier: MIT */
/*
 * libibnetdisc cache files, read by the library's own ibnd_load_fabric() and
 * converted by vt_load_ibnd() (lib/vt_load_ibnd.c, shared with live capture),
 * and vt_load(), which tells a cache from text by its magic.
 */
#include "vt_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ibnetdisc.h>

#include "vt_io.h"

#define CACHE_MAGIC   0x8FE7832Bu /* libibnetdisc's, stored little-endian */
#define CACHE_VERSION 1u

#if defined(__SANITIZE_ADDRESS__)
#define VT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VT_ASAN 1
#endif
#endif
#ifdef VT_ASAN
/*
 * libibnetdisc 44 leaks 64 bytes per cached port inside ibnd_load_fabric()
 * (ibnetdiscover --load-cache shows the same under valgrind); keep LeakSanitizer
 * quiet about that library only, so our own leaks still fail the tests.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libibnetdisc.so\n";
}
#endif

/* Magic and version checked here, since ibnd_load_fabric() only says NULL. */
static int check_header(const char *path, vt_err *e)
{
	unsigned char h[8] = {0};
	FILE *fp = fopen(path, "rb");
	size_t r;
	uint32_t magic, version;

	if (!fp)
		return vt_err_set(e, "%s: cannot open: %s", path, strerror(errno));
	r = fread(h, 1, sizeof(h), fp);
	fclose(fp);
	magic = h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
	version = h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24;
	if (r < 4 || magic != CACHE_MAGIC)
		return vt_err_set(e, "%s: not a libibnetdisc cache file", path);
	if (r < 8 || version != CACHE_VERSION)
		return vt_err_set(e, "%s: unsupported libibnetdisc cache version %u", path,
				  r < 8 ? 0 : version);
	return 0;
}

int vt_load_cache(const char *path, vt_fabric **out, vt_err *e)
{
	ibnd_fabric_t *ib;
	int rc;

	*out = NULL;
	if (check_header(path, e))
		return -1;
	ib = ibnd_load_fabric(path, 0);
	if (!ib)
		return vt_err_set(e, "%s: corrupt or truncated libibnetdisc cache file", path);
	rc = vt_load_ibnd(ib, path, out, e);
	ibnd_destroy_fabric(ib);
	return rc;
}

int vt_load(const char *path, vt_fabric **out, vt_err *e)
{
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	if (vt_read_file(path, &buf, &len, e))
		return -1;
	if (len >= 4 && ((unsigned char)buf[0] | (uint32_t)(unsigned char)buf[1] << 8 |
			 (uint32_t)(unsigned char)buf[2] << 16 |
			 (uint32_t)(unsigned char)buf[3] << 24) == CACHE_MAGIC) {
		free(buf);
		return vt_load_cache(path, out, e);
	}
	rc = vt_load_mem(buf, len, path, out, e);
	free(buf);
	return rc;
}
