/* SPDX-License-Identifier: MIT */
/*
 * vartree-sweep: every run of a sweep spec (fabrics x faults x routings x
 * patterns x sizes x seeds), spread over MPI ranks when started by mpirun or
 * srun and over threads (-j) within each, gathered into one CSV/JSON.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep.h"
#include "cli/vt_cli.h"
#include "base/vt_io.h"

#define PROG "vartree-sweep"

static const char usage[] =
	"usage: vartree-sweep [options] SPEC\n"
	"Runs every simulation a sweep spec names and writes one table of results.\n"
	"Under mpirun or srun the runs are spread over the ranks; without, over -j threads.\n"
	"  -o, --output FILE    CSV of every run (default: stdout)\n"
	"  --json FILE          runs, mean and 95 % interval over seeds, phi per network\n"
	"  --plot DIR           mean total time per size, one chart per pattern\n"
	"  --plot-format png|svg|pdf  format of --plot's charts (default png)\n"
	"  -j, --jobs N         threads per process (default 1)\n"
	"  --no-mpi             do not join an MPI job even when started by mpirun\n"
	"  -q, --quiet          no summary line on stderr\n"
	"  -h, --help\n"
	"  -V, --version\n";

struct opts {
	const char *spec, *csv, *json, *plot, *plot_format;
	unsigned jobs;
	int no_mpi, quiet;
};

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{"output", 1, 0, 'o'},
		{"json", 1, 0, 'J'},
		{"plot", 1, 0, 'p'},
		{"plot-format", 1, 0, 'f'},
		{"jobs", 1, 0, 'j'},
		{"no-mpi", 0, 0, 'n'},
		{"quiet", 0, 0, 'q'},
		{"help", 0, 0, 'h'},
		{"version", 0, 0, VT_OPT_VERSION},
		{0, 0, 0, 0},
	};
	static const char *const formats[] = {"png", "svg", "pdf", NULL};
	struct vt_cli cli;
	int c;

	memset(o, 0, sizeof(*o));
	o->jobs = 1;
	o->plot_format = "png";
	vt_cli_init(&cli, PROG, usage, "o:j:qh", lo, argc, argv);
	while ((c = vt_cli_next(&cli)) != -1) {
		if (c == 'o')
			o->csv = optarg;
		else if (c == 'J')
			o->json = optarg;
		else if (c == 'p')
			o->plot = optarg;
		else if (c == 'f')
			o->plot_format =
				formats[vt_cli_choice(&cli, "--plot-format", optarg, formats)];
		else if (c == 'j')
			o->jobs = (unsigned)vt_cli_uint(&cli, "--jobs", optarg, 1, 1024);
		else if (c == 'n')
			o->no_mpi = 1;
		else if (c == 'q')
			o->quiet = 1;
	}
	if (optind + 1 != argc)
		vt_cli_usage(&cli, optind < argc ? "one SPEC only" : "no SPEC given");
	o->spec = argv[optind];
}

/* Started by mpirun (Open MPI), srun or another PMI launcher. */
static int launched_by_mpi(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
					   "PMI_SIZE", NULL};

	for (unsigned k = 0; vars[k]; k++)
		if (getenv(vars[k]))
			return 1;
	return 0;
}

struct worker {
	const struct sweep_spec *s;
	double *res;
	uint64_t from, to;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct sweep_cache *c = sweep_cache_new();

	if (!c)
		return (void *)1;
	for (uint64_t i = w->from; i < w->to; i++)
		sweep_run(w->s, c, i, w->res + i * SF_N);
	sweep_cache_free(c);
	return NULL;
}

/* Runs [from, to) over jobs threads, each a contiguous part (consecutive runs share a fabric). */
static int run_block(const struct sweep_spec *s, double *res, uint64_t from, uint64_t to,
		     unsigned jobs)
{
	pthread_t th[1024];
	struct worker w[1024];
	int rc = 0;

	for (unsigned t = 0; t < jobs; t++) {
		w[t] = (struct worker){s, res, from + (to - from) * t / jobs,
				       from + (to - from) * (t + 1) / jobs};
		if (pthread_create(&th[t], NULL, work, &w[t]))
			return -1;
	}
	for (unsigned t = 0; t < jobs; t++) {
		void *r;

		pthread_join(th[t], &r);
		rc |= r != NULL;
	}
	return rc ? -1 : 0;
}

