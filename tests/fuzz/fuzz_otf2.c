/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: OTF2 traces (vt_otf2_read). OTF2 is a directory, so each
 * input is a framed archive written to a fresh private directory D, read,
 * freed and removed again. Parts are separated by FUZZ_OTF2_SEP:
 *   part 0   the global definitions D/t.def
 *   part 1.. "NAME\n" then its bytes: the location file D/t/NAME, NAME being
 *            digits then ".def" or ".evt" (other parts are skipped), or
 *            "anchor\n" then the anchor file D/t.otf2's bytes
 * Without an anchor part the anchor file is libotf2's own, written once for
 * an archive of no locations (the reader takes them from the definitions)
 * and the smallest chunks (its buffers are allocated per location and
 * execution; with 1 MiB ones a run took about 8 times longer). A damaged
 * anchor file must be refused at once (vt_otf2_anchor_check: libotf2 trusts
 * its counts and string lengths), which libFuzzer's -timeout watches.
 * tests/fuzz/otf2-seeds packs otf2-write's traces this way, one with its
 * anchor file.
 */
#include "fuzz_common.h"
#include "work/vt_otf2.h"

#include <dirent.h>
#include <otf2/otf2.h>
#include <sys/stat.h>

#define FUZZ_OTF2_SEP	   "@VTF@"
#define FUZZ_OTF2_MAXFILES 64

/*
 * A count field of the definitions (a group's members, say) may be up to
 * 2^32 - 1: libotf2 mallocs for that many (up to 32 GiB) before it finds the
 * record too short. A normal build gets the memory untouched or NULL, and
 * either way refuses the file at once (vartree-sim on such a 14 GiB group:
 * 0.04 s, 42 MB resident); under ASan a refused one aborts, a granted one
 * costs shadow memory and libFuzzer calls it out of memory. Allocations over
 * 1 GiB fail here instead: NULL, which libotf2 reports and the reader
 * refuses ("This could not be done with the given memory"). The reader's own
 * tables are bounded far below that (2^24 strings, 2^24 region bytes).
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1:max_allocation_size_mb=1024";
}

static uint8_t *anchor_bytes;
static size_t anchor_len;

/* NAME of a location file: 1 to 20 digits, ".def" or ".evt". */
static int loc_name(const uint8_t *s, size_t n)
{
	size_t d = 0;

	while (d < n && d < 21 && s[d] >= '0' && s[d] <= '9')
		d++;
	return d >= 1 && d <= 20 && n == d + 4 &&
	       (!memcmp(s + d, ".def", 4) || !memcmp(s + d, ".evt", 4));
}

static void put(const char *path, const uint8_t *p, size_t n)
{
	FILE *fp = fopen(path, "wb");

	if (!fp || (n && fwrite(p, 1, n, fp) != n) || fclose(fp))
		abort();
}

/* Part k (bytes p, n) in directory dir. */
static void put_part(const char *dir, unsigned k, const uint8_t *p, size_t n)
{
	char path[256];
	const uint8_t *nl;

	if (k == 0) {
		snprintf(path, sizeof(path), "%s/t.def", dir);
		put(path, p, n);
		return;
	}
	nl = memchr(p, '\n', n);
	if (nl && nl - p == 6 && !memcmp(p, "anchor", 6)) {
		snprintf(path, sizeof(path), "%s/t.otf2", dir);
		put(path, nl + 1, n - 7);
		return;
	}
	if (!nl || !loc_name(p, (size_t)(nl - p)))
		return;
	snprintf(path, sizeof(path), "%s/t/%.*s", dir, (int)(nl - p), (const char *)p);
	put(path, nl + 1, n - (size_t)(nl - p) - 1);
}

static const uint8_t *find_sep(const uint8_t *p, size_t n)
{
	size_t s = sizeof(FUZZ_OTF2_SEP) - 1;

	for (size_t i = 0; i + s <= n; i++)
		if (!memcmp(p + i, FUZZ_OTF2_SEP, s))
			return p + i;
	return NULL;
}

