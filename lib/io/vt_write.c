/* SPDX-License-Identifier: MIT */
#include "io/vt_write.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* Refuses text that would break the record grammar or ibsim's port-option scan. */
static int check_text(const vt_fabric *f, uint32_t n, vt_err *e)
{
	const struct vt_node *nd = &f->nodes[n];

	if (strpbrk(nd->id, "\"\n#@"))
		return vt_err_set(e, "node \"%s\": id contains '\"', '#', '@' or a newline",
				  nd->id);
	if (strpbrk(nd->desc, "\"\n"))
		return vt_err_set(e, "node \"%s\": description contains '\"' or a newline", nd->id);
	if (strchr(nd->desc, '='))
		return vt_err_set(e,
				  "node \"%s\": description contains '=', which ibsim reads "
				  "as a port option",
				  nd->id);
	return 0;
}

static unsigned node_lid(const vt_fabric *f, uint32_t port, unsigned flags)
{
	const struct vt_port *pt = &f->ports[port];

	if (flags & VT_WRITE_NO_LIDS)
		return 0;
	if (f->nodes[pt->node].type == VT_SWITCH)
		return vt_port(f, pt->node, 0)->lid;
	return pt->lid;
}

/* " 4xQDR" as ibnetdiscover prints the active width and speed; nothing when unknown. */
static void rate(FILE *fp, const struct vt_port *pt)
{
	if (pt->width && pt->speed != VT_SPEED_UNKNOWN)
		fprintf(fp, " %ux%s", pt->width, vt_speed_name((enum vt_speed)pt->speed));
}

static void ids(FILE *fp, const struct vt_node *nd)
{
	unsigned devid = nd->devid ? nd->devid : nd->type == VT_SWITCH ? 0xc738 : 0x1003;

	fprintf(fp, "\nvendid=0x2c9\ndevid=0x%x\nsysimgguid=0x%" PRIx64 "\n", devid,
		nd->sysguid ? nd->sysguid : nd->guid);
}

static void write_switch(const vt_fabric *f, uint32_t n, FILE *fp, unsigned flags)
{
	const struct vt_node *nd = &f->nodes[n];

	ids(fp, nd);
	fprintf(fp, "switchguid=0x%" PRIx64 "(%" PRIx64 ")\n", nd->guid, nd->guid);
	fprintf(fp, "Switch\t%u \"%s\"\t\t# \"%s\" base port 0 lid %u lmc 0\n", nd->nports, nd->id,
		nd->desc, node_lid(f, vt_port_index(f, n, 0), flags));
	for (unsigned p = 1; p <= nd->nports; p++) {
		const struct vt_port *pt = vt_port(f, n, p);
		const struct vt_port *q;
		const struct vt_node *rn;

		if (pt->peer == VT_NONE)
			continue;
		q = &f->ports[pt->peer];
		rn = &f->nodes[q->node];
		fprintf(fp, "[%u]\t\"%s\"[%u]", p, rn->id, q->num);
		if (rn->type != VT_SWITCH)
			fprintf(fp, "(%" PRIx64 ") ", q->guid);
		fprintf(fp, "\t\t# \"%s\" lid %u", rn->desc, node_lid(f, pt->peer, flags));
		rate(fp, pt);
		fputc('\n', fp);
	}
}

static void write_ca(const vt_fabric *f, uint32_t n, FILE *fp, unsigned flags)
{
	const struct vt_node *nd = &f->nodes[n];
	int rt = nd->type == VT_ROUTER;

	ids(fp, nd);
	fprintf(fp, "%sguid=0x%" PRIx64 "\n", rt ? "rt" : "ca", nd->guid);
	fprintf(fp, "%s\t%u \"%s\"\t\t# \"%s\"\n", rt ? "Rt" : "Ca", nd->nports, nd->id, nd->desc);
	for (unsigned p = 1; p <= nd->nports; p++) {
		const struct vt_port *pt = vt_port(f, n, p);
		const struct vt_port *q;
		const struct vt_node *rn;

		if (pt->peer == VT_NONE)
			continue;
		q = &f->ports[pt->peer];
		rn = &f->nodes[q->node];
		fprintf(fp, "[%u](%" PRIx64 ") \t\"%s\"[%u]", p, pt->guid, rn->id, q->num);
		if (rn->type != VT_SWITCH)
			fprintf(fp, " (%" PRIx64 ") ", q->guid);
		fprintf(fp, "\t\t# lid %u lmc %u \"%s\" lid %u",
			node_lid(f, vt_port_index(f, n, p), flags),
			flags & VT_WRITE_NO_LIDS ? 0 : pt->lmc, rn->desc,
			node_lid(f, pt->peer, flags));
		rate(fp, pt);
		fputc('\n', fp);
	}
}

int vt_fabric_write_flags(const vt_fabric *f, FILE *fp, unsigned flags, vt_err *e)
{
	for (uint32_t n = 0; n < f->nnodes; n++)
		if (check_text(f, n, e))
			return -1;
	if (!(flags & VT_WRITE_NO_HEADER)) {
		fputs("#\n# Topology file: written by vartree from ", fp);
		for (const char *s = f->source; *s; s++)
			fputc(*s == '\n' ? ' ' : *s, fp);
		fputs("\n#\n", fp);
	}
	for (uint32_t n = 0; n < f->nnodes; n++)
		if (f->nodes[n].type == VT_SWITCH)
			write_switch(f, n, fp, flags);
	for (int t = VT_CA; t <= VT_ROUTER; t += VT_ROUTER - VT_CA)
		for (uint32_t n = 0; n < f->nnodes; n++)
			if (f->nodes[n].type == t)
				write_ca(f, n, fp, flags);
	if (ferror(fp))
		return vt_err_set(e, "write error: %s", strerror(errno));
	return 0;
}

int vt_fabric_write(const vt_fabric *f, FILE *fp, vt_err *e)
{
	return vt_fabric_write_flags(f, fp, 0, e);
}
