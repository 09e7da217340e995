/* SPDX-License-Identifier: MIT */
/*
 * libvartree.so: OpenSM 3.3.23 loads it as an event plugin
 * (event_plugin_name vartree); its create callback registers the routing
 * engine "vartree" (routing_engine vartree,...). Each sweep translates the
 * current subnet into a vt_fabric, calls vt_route(), and copies the tables
 * into every switch's new_lft. On refusal it returns failure, so OpenSM tries
 * the next engine of routing_engine and finally minhop.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <complib/cl_qmap.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_log.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_switch.h>
#include <opensm/osm_version.h>

#include "base/vt_io.h"
#include "model/vt_order.h"
#include "repair/vt_route_guard_kept.h"
#include "vtp.h"

#if OSM_EVENT_PLUGIN_INTERFACE_VER != 2
#error OpenSM event plugin interface version mismatch
#endif

#define ENGINE "vartree"

typedef cl_status_t (*register_fn)(osm_opensm_t *, const external_routing_engine_module_t *,
				   void *);

static void sweep_clear(struct vtp *p)
{
	vt_lfts_free(&p->lfts);
	memset(&p->lfts, 0, sizeof(p->lfts));
	vt_fabric_free(p->fab);
	p->fab = NULL;
	vt_vl_split_free(&p->vl);
	p->vl_on = 0;
	p->routed = 0;
	vt_order_free(&p->order);
	memset(&p->order, 0, sizeof(p->order));
}

/* The tables on the switches are no longer vartree's last (or the plugin goes away). */
static void prev_clear(struct vtp *p)
{
	vtp_keep_clear(p); /* it reads the tables freed below */
	vt_lfts_free(&p->prev_lfts);
	vt_fabric_free(p->prev_fab);
	p->prev_fab = NULL;
	vt_vl_split_free(&p->prev_vl);
	p->prev_vl_on = 0;
}

/* Core lines go to OpenSM's log under the core function's name (func), as OSM_LOG names ours. */
static void core_log(void *ctx, enum vt_log_level level, const char *func, const char *msg)
{
	static const osm_log_level_t map[] = {OSM_LOG_ERROR, OSM_LOG_INFO, OSM_LOG_VERBOSE,
					      OSM_LOG_DEBUG};
	struct vtp *p = ctx;
	osm_log_level_t l = map[level <= VT_LOG_DEBUG ? level : VT_LOG_DEBUG];

	if (osm_log_is_active(&p->osm->log, l))
		osm_log(&p->osm->log, l, "%s: vartree: %s\n", func, msg);
}

/* Each bad vartree.* token of event_plugin_options gets its own line. */
static void bad_option(void *ctx, const char *tok, int len, const char *why)
{
	struct vtp *p = ctx;

	OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
		"ERR VT02: event_plugin_options: cannot use '%.*s': %s (see vartree-plugin(8)); "
		"ignored\n",
		len, tok, why);
}

static enum vt_log_level osm_level(osm_log_t *log)
{
	if (osm_log_is_active(log, OSM_LOG_DEBUG))
		return VT_LOG_DEBUG;
	if (osm_log_is_active(log, OSM_LOG_VERBOSE))
		return VT_LOG_VERBOSE;
	if (osm_log_is_active(log, OSM_LOG_INFO))
		return VT_LOG_INFO;
	return VT_LOG_ERROR;
}

/* Empty name: nothing given. A file OpenSM's options name must be readable. */
static int read_guids(struct vtp *p, const char *what, const char *path, uint64_t **g,
		      unsigned **lines, uint32_t *n)
{
	vt_err e;

	*g = NULL;
	*n = 0;
	if (!path || !*path)
		return 0;
	if (vt_guid_file_read(path, g, lines, n, &e)) {
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			"ERR VT03: cannot use %s '%s': %s; falling back to the next routing "
			"engine\n",
			what, path, e.msg);
		return -1;
	}
	return 0;
}

