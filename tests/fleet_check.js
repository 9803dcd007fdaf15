/*
 * tests/fleet_check.js SQL DIR SPEC.json: runs scripts/fleet.sql (the
 * README's DuckDB query) with DuckDB from web/node_modules
 * (@duckdb/node-api) in DIR, where DIR/logs/ holds per-I/O logs
 * (iowatcher --events HOST.csv), and checks its answers against
 * iowatcher's own: SPEC is [{ "host": NAME, "csv": PATH, "summary": PATH
 * of --summary=json of the same trace }]. Each host's bios and p99 of
 * Q2C and D2C are its summary's (n exactly, p99 within the histogram's
 * 0.4%); the fleet's p99 is the one of every row read together (the
 * same nearest rank, computed here from the CSV files); the Parquet file
 * holds every row. Prints "ok WHAT" or "FAIL WHAT: why" per check, or
 * "skipped: why" when DuckDB is not installed.
 */
'use strict';
const fs = require('fs');
const path = require('path');

const top = path.resolve(__dirname, '..');
let duckdb;
try {
	duckdb = require(path.join(top, 'web/node_modules/@duckdb/node-api'));
} catch (e) {
	console.log('skipped: DuckDB: web/node_modules/@duckdb/node-api is missing (cd web && npm ci)');
	process.exit(0);
}

const [sqlPath, dir, specPath] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(specPath, 'utf8'));
let failed = 0;

function check(what, ok, why) {
	if (ok) {
		console.log(`ok   ${what}`);
	} else {
		console.log(`FAIL ${what}: ${why}`);
		failed++;
	}
}

function within(got, want, rel) {
	return Math.abs(got - want) <= rel * Math.abs(want);
}

/* The statements of a SQL file, its comments left out. */
function statements(sql) {
	return sql.split('\n').filter((l) => !l.startsWith('--')).join('\n')
		.split(';').map((s) => s.trim()).filter((s) => s.length);
}

/* A CSV column's numbers (the log quotes no number, so a split does). */
function column(csvPath, name) {
	const lines = fs.readFileSync(csvPath, 'utf8').trim().split('\n');
	const header = lines[0].split(',');
	const at = header.indexOf(name);
	const rows = lines.slice(1);

	return {
		rows: rows.length,
		/* the columns after a quoted "MAJ,MIN" sit one further */
		values: rows.map((l) => l.replace(/"[^"]*"/g, 'x').split(',')[at])
			.filter((v) => v !== '').map(Number),
	};
}

/* quantile_disc's nearest rank: the value at index ceil(n q) - 1. */
function nearestRank(values, q) {
	const sorted = values.slice().sort((a, b) => a - b);

	return sorted[Math.max(0, Math.ceil(sorted.length * q) - 1)];
}

async function main() {
	const db = await duckdb.DuckDBInstance.create(':memory:');
	const conn = await db.connect();
	const answers = [];

	process.chdir(dir);
	for (const s of statements(fs.readFileSync(sqlPath, 'utf8'))) {
		const reader = await conn.runAndReadAll(s);

		if (/^select/i.test(s))
			answers.push(reader.getRowObjectsJS());
	}
	const [perHost, fleet] = answers;
	const all = { q2c_us: [], d2c_us: [] };
	let rows = 0;

	for (const h of spec) {
		const summary = JSON.parse(fs.readFileSync(h.summary, 'utf8'));
		const dev = summary.traces[0].devices[0];
		const got = perHost.find((r) => r.host === h.host);

		if (!got) {
			check(`${h.host}: a row of its own`, false,
			      `hosts ${perHost.map((r) => r.host).join(' ')}`);
			continue;
		}
		check(`${h.host}: bios ${got.bios} as --summary's ${dev.q2c_us.n}`,
		      Number(got.bios) === dev.q2c_us.n, 'differ');
		for (const c of ['q2c', 'd2c']) {
			const mine = got[`${c}_p99_us`], theirs = dev[`${c}_us`].p99;

			check(`${h.host}: ${c} p99 ${mine} us within 0.4% of --summary's ${theirs}`,
			      within(mine, theirs, 0.004), 'too far');
		}
		check(`${h.host}: wall_time read as a timestamp`,
		      got.first_completion instanceof Object &&
		      got.first_completion !== null, `${got.first_completion}`);
		for (const c of ['q2c_us', 'd2c_us'])
			all[c].push(...column(h.csv, c).values);
		rows += column(h.csv, 'q2c_us').rows;
	}
	check(`fleet: ${fleet[0].hosts} hosts`, Number(fleet[0].hosts) === spec.length,
	      `want ${spec.length}`);
	check(`fleet: bios ${fleet[0].bios} are the hosts' ${all.q2c_us.length}`,
	      Number(fleet[0].bios) === all.q2c_us.length, 'differ');
	for (const c of ['q2c', 'd2c']) {
		const want = nearestRank(all[`${c}_us`], 0.99);

		check(`fleet: ${c} p99 ${fleet[0][`${c}_p99_us`]} us is the rows' together, ${want}`,
		      Math.abs(fleet[0][`${c}_p99_us`] - want) < 5e-4, 'differ');
	}
	const parquet = (await conn.runAndReadAll(
		"SELECT count(*) AS n, count(DISTINCT host) AS hosts FROM 'fleet.parquet'"))
		.getRowObjectsJS()[0];
	check(`Parquet: ${parquet.n} rows of ${parquet.hosts} hosts, every CSV row (${rows})`,
	      Number(parquet.n) === rows && Number(parquet.hosts) === spec.length,
	      'differ');
	process.exit(failed ? 1 : 0);
}

main().catch((e) => {
	console.log(`FAIL DuckDB ran the query: ${e.message}`);
	process.exit(1);
});
