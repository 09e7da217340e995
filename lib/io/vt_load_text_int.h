/* SPDX-License-Identifier: MIT */
/*
 * Shared by the text loader (vt_load_text.c), its line lexer (vt_load_lex.c)
 * and the loaders' entry points (vt_load.c), and no one else. The lexer keeps
 * no state: each function reads [s, e) of one line and returns where it
 * stopped, or NULL when the text is not what it reads.
 */
#ifndef VT_LOAD_TEXT_INT_H
#define VT_LOAD_TEXT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/vt_fabric.h"

/* ibsim's LinkWidthEnabled bits */
#define W_1X  1u
#define W_4X  2u
#define W_8X  4u
#define W_12X 8u
#define W_2X  16u
/* set beside the enables when ibnetdiscover printed "??" (width) or "???" (speed) */
#define W_UNNAMED 0x80u

#define SBIT(s)	  (1u << (s))
#define S_LEGACY  (SBIT(VT_SDR) | SBIT(VT_DDR) | SBIT(VT_QDR))
#define S_EXT	  (SBIT(VT_FDR) | SBIT(VT_EDR) | SBIT(VT_HDR) | SBIT(VT_NDR) | SBIT(VT_XDR))
#define S_UNNAMED 0x8000u

/* Inline: both files call these for nearly every byte. */
static inline int is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static inline int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline const char *skip_ws(const char *s, const char *e)
{
	while (s < e && is_ws(*s))
		s++;
	return s;
}

static inline int starts(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - s) >= n && !memcmp(s, w, n);
}

/* ---- numbers and words */
const char *vt_lex_num(const char *s, const char *e, uint64_t *v);
const char *vt_lex_hex(const char *s, const char *e, uint64_t *v);
const char *vt_lex_dec(const char *s, const char *e, unsigned long *v);
const char *vt_lex_quoted(const char *s, const char *e, const char **body, size_t *len);
const char *vt_lex_find_word(const char *s, const char *e, const char *w);

/* ---- width and speed, as ibsim enables them */
unsigned vt_lex_width(unsigned w);
enum vt_speed vt_lex_speed(unsigned s);
int vt_lex_rate_token(const char *s, const char *e, uint8_t *w, uint16_t *sp);
uint16_t vt_lex_legacy_bits(unsigned long v);
uint16_t vt_lex_ext_bits(unsigned long v);

/* ---- pieces of records and lines that are not the topology */
int vt_lex_header_desc(const char *c, const char *e, const char **desc, size_t *dlen,
		       const char **rest);
const char *vt_lex_port_ref(const char *s, const char *e, unsigned long *num, uint64_t *guid,
			    int *bad);
const char *vt_lex_skip_bom(const char *s, const char *e);
int vt_lex_is_noise(const char *s, const char *e);
/* a record keyword: the word, then a blank or the port count */
int vt_lex_keyword(const char *s, const char *e, const char *w);
/* what a link listed from both ends enables; u: the "could not name it" flag */
unsigned vt_lex_both_ends(unsigned x, unsigned y, unsigned u);

/*
 * A forwarding-table file given where a topology belongs (an easy mistake:
 * both come out of the same OpenSM or ibdiagnet run): what it is, its first
 * such line in *line; NULL if it is none (vt_load.c).
 */
const char *vt_load_table_kind(const char *buf, size_t len, unsigned *line);

#endif
