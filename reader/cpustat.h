/*
 * cpustat.h: CPU use from the text of `mpstat -P ALL 1` (sysstat), as the
 * recorder saves it beside a trace in NAME.mpstat: one sample a second
 * for all CPUs together ("all") and for each CPU.
 */
#ifndef IOWATCHER_CPUSTAT_H
#define IOWATCHER_CPUSTAT_H

#include <stddef.h>
#include <time.h>

#include "base/error.h"

/* mpstat's columns, %usr to %idle. */
enum cpustat_field {
	CPUSTAT_USR,
	CPUSTAT_NICE,
	CPUSTAT_SYS,
	CPUSTAT_IOWAIT,
	CPUSTAT_IRQ,
	CPUSTAT_SOFT,
	CPUSTAT_STEAL,
	CPUSTAT_GUEST,
	CPUSTAT_GNICE,
	CPUSTAT_IDLE,
	CPUSTAT_N_FIELDS
};

struct cpustat_sample {
	/* seconds since the first sample; the interval mpstat averaged
	 * over ends here (it stamps the end of each second) */
	double time_s;
	float pct[CPUSTAT_N_FIELDS];	/* 0 for a column not in the file */
};

struct cpustat_series {
	struct cpustat_sample *samples;
	size_t n, cap;
};

struct cpustat {
	struct cpustat_series all;	/* the "all" rows */
	struct cpustat_series *cpus;	/* [n_cpus]: rows "0", "1", ... */
	size_t n_cpus;
	unsigned fields;		/* bit 1 << field: column present */
	/* local wall-clock time of the first sample, from the banner's
	 * date and the row's time; 0 when the file had no date */
	time_t start_time;
};

/*
 * Reads an mpstat file (24h or AM/PM times, any column set from %usr to
 * %idle, "Average:" rows ignored). A file with the banner but no sample
 * yet gives empty series. Returns 0, or -1 with "FILE:LINE: what".
 */
int cpustat_load(const char *path, struct cpustat *out,
		 struct iow_error *err);
void cpustat_free(struct cpustat *cs);

/* "usr", "nice", "sys", ... for labels and option words. */
const char *cpustat_field_name(enum cpustat_field field);

#endif
