/* SPDX-License-Identifier: MIT */
/*
 * The text loader's lexer: numbers, quoted strings, words, rate tokens, port
 * references and the noise captured with a dump (a byte-order mark, shell
 * prompts, ibnetdiscover's error lines), each read from [s, e) of one line.
 * The loader (vt_load_text.c) gives them meaning.
 */
#include "io/vt_load_text_int.h"

#include <string.h>

/* ---- numbers and words */

/* A number as strtoull(…, 0) reads it, with overflow detection. */
const char *vt_lex_num(const char *s, const char *e, uint64_t *v)
{
	unsigned base = 10;
	uint64_t x = 0;
	const char *start;

	if (s + 1 < e && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	else if (s < e && s[0] == '0')
		base = 8;
	start = s;
	for (; s < e; s++) {
		unsigned d;

		if (is_digit(*s))
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (d >= base)
			break;
		if (x > (UINT64_MAX - d) / base)
			return NULL;
		x = x * base + d;
	}
	if (s == start && base != 8)
		return NULL;
	*v = x;
	return s;
}

const char *vt_lex_hex(const char *s, const char *e, uint64_t *v)
{
	uint64_t x = 0;
	const char *start = s;

	for (; s < e; s++) {
		unsigned d;

		if (is_digit(*s))
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		if (x >> 60)
			return NULL;
		x = x * 16 + d;
	}
	if (s == start)
		return NULL;
	*v = x;
	return s;
}

/* Decimal digits, saturating at 1e6 so huge numbers stay out of range. */
const char *vt_lex_dec(const char *s, const char *e, unsigned long *v)
{
	unsigned long x = 0;
	const char *start = s;

	for (; s < e && is_digit(*s); s++)
		x = x >= 100000 ? 1000000 : x * 10 + (unsigned long)(*s - '0');
	if (s == start)
		return NULL;
	*v = x;
	return s;
}

/* A quoted string starting at s (which must be '"'): its body and the rest. */
const char *vt_lex_quoted(const char *s, const char *e, const char **body, size_t *len)
{
	const char *q;

	if (s >= e || *s != '"')
		return NULL;
	q = memchr(s + 1, '"', (size_t)(e - s - 1));
	if (!q)
		return NULL;
	*body = s + 1;
	*len = (size_t)(q - s - 1);
	return q + 1;
}

/* First occurrence of the word w (delimited by blanks or the ends) in [s, e). */
const char *vt_lex_find_word(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = s; p + n <= e; p++)
		if (!memcmp(p, w, n) && (p == s || is_ws(p[-1])) && (p + n == e || is_ws(p[n])))
			return p;
	return NULL;
}

/* ---- width and speed, as ibsim enables them */

unsigned vt_lex_width(unsigned w)
{
	return w & W_12X ? 12 : w & W_8X ? 8 : w & W_4X ? 4 : w & W_2X ? 2 : w & W_1X ? 1 : 0;
}

enum vt_speed vt_lex_speed(unsigned s)
{
	for (unsigned i = VT_XDR; i >= VT_SDR; i--)
		if (s & SBIT(i))
			return (enum vt_speed)i;
	return VT_SPEED_UNKNOWN;
}

/* Width enables as ibsim derives them from a "4x": 0 for a width IB has not. */
static uint8_t width_bits(unsigned long n)
{
	switch (n) {
	case 1:
		return W_1X;
	case 2:
		return W_2X;
	case 4:
		return W_1X | W_4X;
	case 8:
		return W_8X;
	case 12:
		return W_1X | W_4X | W_12X;
	}
	return 0;
}

/*
 * A "4xQDR" token: the enables ibsim derives from it. ibnetdiscover prints
 * "??" for a width and "???" for a speed it cannot name ("4x???" on an XDR
 * port of an old infiniband-diags): the part it names is kept, the other
 * stays as the defaults have it and is marked W_UNNAMED or S_UNNAMED, so the
 * link takes it from the other end's line when that one names it.
 */
int vt_lex_rate_token(const char *s, const char *e, uint8_t *w, uint16_t *sp)
{
	unsigned long n = 0;
	const char *p;
	enum vt_speed v = VT_SPEED_UNKNOWN;

	if (e - s >= 2 && s[0] == '?' && s[1] == '?')
		p = s + 2;
	else if ((p = vt_lex_dec(s, e, &n)) && p < e && *p == 'x' && width_bits(n))
		p++;
	else
		return 0;
	if (!(e - p == 3 && !memcmp(p, "???", 3))) {
		v = vt_speed_parse(p, (unsigned)(e - p));
		if (v == VT_SPEED_UNKNOWN)
			return 0;
	}
	*w = n ? width_bits(n) : (uint8_t)(*w | W_UNNAMED);
	/* every speed up to the named one, as the ibsim enables it */
	*sp = v != VT_SPEED_UNKNOWN ? (uint16_t)((SBIT(v) << 1) - SBIT(VT_SDR))
				    : (uint16_t)(*sp | S_UNNAMED);
	return 1;
}

uint16_t vt_lex_legacy_bits(unsigned long v)
{
	return (uint16_t)((v & 1 ? SBIT(VT_SDR) : 0) | (v & 2 ? SBIT(VT_DDR) : 0) |
			  (v & 4 ? SBIT(VT_QDR) : 0));
}

