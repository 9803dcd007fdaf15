/*
 * rec_report.c: what a recording says when it ends (record.h): the one
 * line of what was recorded, where, and what was lost, or why nothing
 * is drawn when the workload failed.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "reader/account.h"
#include "record.h"

/*
 * A workload that fails (not stopped by the user) has traced its failure,
 * not the work: nothing is drawn, and what was recorded is kept, to be
 * looked at or drawn all the same.
 */
int record_check_workload(const struct record_result *res, int had_workload,
			  const char *misplaced, const char *path,
			  struct iow_error *err)
{
	int st = res->workload_status;
	char how[96], hint[192] = "";

	if (had_workload && res->stop_signal && !res->workload_started)
		fprintf(stderr, "iowatcher: stopped by %s during the set-up: the workload was not started\n",
			res->stop_signal == SIGINT ? "SIGINT" :
			res->stop_signal == SIGTERM ? "SIGTERM" : "SIGHUP");
	if (!had_workload || res->stop_signal)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st))
		snprintf(how, sizeof(how), "exited with status %d",
			 WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(how, sizeof(how), "was killed by signal %d (%s)",
			 WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		return 0;
	if (misplaced)
		snprintf(hint, sizeof(hint), " (-p takes the rest of the command line: if %s was meant for iowatcher, put it before -p)",
			 misplaced);
	if (!res->events_written)
		return iow_fail(err, "the workload %s%s, so nothing is drawn; no I/O was recorded (the trace files are %s.blktrace.*)",
				how, hint, path);
	return iow_fail(err, "the workload %s%s, so nothing is drawn; the %llu events recorded are kept in %s.blktrace.* (iowatcher -t %s draws them)",
			how, hint, (unsigned long long)res->events_written,
			path, path);
}

/* "of /dev/loop0", "of /dev/sda and /dev/sdb", "of 3 devices" */
static void devices_phrase(const char *const *devices, size_t n,
			   char *buf, size_t size)
{
	if (n == 1)
		snprintf(buf, size, "%s", devices[0]);
	else if (n == 2)
		snprintf(buf, size, "%s and %s", devices[0], devices[1]);
	else
		snprintf(buf, size, "%zu devices", n);
}

/*
 * "the trace holds all 12,000 completions the kernel counted", per
 * device with more than one: the recording's account (account.h).
 */
static void accounts_phrase(const char *const *devices,
			    const struct record_result *res, char *buf,
			    size_t size)
{
	uint64_t in_windows = res->events_lost - res->lost_unlocated;
	char sentence[512];
	struct account acc;
	size_t i, len = 0;

	buf[0] = '\0';
	if (res->events_lost < res->lost_unlocated)
		in_windows = 0;
	for (i = 0; i < res->n_account && len < size; i++) {
		const struct record_account *r = &res->account[i];

		if (!r->counted)
			continue;
		account_compare(&r->note, r->trace, in_windows, 0, &acc);
		account_sentence(&acc, sentence, sizeof(sentence));
		if (res->n_account == 1)
			len += (size_t)snprintf(buf + len, size - len,
						"; the trace %s", sentence);
		else
			len += (size_t)snprintf(buf + len, size - len,
						"%s %s: %s", len ? "," : ";",
						devices[i], sentence);
	}
}

/*
 * The end of a recording in one line: what (events, devices, tracer and
 * why not the ones before it), where (the files, the buffer, the CPU it
 * took), what was lost, or that nothing was, and the account of the
 * completions the kernel counted.
 */
void record_print_result(const char *const *devices, size_t n_devices,
			 const struct record_result *res, const char *path)
{
	char names[256], files[64], buffer[48] = "", lost[160];
	char accounts[2048];

	if (res->mpstat_missing)
		fprintf(stderr, "iowatcher: no mpstat on PATH (Debian's "
			"sysstat package): recorded without the CPU panel's "
			"NAME.mpstat\n");
	if (res->reclaimed_pid > 0)
		fprintf(stderr, "iowatcher: first put back the kernel's "
			"tracing state that a killed recording (pid %ld) had "
			"left on\n", res->reclaimed_pid);
	else if (res->reclaimed_pid < 0)
		fprintf(stderr, "iowatcher: first put back the kernel's "
			"tracing state that a killed recording had left on\n");

	devices_phrase(devices, n_devices, names, sizeof(names));
	if (res->n_files > 1)
		snprintf(files, sizeof(files), ".blktrace.{0..%u}%s",
			 res->n_files - 1, res->causes ? " and .cause*" : "");
	else
		snprintf(files, sizeof(files), ".blktrace.0%s",
			 res->causes ? " and .cause*" : "");
	if (res->buffer_kb % 1024 == 0 && res->buffer_kb)
		snprintf(buffer, sizeof(buffer), "%zu MiB buffer per CPU, ",
			 res->buffer_kb / 1024);
	else if (res->buffer_kb)
		snprintf(buffer, sizeof(buffer), "%zu KiB buffer per CPU, ",
			 res->buffer_kb);
	if (!res->loss_windows)
		snprintf(lost, sizeof(lost), "nothing lost");
	else
		snprintf(lost, sizeof(lost), "the kernel lost %s%llu event%s "
			 "in %llu window%s (loss notes in the trace)",
			 res->lost_unknown ? "at least " : "",
			 (unsigned long long)res->events_lost,
			 res->events_lost == 1 ? "" : "s",
			 (unsigned long long)res->loss_windows,
			 res->loss_windows == 1 ? "" : "s");
	accounts_phrase(devices, res, accounts, sizeof(accounts));
	fprintf(stderr, "iowatcher: recorded %llu events of %s with %s%s%s%s "
		"in %s%s (%s%.2f s of CPU); %s%s\n",
		(unsigned long long)res->events_written, names,
		record_tracer_name(res->used),
		res->fallback_reason[0] ? " (not " : "",
		res->fallback_reason, res->fallback_reason[0] ? ")" : "",
		path, files, buffer, res->cpu_user_s + res->cpu_sys_s, lost,
		accounts);
}
