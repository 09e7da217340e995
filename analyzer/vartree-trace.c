/* SPDX-License-Identifier: MIT */
/*
 * vartree-trace: an offline ibtracert. The path from one host to another
 * through given forwarding tables, and the reverse question: which
 * source/destination pairs of a pattern cross a given port.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/vt_cli.h"
#include "analysis/vt_congest.h"
#include "model/vt_fabric.h"
#include "out/vt_json.h"
#include "model/vt_lft.h"
#include "io/vt_lftio.h"
#include "io/vt_live.h"
#include "io/vt_namemap.h"
#include "io/vt_load.h"
#include "model/vt_order.h"
#include "analysis/vt_path.h"
#include "model/vt_pattern.h"
#include "route/vt_route.h"

#define PROG	     "vartree-trace"
#define MAX_PATTERNS 64
#define CHUNK	     (1u << 16)

static const char usage[] =
	"usage: " PROG " TOPOLOGY [--lfts FILE | --route vartree] [-G | -L | --rank] SRC DST\n"
	"       " PROG " TOPOLOGY [--lfts FILE | --route vartree] --port NODE/PORT [-p SPEC]...\n"
	"       " PROG " --live ...  (the same, on the subnet of the local CA)\n"
	"Prints the path from SRC to DST through the forwarding tables (an offline ibtracert),\n"
	"or the source/destination pairs of patterns whose path crosses a port.\n"
	"  -l, --lfts FILE          tables: opensm-lfts.dump, ibroute/dump_fts output, "
	"opensm.fdbs\n"
	"      --lmc N              the LMC of a TOPOLOGY that names none (default: the one\n"
	"                           the tables show, as vartree-analyze)\n"
	"      --route vartree      route the fabric with vartree first\n"
	"      --live               discover the subnet and read its tables (needs umad access)\n"
	"  -C, --Ca CA              --live: the local CA (default: the first)\n"
	"  -P, --Port PORT          --live: its port (default: the first active)\n"
	"  -G, --guid               SRC and DST are node or port GUIDs\n"
	"  -L, --lid                SRC and DST are LIDs\n"
	"  -r, --rank               SRC and DST are ranks of the host order\n"
	"                           (default: node descriptions, host names or ids)\n"
	"      --port NODE/PORT     list the pairs whose path crosses this port, either way\n"
	"  -p, --pattern SPEC       patterns for --port, as vartree-analyze (default: all2all)\n"
	"      --order FILE         host order (ca-order dump, or one host per line)\n"
	"      --order-random SEED  hosts placed on the ranks at random\n"
	"      --json               JSON instead of text\n"
	"      --node-name-map FILE names for nodes by GUID (infiniband-diags' format;\n"
	"                           default " VT_NODE_NAME_MAP_DEFAULT " when present)\n"
	"  -q, --quiet              --port: counts only, no list of pairs\n"
	"  -h, --help               this summary\n"
	"  -V, --version            the release\n"
	"Exit status: 0 ok, 1 the path does not arrive, 2 usage or input error.\n"
	"See vartree-trace(1).\n";

struct opts {
	const char *topo, *lfts, *route, *order, *port, *addr[2], *name_map;
	const char *patterns[MAX_PATTERNS];
	unsigned npatterns;
	int live, json, quiet, have_seed;
	int lmc;		  /* --lmc, -1: the fabric file's, else the one the tables show */
	struct vt_cli_live local; /* --live: -C CA -P PORT */
	enum vt_addr_kind kind;
	uint64_t seed;
};