static void write_order(struct vtp *p, const struct vtp_opts *o, const vt_order *order)
{
	const char *dir = p->osm->subn.opt.dump_files_dir;
	char path[4096];
	vt_out out;
	vt_err e;

	if (o->order_file[0] == '/' || !dir || !*dir)
		snprintf(path, sizeof(path), "%s", o->order_file);
	else
		snprintf(path, sizeof(path), "%s/%s", dir, o->order_file);
	if (vt_out_open(&out, path, &e) || vt_order_write(order, p->fab, out.fp, &e) ||
	    vt_out_commit(&out, &e)) {
		vt_out_abort(&out);
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			"ERR VT05: cannot write the compute-node order to '%s': %s\n", path, e.msg);
	}
}

/*
 * OpenSM's min-hop matrices, which its multicast routing and SA path records
 * read. They depend on the subnet alone, not on vartree's routes, so a second
 * thread fills them while the first routes: at 3888 hosts each half took about
 * 20 ms of a step whose other half is OpenSM's own LFT send. A routing thread
 * done first writes the rows the second has not reached instead of waiting:
 * on a loaded machine (pruned 36,12) the second thread took up to 193 ms for
 * about 10 ms of CPU, and a heal's routing waited 186 ms of them.
 */
struct hops_job {
	osm_subn_t *subn;
	pthread_t thread;
	enum { HOPS_OPENSM, HOPS_THREAD, HOPS_HERE } how;
	pthread_mutex_t mu; /* guards stage; cv: it changed */
	pthread_cond_t cv;
	enum { HOPS_PREPARING, HOPS_READY, HOPS_OVER } stage;
	struct vtp_hops_work *w; /* set before stage is READY */
	int ret;
	double ms, cpu;	 /* the min-hop thread's wall and CPU */
	uint32_t helped; /* switches whose rows the routing thread wrote */
	struct vtp_hops_stats st;
	vt_err e;
};

static void hops_stage(struct hops_job *j, int stage)
{
	pthread_mutex_lock(&j->mu);
	j->stage = stage;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

/* Prepares and fills the min-hop rows, timed; in the thread, says when the rows are ready. */
static void hops_work(struct hops_job *j, int threaded)
{
	double t0 = vtp_now_ms(), c0 = vtp_cpu_ms(), f0;

	j->ret = vtp_hops_prepare(j->subn, &j->w, &j->st, &j->e);
	if (threaded)
		hops_stage(j, j->ret ? HOPS_OVER : HOPS_READY);
	if (!j->ret) {
		f0 = vtp_now_ms();
		vtp_hops_fill_share(j->w);
		j->st.fill_ms = vtp_now_ms() - f0;
	}
	j->ms = vtp_now_ms() - t0;
	j->cpu = vtp_cpu_ms() - c0;
}

static void *hops_run(void *arg)
{
	hops_work(arg, 1);
	return NULL;
}

static void hops_start(struct vtp *p, const struct vtp_opts *o, struct hops_job *j)
{
	memset(j, 0, sizeof(*j));
	j->subn = &p->osm->subn;
	j->how = HOPS_OPENSM;
	if (o->hops == VTP_HOPS_OPENSM)
		return;
	if (j->subn->opt.hop_weights_file && *j->subn->opt.hop_weights_file) {
		OSM_LOG(&p->osm->log, OSM_LOG_VERBOSE,
			"vartree: hop_weights_file is set, so OpenSM builds the min-hop tables\n");
		return;
	}
	/* without a thread (or its lock) the same work runs after the routing */
	j->how = HOPS_HERE;
	if (pthread_mutex_init(&j->mu, NULL))
		return;
	if (pthread_cond_init(&j->cv, NULL)) {
		pthread_mutex_destroy(&j->mu);
		return;
	}
	if (pthread_create(&j->thread, NULL, hops_run, j)) {
		pthread_cond_destroy(&j->cv);
		pthread_mutex_destroy(&j->mu);
		return;
	}
	j->how = HOPS_THREAD;
}

/* The min-hop thread's rows, shared once it has them ready, and its end. */
static void hops_join(struct hops_job *j)
{
	int stage;

	pthread_mutex_lock(&j->mu);
	while (j->stage == HOPS_PREPARING)
		pthread_cond_wait(&j->cv, &j->mu);
	stage = j->stage;
	pthread_mutex_unlock(&j->mu);
	if (stage == HOPS_READY)
		j->helped = vtp_hops_fill_share(j->w);
	pthread_join(j->thread, NULL);
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
}

/* 0: the tables are in place, OpenSM skips its own; 1: OpenSM is to build them. */
static int hops_finish(struct vtp *p, struct hops_job *j)
{
	double t0 = vtp_now_ms();

	if (j->how == HOPS_OPENSM)
		return 1;
	if (j->how == HOPS_THREAD)
		hops_join(j);
	else
		hops_work(j, 0);
	vtp_hops_work_free(j->w);
	j->w = NULL;
	if (j->ret) {
		char msg[VT_ERR_MAX + 128];

		vtp_hops_clear(j->subn);
		vtp_err_text(msg, sizeof(msg), "VT08", "cannot fill the min-hop tables",
			     "filling the min-hop tables", &j->e);
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR, "ERR %s; OpenSM builds them\n", msg);
		return 1;
	}
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		"vartree: min-hop tables filled in %.3f ms (%s; %.3f ms waited for after it)\n",
		j->ms, j->how == HOPS_THREAD ? "beside the routing" : "after the routing",
		vtp_now_ms() - t0);
	OSM_LOG(&p->osm->log, OSM_LOG_VERBOSE,
		"vartree: min-hop tables: %" PRIu64 " rows (%" PRIu64 " allocated now): distances "
		"%.3f ms, row allocation %.3f ms, rows written %.3f ms; CPU %.3f ms; rows of %u "
		"switches written by the routing thread\n",
		j->st.rows, j->st.new_rows, j->st.dist_ms, j->st.alloc_ms, j->st.fill_ms, j->cpu,
		j->helped);
	return 0;
}