uint16_t vt_lex_ext_bits(unsigned long v)
{
	return (uint16_t)((v & 1 ? SBIT(VT_FDR) : 0) | (v & 2 ? SBIT(VT_EDR) : 0) |
			  (v & 4 ? SBIT(VT_HDR) : 0) | (v & 8 ? SBIT(VT_NDR) : 0));
}

/* ---- pieces of records and lines that are not the topology */

/*
 * The description in a header's comment: a quoted string, which runs to the
 * last quote of the line since ibnetdiscover does not escape quotes inside it,
 * or ibsim's unquoted form, which ends where the port 0 words start. *rest is
 * what follows it.
 */
int vt_lex_header_desc(const char *c, const char *e, const char **desc, size_t *dlen,
		       const char **rest)
{
	c = skip_ws(c, e);
	if (c < e && *c == '"') {
		const char *q = e;

		while (q > c + 1 && q[-1] != '"')
			q--;
		if (q <= c + 1)
			return -1;
		*desc = c + 1;
		*dlen = (size_t)(q - 1 - (c + 1));
		*rest = q;
		return 0;
	}
	{
		const char *stop = e;
		const char *const ends[] = {"enhanced", "base", "lid", "lmc"};

		for (unsigned i = 0; i < 4; i++) {
			const char *w = vt_lex_find_word(c, stop, ends[i]);

			if (w && w > c)
				stop = w - 1;
		}
		*desc = c;
		*dlen = (size_t)(stop - c);
		*rest = stop;
	}
	return 0;
}

/*
 * "[n]" followed by an optional "[ext n]" and "(guid)". ibdiagnet writes the
 * port's label in the parentheses ("[1](1)", "[5](1/5)"): one equal to the
 * port number or not a hex number is no GUID, and *guid is left alone.
 */
const char *vt_lex_port_ref(const char *s, const char *e, unsigned long *num, uint64_t *guid,
			    int *bad)
{
	const char *c, *digits = s + 1;

	*bad = 0;
	if (s >= e || *s != '[')
		return NULL;
	c = vt_lex_dec(s + 1, e, num);
	if (!c || c >= e || *c != ']') {
		*bad = s + 1 < e; /* else the line just ends: truncated */
		return NULL;
	}
	s = c + 1;
	c = skip_ws(s, e);
	if (e - c >= 5 && !memcmp(c, "[ext", 4)) {
		const char *q = memchr(c, ']', (size_t)(e - c));

		if (!q)
			return NULL;
		s = q + 1;
		c = skip_ws(s, e);
	}
	if (c < e && *c == '(') {
		const char *close = memchr(c, ')', (size_t)(e - c)), *q;
		size_t nd = strspn(digits, "0123456789");
		uint64_t g;

		if (!close)
			return NULL;
		q = vt_lex_hex(c + 1, close, &g);
		if (q == close && !((size_t)(close - c - 1) == nd && !memcmp(c + 1, digits, nd)))
			*guid = g;
		else if (!q && c + 1 < close && is_digit(c[1]) &&
			 !memchr(c, '/', (size_t)(close - c)))
			return NULL; /* a number too long for a GUID */
		s = close + 1;
	}
	return s;
}

/*
 * Lines that are not the topology but get captured with it: the error lines
 * ibnetdiscover and libibmad print ("ibwarn: [123] ...", "src/query_smp.c:195;
 * umad ... bad status 110"), and a shell prompt ("[root@h ~]# ibnetdiscover",
 * "user@h:~$ ibnetdiscover"). Skipped, also inside a record.
 */
int vt_lex_is_noise(const char *s, const char *e)
{
	const char *w = s, *c;
	static const char *const pre[] = {
		"ibwarn:", "ibpanic:", "iberror:", "ibdebug:", "ibinfo:", "ibnetdiscover:"};

	for (unsigned i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (starts(s, e, pre[i]))
			return 1;
	while (w < e && !is_ws(*w))
		w++;
	/* "file.c:LINE;" */
	for (c = s; c + 3 < w; c++)
		if (c[0] == '.' && c[1] == 'c' && c[2] == ':' && is_digit(c[3]) && w[-1] == ';')
			return 1;
	/* a prompt: "[user@host dir]#" or "user@host:dir$" before a command */
	if (memchr(s, '@', (size_t)(w - s)) &&
	    (memchr(s, '$', (size_t)(e - s)) || memchr(s, '#', (size_t)(e - s)) ||
	     memchr(s, '>', (size_t)(e - s))))
		return *s == '[' || !memchr(s, '"', (size_t)(e - s));
	return 0;
}

/* A UTF-8 byte-order mark, as Windows editors save the file: skipped. */
const char *vt_lex_skip_bom(const char *s, const char *e)
{
	if (e - s >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
		s += 3;
	return s;
}

/* A record keyword: the word, then a blank or the port count. */
int vt_lex_keyword(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	return starts(s, e, w) && (size_t)(e - s) > n && (is_ws(s[n]) || is_digit(s[n]));
}

/*
 * What a link listed from both ends enables (u: the UNNAMED flag): what both
 * lines enable, as ibsim has it, unless one line could not name it ("??",
 * "???") and the other did: then the named one, which is the link's.
 */
unsigned vt_lex_both_ends(unsigned x, unsigned y, unsigned u)
{
	if ((x ^ y) & u)
		return x & u ? y : x;
	return x & y;
}
