#!/usr/bin/env node
/*
 * scripts/duckdb.js: a DuckDB for the README's fleet query with nothing
 * beyond this checkout: `(cd web && npm ci)` installs DuckDB's
 * @duckdb/node-api (the tests' own), then `node scripts/duckdb.js <
 * scripts/fleet.sql` runs the SQL on standard input, statement by
 * statement, in the current directory, and prints each SELECT's rows as
 * tab-separated lines under a header, as `duckdb -list` would.
 */
'use strict';
const fs = require('fs');
const path = require('path');

let duckdb;
try {
	duckdb = require(path.join(__dirname, '..', 'web/node_modules/@duckdb/node-api'));
} catch (e) {
	console.error('duckdb.js: web/node_modules/@duckdb/node-api is missing: run (cd web && npm ci) in the checkout first');
	process.exit(1);
}

function statements(sql) {
	return sql.split('\n').filter((l) => !l.trim().startsWith('--')).join('\n')
		.split(';').map((s) => s.trim()).filter((s) => s.length);
}

async function main() {
	const db = await duckdb.DuckDBInstance.create(':memory:');
	const conn = await db.connect();

	for (const s of statements(fs.readFileSync(0, 'utf8'))) {
		let reader;

		try {
			reader = await conn.runAndReadAll(s);
		} catch (e) {
			console.error('duckdb.js: ' + String(e.message || e).split('\n')[0] +
				      ' (in: ' + s.slice(0, 60).replace(/\s+/g, ' ') + ')');
			process.exit(1);
		}
		if (!/^select/i.test(s))
			continue;
		console.log(reader.columnNames().join('\t'));
		for (const row of reader.getRowsJS())
			console.log(row.map((v) => v === null ? '' : String(v)).join('\t'));
	}
}

main().catch((e) => {
	console.error('duckdb.js: ' + (e.message || e));
	process.exit(1);
});