/* Where a sweep's routing time went, for the verbose log line (wall ms). */
struct vtp_times {
	double fresh, remap, repair, forced, split;
};

/*
 * vt_route_repair of prev into p->lfts; with a debug log also the forced
 * minimum, which needs the fresh tables (kept in fresh, nsw 0 when not) and
 * costs about a fresh route that OpenSM would wait for with its lock held:
 * a yardstick for the log, not part of the repair (at verbose, which the
 * harness logs, it was 74 ms of a 413 ms step at 3888 hosts). -1 with e.
 */
static int repair_tables(struct vtp *p, const struct vtp_opts *o, const vt_order *order,
			 const struct vt_route_proof *proof, const vt_lfts *prev, vt_lfts *fresh,
			 struct vt_guard_kept *kept, struct vt_repair_stats *st,
			 struct vtp_times *tm, vt_err *e)
{
	size_t n = (size_t)p->lfts.nsw * p->lfts.nlid;
	double t0 = vtp_now_ms();

	if (osm_log_is_active(&p->osm->log, OSM_LOG_DEBUG) && (fresh->port = malloc(n + 1))) {
		memcpy(fresh->port, p->lfts.port, n);
		fresh->nsw = p->lfts.nsw;
		fresh->nlid = p->lfts.nlid;
	}
	if (vt_route_repair_kept(p->fab, prev, &p->lfts, order, proof, o->repair_policy, kept, st,
				 e))
		return -1;
	tm->repair = vtp_now_ms() - t0;
	if (!fresh->nsw)
		return 0;
	t0 = vtp_now_ms();
	if (vt_repair_forced_figures(p->fab, prev, fresh, st, e)) {
		free(fresh->port);
		*fresh = (vt_lfts){0};
	}
	tm->forced = vtp_now_ms() - t0;
	return 0;
}

/*
 * The last sweep's tables as this sweep's fabric indexes them (*own: prev
 * allocated here, for the caller to free). Where both fabrics list the same
 * switches in the same order with as many LIDs (a link failed or came back)
 * vt_lfts_remap would copy them whole: they are used as they are, without
 * a second table of every switch and LID to allocate and fill.
 */
