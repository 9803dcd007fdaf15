/*
 * causesum.h: the analysis's sums per cause (its ledger, analysis.h)
 * added up the ways the summary and the cause pictures show them: per
 * file (top-files), and per device, kernel stack and credited process
 * (--summary=stacks, io-flame).
 */
#ifndef IOWATCHER_CAUSESUM_H
#define IOWATCHER_CAUSESUM_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "cause.h"

struct file_sums {
	char *label;		/* the path, or "[metadata]", ... */
	uint64_t bytes[N_OPS];
	uint64_t bios;
	double q2c_sum_ns;
	uint32_t q2c_hist[LAT_BIN_BUCKETS];
};

struct stack_sums {
	uint32_t device;
	uint32_t pid;		/* credited: a writeback's dirtier */
	int32_t kstack;		/* -1: none */
	uint64_t bytes[N_OPS];
	uint64_t bios[N_OPS];
	double q2c_sum_ns[N_OPS];
};

/* Per file, most bytes first; -1 out of memory. Free with causesum_free_files. */
int causesum_files(const struct analysis *a, const struct cause_table *t,
		   struct file_sums **out, size_t *n);
void causesum_free_files(struct file_sums *f, size_t n);
/* A file's mean and p99 Q2C in ns (0 without bios). */
double file_q2c_mean_ns(const struct file_sums *f);
double file_q2c_p99_ns(const struct file_sums *f);

/* Per (device, stack, process), most bytes first; -1 out of memory. */
int causesum_stacks(const struct analysis *a, const struct cause_table *t,
		    struct stack_sums **out, size_t *n);

#endif
