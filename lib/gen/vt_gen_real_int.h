/* SPDX-License-Identifier: MIT */
/* Shared by vt_gen_real.c and vt_gen_director.c only: the features' working state. */
#ifndef VT_GEN_REAL_INT_H
#define VT_GEN_REAL_INT_H

#include "gen/vt_gen.h"

#define OUI 0x0002c9ull

struct loop {
	uint32_t sw;
	uint8_t a, b;
};

/* A bypassed director's added spine ASIC: ASIC k of its chassis, its node in the new fabric. */
struct spine {
	uint32_t chassis, k, node;
	unsigned nports;
};

/* A cable from a spine ASIC (its ordinal) to a line ASIC (base node), port to port. */
struct spine_link {
	uint32_t spine, line;
	uint8_t sport, lport;
};

/* The state of vt_gen_real_apply: choices on the base fabric, then the new one. */
struct real {
	const struct vt_gen_spec *s;
	const vt_fabric *b;
	const struct vt_gen_shape *sh;
	uint8_t *cut;	   /* per base port: link removed (host-less leaves) */
	uint8_t *taken;	   /* per base port: given to a storage HCA, a loop-back, a spine ASIC */
	uint8_t *extra;	   /* per base node: ports added for storage HCAs and spine ASICs */
	uint32_t *chassis; /* per base node: director chassis, VT_NONE */
	uint32_t *asic;	   /* per base node: line or spine ASIC number inside its chassis */
	unsigned line;	   /* level of the directors' line ASICs */
	uint32_t nchassis;
	struct spine *spines; /* bypassed directors' spine ASICs, chassis by chassis */
	struct spine_link *sl;
	uint32_t nspines, nsl;
	uint32_t *map; /* base port index -> new port index, VT_NONE */
	uint32_t *att; /* storage HCA port i: base switch << 8 | port */
	struct loop *loops;
	uint32_t nloops;
	uint16_t sw_devid;
};

static inline int is_switch(const struct real *r, uint32_t n)
{
	return r->b->nodes[n].type == VT_SWITCH;
}

/* 1234 -> 0x1234: decimal digits inside GUIDs, as the generator writes them. */
uint64_t vt_gen_bcd(uint64_t x);
/* "bad spec '<text>': why" */
int vt_gen_real_too_big(const struct real *r, vt_err *e, const char *why);
/* The lowest free port of a switch (reserved), else one more port past its last. */
int vt_gen_real_take_port(struct real *r, uint32_t sw, unsigned *port, vt_err *e);

/* Chassis and ASIC numbers of the director's switches (r->chassis, r->asic, r->line). */
int vt_gen_director_find(struct real *r, vt_err *e);
/* Bypassed directors: the spine ASICs to add and their cables, ports reserved. */
int vt_gen_director_spines(struct real *r, vt_err *e);
/* Chassis c's sysimgguid; ASIC k's description ("MF0;cs7500-01:CS7500/L01/U1"), kind L or S. */
uint64_t vt_gen_director_sysguid(uint32_t c);
void vt_gen_director_desc(const struct real *r, char *buf, size_t len, uint32_t c, char kind,
			  uint32_t k);
/* The added spine ASICs as switches of f (after the base's), then their cables. */
int vt_gen_director_add_spines(struct real *r, vt_fabric *f, vt_err *e);
int vt_gen_director_link_spines(struct real *r, vt_fabric *f, vt_err *e);

#endif