static int prev_tables(const struct vtp *p, vt_lfts *prev, int *own, vt_err *e)
{
	const vt_fabric *a = p->prev_fab, *b = p->fab;
	int same = a->nswitches == b->nswitches && p->prev_lfts.nsw == b->nswitches &&
		   p->prev_lfts.nlid == b->max_lid + 1;

	for (uint32_t s = 0; same && s < b->nswitches; s++)
		same = a->nodes[a->switches[s]].guid == b->nodes[b->switches[s]].guid;
	*own = !same;
	if (!same)
		return vt_lfts_remap(&p->prev_lfts, a, b, prev, e);
	*prev = p->prev_lfts;
	return 0;
}

/*
 * The verbose line of the switches' tables' shift count kept since the last
 * sweep (vtp_keep.c, k; NULL: none was made): moved onto this fabric for the
 * repair's guard, or not needed (no candidate was counted) or refused.
 */
static void keep_log(struct vtp *p, const struct vt_guard_kept *k)
{
	if (!k)
		OSM_LOG(&p->osm->log, OSM_LOG_VERBOSE,
			"vartree: no shift count of the last tables was kept\n");
	else if (k->f == p->fab)
		OSM_LOG(&p->osm->log, OSM_LOG_VERBOSE,
			"vartree: the last tables' shift count (counted after the last sweep in "
			"%.3f ms CPU) moved onto this fabric in %.3f ms CPU for the guard\n",
			k->count_s * 1e3, k->remap_s * 1e3);
	else
		OSM_LOG(&p->osm->log, OSM_LOG_VERBOSE,
			"vartree: the last tables' shift count (counted after the last sweep in "
			"%.3f ms CPU) not used: %s\n",
			k->count_s * 1e3,
			k->count ? "no candidate needed a count"
				 : "the ranks moved (the guard counted without it)");
}

/*
 * vartree.repair: the last sweep's entries kept where they still serve, so a
 * fault changes few LFT blocks; a fabric that gained links or switches gets
 * the fresh tables (after a heal, the original ones), or keeps the last ones
 * where they still serve it no worse (a link back while another fault stays).
 */
static int repair(struct vtp *p, const struct vtp_opts *o, const vt_order *order,
		  const struct vt_route_proof *proof, struct vtp_times *tm)
{
	static const char *const mode[] = {"repaired", "fresh tables (the fabric gained since)",
					   "fresh tables (repair refused)",
					   "switch routes repaired, CA routes fresh",
					   "previous tables kept (the fabric gained since)"};
	struct vt_repair_stats st;
	vt_lfts prev = {0}, fresh = {0};
	struct vt_guard_kept *kept;
	int own = 0;
	char forced[48] = ""; /* ", F forced" where counted */
	double t0 = vtp_now_ms();
	vt_err e;

	if (!o->repair || !p->prev_fab)
		return 0;
	kept = vtp_keep_take(p);
	if (prev_tables(p, &prev, &own, &e) ||
	    (tm->remap = vtp_now_ms() - t0,
	     repair_tables(p, o, order, proof, &prev, &fresh, kept, &st, tm, &e))) {
		char msg[VT_ERR_MAX + 128];

		vt_guard_kept_free(kept);
		if (own)
			vt_lfts_free(&prev);
		free(fresh.port);
		vtp_err_text(msg, sizeof(msg), "VT09", "cannot repair the last tables",
			     "repairing the last tables", &e);
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR, "ERR %s; fresh tables used\n", msg);
		return 0;
	}
	keep_log(p, kept);
	vt_guard_kept_free(kept);
	if (own)
		vt_lfts_free(&prev);
	free(fresh.port);
	if (fresh.nsw)
		snprintf(forced, sizeof(forced), ", %" PRIu64 " forced", st.forced);
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		"vartree: %s: %" PRIu64 " entries in %" PRIu64 " blocks differ from the last "
		"sweep's (fresh tables: %" PRIu64 " in %" PRIu64 "; minimum %" PRIu64
		" link lost%s)%s%s\n",
		mode[st.mode], st.changed, st.blocks, st.fresh_changed, st.fresh_blocks, st.minimum,
		forced, st.mode == VT_REPAIR_DONE ? "" : ": ", st.why);
	if (st.longer)
		OSM_LOG(&p->osm->log, OSM_LOG_INFO,
			"vartree: %" PRIu64 " entries route to a CA in more hops than fresh tables "
			"(vartree.repair=minimal keeps none)\n",
			st.longer);
	/* tables other than the fresh ones (repaired, partly, kept) need a split of their own */
	return st.mode != VT_REPAIR_HEALED && st.mode != VT_REPAIR_REFUSED;
}