/* Sums every rank's table into rank 0's: each run is filled by one rank, zeros elsewhere. */
static void gather(double *res, uint64_t n, int rank)
{
	const uint64_t chunk = 1u << 20;

	for (uint64_t off = 0; off < n; off += chunk) {
		int cnt = (int)(n - off < chunk ? n - off : chunk);

		if (rank == 0)
			MPI_Reduce(MPI_IN_PLACE, res + off, cnt, MPI_DOUBLE, MPI_SUM, 0,
				   MPI_COMM_WORLD);
		else
			MPI_Reduce(res + off, NULL, cnt, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	}
}

/* Every run present exactly once; 1 if one failed or deadlocked, -1 if one is missing. */
static int check(const struct sweep_spec *s, const double *res, unsigned *bad)
{
	int rc = 0;

	*bad = 0;
	for (uint64_t i = 0; i < sweep_nruns(s); i++) {
		const double *r = res + i * SF_N;

		if (r[SF_DONE] != 1) {
			fprintf(stderr, PROG ": run %llu done %g times, not once\n",
				(unsigned long long)i, r[SF_DONE]);
			return -1;
		}
		if (r[SF_STATUS] != 0) {
			(*bad)++;
			rc = 1;
		}
	}
	return rc;
}

static int write_all(const struct opts *o, const struct sweep_spec *s, const double *res)
{
	vt_err e;

	if (sweep_write_csv(s, res, o->csv, &e) ||
	    (o->json && sweep_write_json(s, res, o->json, &e)) ||
	    (o->plot && sweep_plot(s, res, o->plot, o->plot_format, &e))) {
		fprintf(stderr, PROG ": %s\n", e.msg);
		return -1;
	}
	return 0;
}

static int finish(const struct opts *o, const struct sweep_spec *s, double *res, int nranks)
{
	unsigned bad;
	int rc = check(s, res, &bad);

	if (rc < 0)
		return VT_EXIT_USAGE;
	if (write_all(o, s, res))
		return VT_EXIT_USAGE;
	if (!o->quiet)
		fprintf(stderr,
			PROG ": %llu runs on %d rank%s x %u thread%s, %u failed or deadlocked\n",
			(unsigned long long)sweep_nruns(s), nranks, nranks > 1 ? "s" : "", o->jobs,
			o->jobs > 1 ? "s" : "", bad);
	return rc ? VT_EXIT_CHECK : VT_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct sweep_spec s;
	int mpi = 0, rank = 0, nranks = 1, rc;
	vt_err e;

	parse(argc, argv, &o);
	if (!o.no_mpi && launched_by_mpi()) {
		MPI_Init(&argc, &argv);
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		MPI_Comm_size(MPI_COMM_WORLD, &nranks);
		mpi = 1;
	}
	if (sweep_spec_read(&s, o.spec, &e)) {
		if (rank == 0)
			fprintf(stderr, PROG ": %s\n", e.msg);
		sweep_spec_free(&s);
		if (mpi)
			MPI_Finalize();
		return VT_EXIT_USAGE;
	}
	uint64_t n = sweep_nruns(&s);
	double *res = calloc(n * SF_N, sizeof(double));

	if (!res || run_block(&s, res, n * (uint64_t)rank / (uint64_t)nranks,
			      n * (uint64_t)(rank + 1) / (uint64_t)nranks, o.jobs)) {
		fprintf(stderr, PROG ": out of memory or threads\n");
		if (mpi)
			MPI_Abort(MPI_COMM_WORLD, VT_EXIT_USAGE);
		return VT_EXIT_USAGE;
	}
	if (mpi)
		gather(res, n * SF_N, rank);
	rc = rank == 0 ? finish(&o, &s, res, nranks) : VT_EXIT_OK;
	free(res);
	sweep_spec_free(&s);
	if (mpi)
		MPI_Finalize();
	return rc;
}