/* What the options must agree on, once all are read; the operands are taken here. */
static void check_args(const struct vt_cli *cli, struct opts *o, int nkind)
{
	int argc = cli->argc;
	char **argv = cli->argv;

	if (!o->live) {
		if (optind >= argc)
			vt_cli_usage(cli, "no topology given");
		o->topo = argv[optind++];
	}
	if (!o->port) {
		if (argc - optind != 2)
			vt_cli_usage(cli, "give SRC and DST, or --port NODE/PORT");
		o->addr[0] = argv[optind];
		o->addr[1] = argv[optind + 1];
	} else if (optind < argc) {
		vt_cli_usage(cli, "unexpected argument '%s' with --port", argv[optind]);
	}
	if (!!o->lfts + !!o->route + o->live != 1)
		vt_cli_usage(cli, "give exactly one of --lfts FILE, --route vartree, --live");
	vt_cli_exclusive(cli, nkind, "-G, -L and --rank");
	vt_cli_exclusive(cli, !!o->order + o->have_seed, "--order and --order-random");
	vt_cli_exclusive(cli, o->live + (o->lmc >= 0), "--lmc and --live");
	if (o->port && nkind)
		vt_cli_usage(cli, "-G, -L and --rank address SRC and DST, not --port");
	vt_cli_needs(cli, !!o->npatterns, "--pattern", !!o->port, "--port NODE/PORT");
	vt_cli_needs(cli, o->quiet, "-q", !!o->port,
		     "--port NODE/PORT"); /* a path prints its hops */
	vt_cli_live_check(cli, &o->local, o->live);
	if (!o->npatterns)
		o->patterns[o->npatterns++] = "all2all";
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"lfts", required_argument, 0, 'l'},
		{"route", required_argument, 0, 'R'},
		{"live", no_argument, 0, 'I'},
		{"guid", no_argument, 0, 'G'},
		{"lid", no_argument, 0, 'L'},
		{"rank", no_argument, 0, 'r'},
		{"port", required_argument, 0, 'X'},
		{"pattern", required_argument, 0, 'p'},
		{"order", required_argument, 0, 'o'},
		{"order-random", required_argument, 0, 'S'},
		{"json", no_argument, 0, 'j'},
		{"quiet", no_argument, 0, 'q'},
		{"node-name-map", required_argument, 0, 'N'},
		{"lmc", required_argument, 0, 'E'},
		{"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, VT_OPT_VERSION},
		VT_CLI_LIVE_OPTIONS,
		{0, 0, 0, 0},
	};
	struct vt_cli cli;
	int c, nkind = 0;

	vt_cli_init(&cli, PROG, usage, "l:GLrp:qhC:P:", lo, argc, argv);
	while ((c = vt_cli_next(&cli)) != -1) {
		if (vt_cli_live_opt(&cli, c, &o->local))
			continue;
		switch (c) {
		case 'l':
			o->lfts = optarg;
			break;
		case 'R':
			if (strcmp(optarg, "vartree"))
				vt_cli_die(PROG, VT_EXIT_USAGE,
					   "--route: '%s': only 'vartree' is built in", optarg);
			o->route = optarg;
			break;
		case 'I':
			o->live = 1;
			break;
		case 'G':
		case 'L':
		case 'r':
			o->kind = c == 'G' ? VT_ADDR_GUID : c == 'L' ? VT_ADDR_LID : VT_ADDR_RANK;
			nkind++;
			break;
		case 'X':
			o->port = optarg;
			break;
		case 'p':
			if (o->npatterns == MAX_PATTERNS)
				vt_cli_usage(&cli, "more than %d --pattern options", MAX_PATTERNS);
			o->patterns[o->npatterns++] = optarg;
			break;
		case 'o':
			o->order = optarg;
			break;
		case 'S':
			o->seed = vt_cli_uint(&cli, "--order-random", optarg, 0, UINT64_MAX);
			o->have_seed = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'N':
			o->name_map = optarg;
			break;
		case 'E':
			o->lmc = (int)vt_cli_uint(&cli, "--lmc", optarg, 0, 7);
			break;
		case 'q':
			o->quiet = 1;
			break;
		}
	}
	check_args(&cli, o, nkind);
}

/* The tables and the host order, as vartree-analyze takes them. */
static int load(const struct opts *o, vt_fabric **f, vt_lfts *t, vt_order *ord, const char **name,
		vt_err *e)
{
	int own_order = 0;

	if (o->live) {
		if (vt_live_capture(o->local.ca, (int)o->local.port, f, t, e))
			return -1;
		*name = "live";
	} else {
		if (vt_load(o->topo, f, e) ||
		    vt_cli_fabric_lmc(PROG, *f, o->topo, o->lfts, o->lmc, 0, e))
			return -1;
		if (o->lfts) {
			*name = o->lfts;
			if (vt_lfts_read(t, *f, o->lfts, e))
				return -1;
		} else {
			struct vt_route_opts ro = {0};
			*name = "vartree";
			if (vt_route(*f, &ro, t, ord, e))
				return -1;
			own_order = !o->order && !o->have_seed;
			if (!own_order)
				vt_order_free(ord);
		}
	}
	if (!own_order &&
	    (o->order ? vt_order_read(ord, *f, o->order, e) : vt_order_leaf(ord, *f, e)))
		return -1;
	if (o->have_seed)
		vt_order_shuffle(ord, o->seed);
	return 0;
}

static const char *type_name(const vt_fabric *f, uint32_t node)
{
	uint8_t t = f->nodes[node].type;
	return t == VT_SWITCH ? "switch" : t == VT_ROUTER ? "router" : "ca";
}