/* The subnet modelled, routed and repaired into p->fab and p->lfts; -1 if refused. */
static int route_subnet(struct vtp *p, const struct vtp_opts *o, const struct vt_route_opts *ro,
			vt_order *order)
{
	osm_opensm_t *osm = p->osm;
	char msg[VT_ERR_MAX + 128];
	double t0 = vtp_now_ms(), c0 = vtp_cpu_ms(), t1, t2, c1;
	struct vtp_times tm = {0};
	vt_err e;

	if (vtp_fabric_from_subnet(&osm->subn, osm->subn.opt.lmc, &p->fab, &e)) {
		vtp_err_text(msg, sizeof(msg), "VT04", "cannot model the subnet",
			     "modelling the subnet", &e);
		OSM_LOG(&osm->log, OSM_LOG_ERROR,
			"ERR %s; falling back to the next routing engine\n", msg);
		return -1;
	}
	/* the VLs the split may use: what OpenSM sets the links to */
	p->fab->vls = vtp_vl_links(&osm->subn, NULL, 0);
	t1 = vtp_now_ms();
	c1 = vtp_cpu_ms();
	if (vt_route_vl(p->fab, ro, &p->lfts, order, &p->vl, &e)) {
		vtp_err_text(msg, sizeof(msg), "VT01", "fabric refused", "routing", &e);
		OSM_LOG(&osm->log, OSM_LOG_ERROR,
			"ERR %s; falling back to the next routing engine\n", msg);
		memset(&p->lfts, 0, sizeof(p->lfts));
		return -1;
	}
	tm.fresh = vtp_now_ms() - t1;
	if (p->vl.placed == 2) { /* CA-to-CA routes on VL 1 too: without it, refused */
		vtp_vl_room(p, msg, sizeof(msg));
		if (msg[0]) {
			OSM_LOG(&osm->log, OSM_LOG_ERROR,
				"ERR VT01: fabric refused: its CA-to-CA routes turn down-up and "
				"close a credit loop on one VL; %" PRIu64
				" routes from %u switches "
				"need VL 1, and %s; falling back to the next routing engine\n",
				p->vl.nvl1, p->vl.nsrc, msg);
			return -1;
		}
	}
	/* tables other than the fresh ones get a split of their own */
	if (repair(p, o, order, ro->proof, &tm) && p->vl.nvl1) {
		double t3 = vtp_now_ms();

		vt_vl_split_free(&p->vl);
		if (vt_route_vl_split(p->fab, ro, &p->lfts, &p->vl, &e)) {
			vtp_err_text(msg, sizeof(msg), "VT12", "cannot split the repaired tables",
				     "splitting the repaired tables", &e);
			OSM_LOG(&osm->log, OSM_LOG_ERROR, "ERR %s; no VL 1\n", msg);
		}
		tm.split = vtp_now_ms() - t3;
	}
	vtp_vl_check(p);
	t2 = vtp_now_ms();
	p->routed = 1;
	OSM_LOG(&osm->log, OSM_LOG_INFO,
		"vartree: routed %u switches, %u CAs, %u ranks (lmc %u) in %.3f ms "
		"(subnet model %.3f ms, routing %.3f ms)\n",
		p->fab->nswitches, vt_fabric_count_cas(p->fab), order->n,
		(unsigned)osm->subn.opt.lmc, t2 - t0, t1 - t0, t2 - t1);
	/* the routing's parts, and its CPU (this thread's: the min-hop thread runs beside) */
	OSM_LOG(&osm->log, OSM_LOG_VERBOSE,
		"vartree: routing %.3f ms (CPU %.3f ms): fresh route %.3f ms, last tables mapped "
		"%.3f ms, repair %.3f ms, forced minimum %.3f ms, VL split again %.3f ms; subnet "
		"model CPU %.3f ms\n",
		t2 - t1, vtp_cpu_ms() - c1, tm.fresh, tm.remap, tm.repair, tm.forced, tm.split,
		c1 - c0);
	return 0;
}