/* Empties and removes dir (files only; libotf2 makes no directories when reading). */
static void rm_dir(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	char path[512];

	if (!dp)
		abort();
	while ((de = readdir(dp)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (unlink(path))
				abort();
		}
	closedir(dp);
	if (rmdir(dir))
		abort();
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd,
				bool final)
{
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	return 0;
}

/* The anchor file of an empty archive, as this libotf2 writes it. */
static void make_anchor(void)
{
	static const OTF2_FlushCallbacks flush = {pre_flush, post_flush};
	char dir[64] = "/tmp/vt-fuzz-otf2-XXXXXX", sub[80], path[80];
	OTF2_Archive *a;
	FILE *fp;
	long n;

	if (!mkdtemp(dir))
		abort();
	a = OTF2_Archive_Open(dir, "t", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
			      OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!a || OTF2_Archive_SetFlushCallbacks(a, &flush, NULL) != OTF2_SUCCESS ||
	    OTF2_Archive_SetSerialCollectiveCallbacks(a) != OTF2_SUCCESS ||
	    OTF2_Archive_Close(a) != OTF2_SUCCESS)
		abort();
	snprintf(path, sizeof(path), "%s/t.otf2", dir);
	fp = fopen(path, "rb");
	if (!fp || fseek(fp, 0, SEEK_END) || (n = ftell(fp)) <= 0 || fseek(fp, 0, SEEK_SET) ||
	    !(anchor_bytes = malloc((size_t)n)) ||
	    fread(anchor_bytes, 1, (size_t)n, fp) != (size_t)n)
		abort();
	fclose(fp);
	anchor_len = (size_t)n;
	snprintf(sub, sizeof(sub), "%s/t", dir);
	if (!access(sub, F_OK))
		rm_dir(sub);
	rm_dir(dir);
}

/* A trace read whole: every operation names a rank, a communicator and a root it has. */
static void check(const vt_mpitrace *t)
{
	if (!t->nranks || !t->rank || (t->ncomm && !t->comm))
		abort();
	for (uint32_t c = 0; c < t->ncomm; c++)
		for (uint32_t i = 0; t->comm[c].world && i < t->comm[c].n; i++)
			if (t->comm[c].world[i] >= t->nranks)
				abort();
	for (uint32_t r = 0; r < t->nranks; r++)
		for (uint64_t i = 0; i < t->rank[r].n; i++) {
			const struct vt_mpiop *o = &t->rank[r].v[i];

			if (o->kind == VT_MPI_ISEND_DONE) {
				if (o->isend >= i || t->rank[r].v[o->isend].kind != VT_MPI_ISEND)
					abort();
				continue;
			}
			if (o->comm >= t->ncomm)
				abort();
			if ((o->kind == VT_MPI_SEND || o->kind == VT_MPI_ISEND ||
			     o->kind == VT_MPI_RECV) &&
			    o->peer >= t->nranks)
				abort();
			if (o->kind == VT_MPI_COLL &&
			    (o->coll > VT_MPICOLL_ALLTOALLV ||
			     (o->root != VT_MPI_NOROOT) != vt_mpicoll_rooted(o->coll) ||
			     (o->root != VT_MPI_NOROOT && o->root >= t->comm[o->comm].n)))
				abort();
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[64] = "/tmp/vt-fuzz-otf2-XXXXXX", sub[80], anchor[80];
	const uint8_t *p = data, *end = data + size, *s;
	vt_mpitrace t;
	vt_err e = {0};
	unsigned k = 0;

	if (!mkdtemp(dir))
		abort();
	snprintf(sub, sizeof(sub), "%s/t", dir);
	snprintf(anchor, sizeof(anchor), "%s/t.otf2", dir);
	if (mkdir(sub, 0700))
		abort();
	if (!anchor_bytes)
		make_anchor();
	put(anchor, anchor_bytes, anchor_len);
	for (; k < FUZZ_OTF2_MAXFILES; k++, p = s + sizeof(FUZZ_OTF2_SEP) - 1) {
		s = find_sep(p, (size_t)(end - p));
		put_part(dir, k, p, (size_t)((s ? s : end) - p));
		if (!s)
			break;
	}
	if (vt_otf2_read(&t, anchor, &e)) {
		/* one line, naming the anchor file; nothing left to free */
		fuzz_one_line(&e);
		if (strncmp(e.msg, anchor, strlen(anchor)) || t.rank || t.comm)
			abort();
	} else {
		check(&t);
		vt_mpitrace_free(&t);
	}
	rm_dir(sub);
	rm_dir(dir);
	return 0;
}