/* A node's LID range as ibtracert prints it: "L-H" (H = L + 2^lmc - 1). */
static void lid_range(const vt_fabric *f, uint32_t port, char *buf, size_t n)
{
	const struct vt_port *p = &f->ports[port];
	const struct vt_node *nd = &f->nodes[p->node];

	if (nd->type == VT_SWITCH)
		p = &f->ports[nd->first_port];
	snprintf(buf, n, "%u-%u", p->lid, p->lid + (1u << p->lmc) - 1);
}

static void print_end(const vt_fabric *f, const char *tag, uint32_t port)
{
	const struct vt_port *p = &f->ports[port];
	char lr[32];

	lid_range(f, port, lr, sizeof(lr));
	printf("%s %s {0x%016" PRIx64 "} portnum %u lid %s \"%s\"\n", tag, type_name(f, p->node),
	       f->nodes[p->node].guid, p->num, lr, f->nodes[p->node].desc);
}

/* Why the walk stopped, one line naming the node by description and GUID. */
static void why(const vt_fabric *f, const struct vt_path *p, uint32_t dlid, char *buf, size_t n)
{
	const struct vt_node *nd = &f->nodes[p->end_node];
	int k = snprintf(buf, n, "%s \"%s\" (0x%016" PRIx64 "): ", type_name(f, p->end_node),
			 nd->desc, nd->guid);

	if (k < 0 || (size_t)k >= n)
		return;
	buf += k;
	n -= (size_t)k;
	switch (p->end) {
	case VT_PATH_OK:
		snprintf(buf, n, "delivered");
		break;
	case VT_PATH_NO_ENTRY:
		snprintf(buf, n, "no table entry for LID %u", dlid);
		break;
	case VT_PATH_BAD_PORT:
		snprintf(buf, n, "LID %u goes to port %u, beyond its %u ports", dlid, p->end_port,
			 nd->nports);
		break;
	case VT_PATH_DOWN:
		snprintf(buf, n, "LID %u goes out of port %u, which is not connected", dlid,
			 p->end_port);
		break;
	case VT_PATH_LOOP:
		snprintf(buf, n, "LID %u loops (more hops than switches)", dlid);
		break;
	case VT_PATH_MISDELIVERY:
		snprintf(buf, n, "LID %u delivered here, but it is not this node's", dlid);
		break;
	}
}

static json_t *path_json(const vt_fabric *f, const struct vt_path *p, const char *tables,
			 uint32_t src, uint32_t dst, uint32_t dlid)
{
	json_t *o = json_object(), *hops = json_array();
	char msg[600];

	vt_json_set(o, "fabric", vt_json_text(f->source));
	vt_json_set(o, "tables", vt_json_text(tables));
	vt_json_set(o, "from", vt_json_port(f, src));
	vt_json_set(o, "to", vt_json_port(f, dst));
	vt_json_set(o, "dlid", json_integer(dlid));
	for (uint32_t h = 0; h < p->nhops; h++) {
		uint32_t q = f->ports[p->hop[h]].peer;
		json_t *hop = vt_json_port(f, q);
		vt_json_set(hop, "type", json_string(type_name(f, f->ports[q].node)));
		vt_json_set(hop, "out_port", json_integer(f->ports[p->hop[h]].num));
		json_array_append_new(hops, hop);
	}
	vt_json_set(o, "hops", hops);
	vt_json_set(o, "delivered", json_boolean(p->end == VT_PATH_OK));
	vt_json_set(o, "end", json_string(vt_path_end_name(p->end)));
	if (p->end != VT_PATH_OK) {
		why(f, p, dlid, msg, sizeof(msg));
		vt_json_set(o, "cause", vt_json_text(msg));
	}
	return o;
}