/*
 * build_lid_matrices: the whole of vartree's work happens here, so a refusal
 * falls back cleanly. The min-hop tables are filled even then: they are
 * OpenSM's own values, whichever engine routes.
 */
static int vtp_route(void *ctx)
{
	struct vtp *p = ctx;
	const osm_subn_opt_t *so = &p->osm->subn.opt;
	struct vt_route_opts ro = {0};
	struct vt_route_proof proof = {0}; /* what the routing proved, for the repair */
	struct vtp_opts o;
	struct hops_job hops;
	uint64_t *roots = NULL, *cns = NULL, *ios = NULL;
	unsigned *roots_at = NULL;
	vt_order order = {0};
	int ret = -1;

	sweep_clear(p);
	vtp_opts_parse(&o, so->event_plugin_options, bad_option, p);
	if (read_guids(p, "root_guid_file", so->root_guid_file, &roots, &roots_at, &ro.nroots) ||
	    read_guids(p, "cn_guid_file", so->cn_guid_file, &cns, NULL, &ro.ncns) ||
	    read_guids(p, "io_guid_file", so->io_guid_file, &ios, NULL, &ro.nios))
		goto out;
	ro.root_guids = roots;
	ro.cn_guids = cns;
	ro.io_guids = ios;
	ro.root_file = so->root_guid_file;
	ro.cn_file = so->cn_guid_file;
	ro.io_file = so->io_guid_file;
	ro.root_lines = roots_at;
	ro.proof = &proof;
	ro.log = core_log;
	ro.log_ctx = p;
	ro.log_level = osm_level(&p->osm->log);
	if (o.level_set && o.level < ro.log_level)
		ro.log_level = o.level;

	if (o.shortest_detours) {
		char why[300];

		vtp_vl_room(p, why, sizeof(why));
		ro.shortest_detours = !why[0];
		if (why[0])
			OSM_LOG(&p->osm->log, OSM_LOG_INFO,
				"vartree: vartree.detours=shortest needs a second VL, and %s: the "
				"detours turn at the turn leaf on one VL\n",
				why);
	}
	hops_start(p, &o, &hops);
	ret = route_subnet(p, &o, &ro, &order);
	if (!ret && o.order_dump)
		write_order(p, &o, &order);
	/* the ranks the tables are counted over once on the switches (vtp_fill) */
	p->keep_wanted = o.repair && o.repair_policy != VT_REPAIR_FEWEST;
	if (!ret) {
		p->order = order;
		memset(&order, 0, sizeof(order));
	}
	if (hops_finish(p, &hops) && !ret)
		ret = 1;
out:
	if (ret < 0) {
		sweep_clear(p);
		prev_clear(p); /* another engine fills the switches */
	}
	vt_order_free(&order);
	vt_route_proof_free(&proof);
	free(roots);
	free(roots_at);
	free(cns);
	free(ios);
	return ret;
}

/*
 * One switch's LFT into its new_lft, a row copy (both are indexed by LID);
 * LIDs past the routed ones keep OpenSM's OSM_NO_PATH.
 */
static void copy_lft(osm_switch_t *sw, const vt_lfts *t, uint32_t swi)
{
	size_t n = (size_t)sw->max_lid_ho + 1;

	if (n > sw->lft_size)
		n = sw->lft_size;
	if (n > t->nlid) {
		memset(sw->new_lft + t->nlid, OSM_NO_PATH, n - t->nlid);
		n = t->nlid;
	}
	memcpy(sw->new_lft, vt_lft_row(t, swi), n);
}

