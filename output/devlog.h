/*
 * devlog.h: -o NAME.jsonl, the per-device log: one JSON object a line
 * for each device with I/O of each trace, its figures as the JSON
 * summary gives them, with the trace's label and source, the host and
 * the device's name where the recording noted them. A fleet's logs are
 * read together line by line (jq, DuckDB's read_json).
 */
#ifndef IOWATCHER_DEVLOG_H
#define IOWATCHER_DEVLOG_H

#include "base/outkind.h"

/* The per-device log, a row of the outputs' table. */
extern const struct output_ops devlog_output;

#endif