static int trace(const struct opts *o, const vt_fabric *f, const vt_lfts *t, const vt_order *ord,
		 const char *tables, vt_err *e)
{
	uint32_t src, dst, slid, dlid;
	struct vt_path p;
	char msg[600];

	if (vt_addr_resolve(f, ord, o->kind, o->addr[0], &src, &slid, e) ||
	    vt_addr_resolve(f, ord, o->kind, o->addr[1], &dst, &dlid, e))
		return VT_EXIT_USAGE;
	if (vt_path_walk(f, t, src, dlid, &p, e))
		return VT_EXIT_USAGE;
	if (o->json) {
		if (vt_json_dump(path_json(f, &p, tables, src, dst, dlid), stdout, e)) {
			vt_path_free(&p);
			return VT_EXIT_USAGE;
		}
	} else {
		print_end(f, "From", src);
		for (uint32_t h = 0; h < p.nhops; h++) {
			uint32_t q = f->ports[p.hop[h]].peer;
			char lr[32];
			lid_range(f, q, lr, sizeof(lr));
			printf("[%u] -> %s port {0x%016" PRIx64 "}[%u] lid %s \"%s\"\n",
			       f->ports[p.hop[h]].num, type_name(f, f->ports[q].node),
			       f->nodes[f->ports[q].node].guid, f->ports[q].num, lr,
			       f->nodes[f->ports[q].node].desc);
		}
		if (p.end == VT_PATH_OK)
			print_end(f, "To", dst);
	}
	int rc = p.end == VT_PATH_OK ? VT_EXIT_OK : VT_EXIT_CHECK;
	if (rc) {
		why(f, &p, dlid, msg, sizeof(msg));
		fprintf(stderr, PROG ": %s -> %s: %s\n", o->addr[0], o->addr[1], msg);
	}
	vt_path_free(&p);
	return rc;
}

/* ---- which pairs cross a port */

struct cross {
	const vt_fabric *f;
	const vt_routes *r;
	uint32_t chan[2]; /* [0] leaves the port (xmit), [1] enters it (rcv) */
	uint8_t *via[2];
	uint64_t count[2];
	json_t *list; /* JSON: flows of the pattern */
};

static json_t *rank_json(const vt_routes *r, uint32_t rank)
{
	json_t *o = vt_json_port(r->f, r->o->port[rank]);
	vt_json_set(o, "rank", json_integer(rank));
	return o;
}

static void report_flow(const struct opts *o, struct cross *x, const char *pat, uint32_t s,
			const struct vt_flow *fl, int dir)
{
	const vt_fabric *f = x->f;
	uint32_t a = x->r->o->port[fl->src], b = x->r->o->port[fl->dst];

	x->count[dir]++;
	if (o->quiet)
		return;
	if (o->json) {
		json_t *j = json_object();
		vt_json_set(j, "stage", json_integer(s));
		vt_json_set(j, "direction", json_string(dir ? "rcv" : "xmit"));
		vt_json_set(j, "src", rank_json(x->r, fl->src));
		vt_json_set(j, "dst", rank_json(x->r, fl->dst));
		json_array_append_new(x->list, j);
		return;
	}
	char na[VT_PORT_NAME_MAX], nb[VT_PORT_NAME_MAX];
	printf("%s stage %u %s: rank %u %s -> rank %u %s\n", pat, s, dir ? "rcv " : "xmit", fl->src,
	       vt_port_name(f, a, na, sizeof(na)), fl->dst, vt_port_name(f, b, nb, sizeof(nb)));
}

static int cross_pattern(const struct opts *o, struct cross *x, const vt_pattern *p,
			 struct vt_flow *buf)
{
	uint32_t ns = vt_pattern_nstages(p);

	x->count[0] = x->count[1] = 0;
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t m;
		for (uint64_t first = 0; (m = vt_pattern_stage_part(p, s, first, CHUNK, buf));
		     first += m)
			for (uint32_t i = 0; i < m; i++)
				for (int d = 0; d < 2; d++)
					if (vt_path_crosses(x->r, x->via[d], x->chan[d], buf[i].src,
							    buf[i].dst))
						report_flow(o, x, p->name, s, &buf[i], d);
	}
	return 0;
}

/* "NODE/PORT": the node by name or GUID (split at the last '/': descriptions hold slashes). */
static int parse_port(const vt_fabric *f, const char *spec, uint32_t *port, vt_err *e)
{
	const char *sl = strrchr(spec, '/');
	char *end, name[512];
	unsigned long pn;

	if (!sl || sl == spec || (size_t)(sl - spec) >= sizeof(name))
		return vt_err_set(e, "--port '%s': expected NODE/PORT", spec);
	errno = 0;
	pn = strtoul(sl + 1, &end, 10);
	if (errno || end == sl + 1 || *end || pn > VT_MAX_PORTS)
		return vt_err_set(e, "--port '%s': expected a port number after the last '/'",
				  spec);
	memcpy(name, spec, (size_t)(sl - spec));
	name[sl - spec] = 0;
	uint32_t n = vt_addr_node(f, name, e);
	if (n == VT_NONE)
		return -1;
	if (pn < 1 || pn > f->nodes[n].nports)
		return vt_err_set(e, "--port '%s': \"%s\" (0x%016" PRIx64 ") has ports 1 .. %u",
				  spec, f->nodes[n].desc, f->nodes[n].guid, f->nodes[n].nports);
	*port = vt_port_index(f, n, (unsigned)pn);
	if (f->ports[*port].peer == VT_NONE)
		return vt_err_set(
			e, "--port '%s': port %lu of \"%s\" (0x%016" PRIx64 ") is not connected",
			spec, pn, f->nodes[n].desc, f->nodes[n].guid);
	return 0;
}