/* ucast_build_fwd_tables: copy the tables into OpenSM's switches; the sweep's state ends here. */
static int vtp_fill(void *ctx)
{
	struct vtp *p = ctx;
	cl_qmap_t *tbl = &p->osm->subn.sw_guid_tbl;
	double t0 = vtp_now_ms();
	int ret = 0;

	if (!p->routed) {
		prev_clear(p);
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			"ERR VT06: no vartree tables for this sweep; falling back to the next "
			"routing engine\n");
		return -1;
	}
	for (cl_map_item_t *it = cl_qmap_head(tbl); it != cl_qmap_end(tbl); it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;
		uint64_t guid = cl_ntoh64(osm_node_get_node_guid(sw->p_node));
		uint32_t n = vt_fabric_node_by_guid(p->fab, guid);

		if (n == VT_NONE || p->fab->nodes[n].sw == VT_NONE || !sw->new_lft) {
			OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
				"ERR VT06: switch 0x%016" PRIx64 " is not in the routed model; "
				"falling back to the next routing engine\n",
				guid);
			ret = -1;
			break;
		}
		copy_lft(sw, &p->lfts, p->fab->nodes[n].sw);
	}
	if (!ret)
		OSM_LOG(&p->osm->log, OSM_LOG_VERBOSE,
			"vartree: tables of %u switches copied in %.3f ms; OpenSM sends their "
			"blocks next\n",
			(unsigned)cl_qmap_count(tbl), vtp_now_ms() - t0);
	prev_clear(p);
	if (!ret) { /* these tables are the next sweep's previous ones */
		p->prev_fab = p->fab;
		p->prev_lfts = p->lfts;
		p->prev_vl = p->vl;
		p->prev_vl_on = p->vl_on;
		p->fab = NULL;
		memset(&p->lfts, 0, sizeof(p->lfts));
		memset(&p->vl, 0, sizeof(p->vl));
		vtp_keep_start(p); /* off the path the administrator waits for */
	}
	sweep_clear(p);
	return ret;
}

static void vtp_engine_destroy(void *ctx)
{
	sweep_clear(ctx);
	prev_clear(ctx);
}

static int vtp_setup(struct osm_routing_engine *re, osm_opensm_t *osm)
{
	re->build_lid_matrices = vtp_route;
	re->ucast_build_fwd_tables = vtp_fill;
	re->destroy = vtp_engine_destroy;
	re->path_sl = vtp_path_sl;
	re->update_sl2vl = vtp_update_sl2vl;
	return 0;
}

static void *vtp_create(osm_opensm_t *osm)
{
	external_routing_engine_module_t mod = {ENGINE, vtp_setup, NULL};
	struct vtp *p = calloc(1, sizeof(*p));
	register_fn reg;

	if (!p)
		return NULL;
	p->osm = osm;
	mod.context = p;
	/* exported by the opensm executable, not by libopensm, so it is looked up at load */
	*(void **)&reg = dlsym(RTLD_DEFAULT, "osm_register_external_routing_engine");
	if (!reg || reg(osm, &mod, p) != CL_SUCCESS) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR,
			"ERR VT07: cannot register routing engine '%s'%s; vartree is not "
			"available\n",
			ENGINE, reg ? "" : " (this OpenSM has no external routing engines)");
		free(p);
		return NULL;
	}
	OSM_LOG(&osm->log, OSM_LOG_INFO, "vartree: routing engine '%s' registered\n", ENGINE);
	return p;
}

static void vtp_delete(void *data)
{
	struct vtp *p = data;

	if (!p)
		return;
	sweep_clear(p);
	prev_clear(p);
	free(p);
}

/* The symbol OpenSM looks up; osm_version must equal the loading OpenSM's version string. */
osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = vtp_create,
	.delete = vtp_delete,
};
