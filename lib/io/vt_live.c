/* SPDX-License-Identifier: MIT */
#include "io/vt_live.h"

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/vt_load.h"

#define LFT_BLOCK 64 /* entries of one LinearForwardingTable block (IB_SMP_DATA_SIZE) */

static int read_switch(struct ibmad_port *mp, ibnd_node_t *nd, const vt_fabric *f, vt_lfts *t,
		       vt_err *e)
{
	uint32_t node = vt_fabric_node_by_guid(f, nd->guid), top = 0;
	const struct vt_node *n;
	uint8_t buf[LFT_BLOCK];

	if (node == VT_NONE || f->nodes[node].type != VT_SWITCH)
		return vt_err_set(e, "switch 0x%016" PRIx64 " vanished from the model", nd->guid);
	n = &f->nodes[node];
	mad_decode_field(nd->switchinfo, IB_SW_LINEAR_FDB_TOP_F, &top);
	for (unsigned b = 0; b < vt_live_lft_blocks(top); b++) {
		int status = 0;

		if (!smp_query_status_via(buf, &nd->path_portid, IB_ATTR_LINEARFORWTBL, b, 0,
					  &status, mp))
			return vt_err_set(e,
					  "switch '%s' (0x%016" PRIx64
					  "): SubnGet(LinearForwardingTable) "
					  "block %u failed, MAD status 0x%x",
					  n->desc, n->guid, b, status);
		for (unsigned i = 0; i < LFT_BLOCK; i++) {
			uint32_t lid = b * LFT_BLOCK + i;

			/* entries past the top are unset; ones past our LID range name no port */
			if (lid > top || lid >= t->nlid)
				break;
			if (buf[i] <= n->nports)
				vt_lft_set(t, n->sw, lid, buf[i]);
		}
	}
	return 0;
}

int vt_live_capture(const char *ca, int port, vt_fabric **f, vt_lfts *t, vt_err *e)
{
	int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS};
	struct ibnd_config cfg;
	char *caname = ca ? strdup(ca) : NULL, source[96];
	struct ibmad_port *mp;
	ibnd_fabric_t *fab;
	int rc = -1;

	*f = NULL;
	memset(t, 0, sizeof(*t));
	if (ca && !caname)
		return vt_err_nomem(e, "out of memory");
	snprintf(source, sizeof(source), "live:%s/%d", ca ? ca : "(default CA)", port);
	memset(&cfg, 0, sizeof(cfg));
	/* discovery first: umad2sim (ibsim) fails when a second port is open meanwhile */
	fab = ibnd_discover_fabric(caname, port, NULL, &cfg);
	if (!fab) {
		free(caname);
		return vt_err_set(e, "%s: fabric discovery failed", source);
	}
	mp = mad_rpc_open_port(caname, port, classes, 2);
	if (!mp) {
		vt_err_set(e, "%s: cannot open the port for SMPs", source);
		goto out;
	}
	if (vt_load_ibnd(fab, source, f, e) || vt_lfts_init(t, *f, e))
		goto out;
	for (ibnd_node_t *nd = fab->switches; nd; nd = nd->type_next)
		if (read_switch(mp, nd, *f, t, e))
			goto out;
	rc = 0;
out:
	if (rc) {
		vt_lfts_free(t);
		vt_fabric_free(*f);
		*f = NULL;
	}
	ibnd_destroy_fabric(fab);
	if (mp)
		mad_rpc_close_port(mp);
	free(caname);
	return rc;
}