static int crossing(const struct opts *o, const vt_fabric *f, const vt_lfts *t, const vt_order *ord,
		    const char *tables, vt_err *e)
{
	struct cross x = {.f = f};
	vt_routes r;
	vt_pattern p;
	uint32_t port = VT_NONE;
	struct vt_flow *buf = malloc(CHUNK * sizeof(*buf));
	json_t *top = NULL, *pats = NULL;
	int rc = VT_EXIT_USAGE;

	if (!buf)
		return vt_err_set(e, "out of memory"), VT_EXIT_USAGE;
	if (parse_port(f, o->port, &port, e) || vt_routes_build(&r, f, t, ord, e)) {
		free(buf);
		return VT_EXIT_USAGE;
	}
	x.r = &r;
	x.chan[0] = port;
	x.chan[1] = f->ports[port].peer;
	if (vt_path_via(&r, x.chan[0], &x.via[0], e) || vt_path_via(&r, x.chan[1], &x.via[1], e))
		goto out;
	if (o->json) {
		top = json_object();
		vt_json_set(top, "fabric", vt_json_text(f->source));
		vt_json_set(top, "tables", vt_json_text(tables));
		vt_json_set(top, "port", vt_json_port(f, x.chan[0]));
		vt_json_set(top, "peer", vt_json_port(f, x.chan[1]));
		pats = json_array();
		vt_json_set(top, "patterns", pats);
	} else {
		char a[2 * VT_PORT_NAME_MAX + 8];
		vt_chan_name(f, port, a, sizeof(a));
		printf("port %s (%u ranks)\n", a, ord->n);
	}
	for (unsigned i = 0; i < o->npatterns; i++) {
		if (vt_pattern_parse(&p, o->patterns[i], ord->n, e))
			goto out;
		json_t *pj = o->json ? json_object() : NULL;
		x.list = o->json && !o->quiet ? json_array() : NULL;
		cross_pattern(o, &x, &p, buf);
		if (pj) {
			vt_json_set(pj, "pattern", vt_json_text(p.name));
			vt_json_set(pj, "stages", json_integer(vt_pattern_nstages(&p)));
			vt_json_set(pj, "xmit", vt_json_u64(x.count[0]));
			vt_json_set(pj, "rcv", vt_json_u64(x.count[1]));
			if (x.list)
				vt_json_set(pj, "flows", x.list);
			json_array_append_new(pats, pj);
		} else {
			printf("%s: %u stages: %" PRIu64
			       " flows leave through the port (xmit), %" PRIu64
			       " enter through it (rcv)\n",
			       p.name, vt_pattern_nstages(&p), x.count[0], x.count[1]);
		}
		vt_pattern_free(&p);
	}
	rc = VT_EXIT_OK;
	if (top) {
		rc = vt_json_dump(top, stdout, e) ? VT_EXIT_USAGE : VT_EXIT_OK;
		top = NULL;
	}
out:
	json_decref(top);
	free(x.via[0]);
	free(x.via[1]);
	vt_routes_free(&r);
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = {.lmc = -1};
	vt_fabric *f = NULL;
	vt_lfts t = {0};
	vt_order ord = {0};
	vt_err e = {0};
	const char *tables = NULL;
	int rc;

	parse_args(argc, argv, &o);
	/* the map renames after routing and ordering: SRC, DST and --port take the new names */
	if (load(&o, &f, &t, &ord, &tables, &e) || vt_namemap_apply(f, o.name_map, NULL, &e))
		rc = VT_EXIT_USAGE;
	else
		rc = o.port ? crossing(&o, f, &t, &ord, tables, &e)
			    : trace(&o, f, &t, &ord, tables, &e);
	if (rc == VT_EXIT_USAGE)
		fprintf(stderr, PROG ": %s\n", e.msg);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write the output: %s\n", strerror(errno));
		rc = VT_EXIT_USAGE;
	}
	vt_order_free(&ord);
	vt_lfts_free(&t);
	vt_fabric_free(f);
	return rc;
}
