/* SPDX-License-Identifier: MIT */
/*
 * Test driver for plugin_sa.sh: joins the local port (through libumad2sim,
 * the ibsim node SIM_HOST names) to a multicast group as a full member, with
 * an MCMemberRecord Set to the SM's SA, as an IPoIB driver does. The group
 * must exist (OpenSM creates the IPoIB broadcast group of the default
 * partition itself), so MGID, PortGID and JoinState are all the record gives.
 * Prints "PORTGID lid LID mlid 0xMLID" on success.
 * Usage: mcast_join [MGID]   (default: the IPoIB broadcast group of P_Key 0xffff)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

/* MCMemberRecord component mask bits (IBA 1.3, table 218) */
#define COMP_MGID	(1ull << 0)
#define COMP_PORT_GID	(1ull << 1)
#define COMP_JOIN_STATE (1ull << 16)

#define TIMEOUT_MS 5000

int main(int argc, char **argv)
{
	const char *mgid_text = argc > 1 ? argv[1] : "ff12:401b:ffff::ffff:ffff";
	int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS};
	ib_portid_t self = {0}, sm = {0};
	ib_sa_call_t sa = {0};
	struct ibmad_port *port;
	uint8_t buf[IB_SA_DATA_SIZE] = {0};
	ibmad_gid_t mgid, gid;
	char gid_text[INET6_ADDRSTRLEN];
	int portnum;

	if (argc > 2 || inet_pton(AF_INET6, mgid_text, mgid) != 1) {
		fprintf(stderr, "usage: mcast_join [MGID]\n");
		return 2;
	}
	port = mad_rpc_open_port(NULL, 0, classes, 3);
	if (!port) {
		fprintf(stderr, "mcast_join: cannot open the local port: %s\n", strerror(errno));
		return 1;
	}
	if (ib_resolve_self_via(&self, &portnum, &gid, port) < 0 ||
	    ib_resolve_smlid_via(&sm, TIMEOUT_MS, port) < 0) {
		fprintf(stderr, "mcast_join: cannot find the local port or the SM\n");
		mad_rpc_close_port(port);
		return 1;
	}
	mad_set_array(buf, 0, IB_SA_MCM_MGID_F, mgid);
	mad_set_array(buf, 0, IB_SA_MCM_PORTGID_F, gid);
	mad_set_field(buf, 0, IB_SA_MCM_JOIN_STATE_F, 1); /* full member */
	sa.attrid = IB_SA_ATTR_MCRECORD;
	sa.method = IB_MAD_METHOD_SET;
	sa.mask = COMP_MGID | COMP_PORT_GID | COMP_JOIN_STATE;
	/* the reply (the group's record) lands in buf; NULL: no reply or an error status */
	if (!sa_rpc_call(port, buf, &sm, &sa, TIMEOUT_MS)) {
		fprintf(stderr, "mcast_join: the SA at LID %d refused or did not answer the join\n",
			sm.lid);
		mad_rpc_close_port(port);
		return 1;
	}
	inet_ntop(AF_INET6, gid, gid_text, sizeof(gid_text));
	printf("%s lid %d mlid 0x%04x\n", gid_text, self.lid,
	       mad_get_field(buf, 0, IB_SA_MCM_MLID_F));
	mad_rpc_close_port(port);
	return 0;
}
