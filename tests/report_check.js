/*
 * tests/report_check.js SPEC.json: drives Debian's chromium, headless,
 * over the DevTools protocol (puppeteer-core from web/node_modules, no
 * browser of its own) through iowatcher reports, and prints one line per
 * check: "ok WHAT" or "FAIL WHAT: why", then "info ..." lines with the
 * times measured in the page. SPEC is a list of reports:
 *   { "name": "fio-randrw", "report": "/path/r.html",
 *     "panels": { "io": 1, "tput": 1, ... }   (the picture's panels)
 *     "hover": [ { "graph": "tput", "series": "read", "csv": "FILE",
 *                  "column": "read_mb_per_s", "scale": 1 } ],
 *     "drag": "tput", "zoom20": 1.0, "shots": "DIR",
 *     "toggle": { "graph": "tput", "label": "write" },
 *     "budget": { "paint_ms": 1000, "redraw_ms": 50 },  (checked with IOW_BUDGETS=1)
 *     "pictures": [ "top-files" ],        (graphs shown as pictures)
 *     "stable": { "views": [[1.0, 1.03]], "hover": "latency" },
 *     "cover": { "graph": "io", "views": [[1.0, 1.005]] },
 *     "xcheck": { "iow": "/path/iowatcher", "args": ["-t", "T"],
 *                 "views": [[2.84, 4.27]] } }
 * "stable": no panel moves or changes height when the page zooms (to
 * each view, and back) or when a chart is hovered, and the readouts go
 * when the pointer leaves the charts. "cover": the I/O map's non-empty
 * cells are painted across their time span (at 15%, 50% and 85% of it),
 * and the pixels between two non-empty cells side by side too. "xcheck":
 * the zoomed table's "-x FROM:TO", given to iowatcher with args and
 * --summary=json, counts the table's I/Os, MiB and D2C bios.
 * The page is used once it has drawn its graphs and warmed up (decoded
 * its tables, window.iowReport.warm): a user's first drag comes later.
 * Environment: IOW_CHROMIUM (default /usr/bin/chromium).
 */
'use strict';
const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const top = path.resolve(__dirname, '..');
let puppeteer;
try {
	puppeteer = require(path.join(top, 'web/node_modules/puppeteer-core'));
} catch (e) {
	console.log('skipped: puppeteer-core is not in web/node_modules (cd web && npm ci)');
	process.exit(0);
}
const chromium = process.env.IOW_CHROMIUM || '/usr/bin/chromium';
const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));

function ok(what) { console.log('ok   ' + what); }
function fail(what, why) { console.log('FAIL ' + what + (why ? ': ' + why : '')); }
function check(what, cond, why) { if (cond) ok(what); else fail(what, why); }
/* A time budget: a check only with IOW_BUDGETS=1 (a quiet machine's
 * measurement; bench/ measures speed), else the figure as an info line,
 * so that a loaded machine (make check's lanes side by side, CI) does
 * not fail the suite on a wall-clock time. */
function budget(what, cond, figure) {
	if (process.env.IOW_BUDGETS === '1')
		check(what, cond, figure);
	else
		console.log('info ' + what + ': ' + figure + (cond ? '' : ' (over; not checked: IOW_BUDGETS=1 checks)'));
}
const sleep = ms => new Promise(r => setTimeout(r, ms));

/* The CSV row whose bin starts at t0: its column's value. */
function csvValue(file, column, t0) {
	const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
	const head = lines[0].split(','), c = head.indexOf(column);
	if (c < 0)
		return { error: 'no column ' + column + ' in ' + head.join(',') };
	for (const line of lines.slice(1)) {
		const f = line.split(',');
		if (Math.abs(+f[0] - t0) < 1e-7)
			return { value: f[c] === '' ? NaN : +f[c] };
	}
	return { error: 'no row at ' + t0 };
}

/* The element's box, scrolled into the viewport (mouse events reach
 * only what is in it). */
async function box(page, sel) {
	const el = await page.$(sel);

	if (!el)
		return null;
	await el.evaluate(e => e.scrollIntoView({ block: 'center' }));
	await sleep(50);
	return el.boundingBox();
}

async function drag(page, sel, f0, f1) {
	const b = await box(page, sel);
	if (!b)
		return false;
	const y = b.y + b.height / 2;
	await page.mouse.move(b.x + b.width * f0, y);
	await page.mouse.down();
	await page.mouse.move(b.x + b.width * (f0 + f1) / 2, y, { steps: 4 });
	await page.mouse.move(b.x + b.width * f1, y, { steps: 4 });
	await page.mouse.up();
	await sleep(200);
	return true;
}

/* Every time chart's x scale, as uPlot has it. */
function xRanges(page) {
	return page.evaluate(() => window.iowReport.charts
		.filter(c => c.graph.kind !== 'hist')
		.map(c => [c.graph.name, c.u.scales.x.min, c.u.scales.x.max]));
}

/* Every panel's place on the page and its height. */
function panelBoxes(page) {
	return page.evaluate(() => Array.from(document.querySelectorAll('.iow-panel'))
		.map(p => {
			const b = p.getBoundingClientRect();

			return [p.dataset.graph, b.top + window.scrollY, b.left, b.height];
		}));
}

/* How far the panels moved between two panelBoxes: the largest shift,
 * and which panel, in words. */
function moved(a, b) {
	let worst = 0, why = '';

	if (a.length !== b.length)
		return { px: Infinity, why: a.length + ' panels, then ' + b.length };
	a.forEach((x, i) => {
		const d = Math.max(Math.abs(x[1] - b[i][1]), Math.abs(x[2] - b[i][2]),
				   Math.abs(x[3] - b[i][3]));

		if (d > worst) {
			worst = d;
			why = x[0] + ' at y ' + x[1].toFixed(0) + ' h ' + x[3].toFixed(0) +
			      ', then y ' + b[i][1].toFixed(0) + ' h ' + b[i][3].toFixed(0);
		}
	});
	return { px: worst, why: why };
}

/* What the cursor shows: the values, the floating readouts, the notes. */
function readouts(page) {
	return page.evaluate(() => ({
		values: Array.from(document.querySelectorAll('.iow-value'))
			.map(e => e.textContent.trim()).filter(t => t),
		boxes: Array.from(document.querySelectorAll('.iow-readout'))
			.filter(e => getComputedStyle(e).visibility !== 'hidden' &&
				     getComputedStyle(e).display !== 'none').length,
		notes: Array.from(document.querySelectorAll('.iow-panel'))
			.map(p => Array.from(p.querySelectorAll('.iow-note'))
				.map(n => n.textContent).join('|'))
	}));
}

async function checkStable(page, r) {
	const st = r.stable;

	await page.evaluate(() => { window.iowReport.wholeRun(); window.scrollTo(0, 0); });
	await sleep(150);
	const whole = await panelBoxes(page);
	const idle = await readouts(page);
	let worst = { px: 0, why: '' }, at = '';

	for (const v of st.views || []) {
		await page.evaluate(w => window.iowReport.zoom(w[0], w[1]), v);
		await sleep(150);
		const m = moved(whole, await panelBoxes(page));

		if (m.px >= worst.px) {
			worst = m;
			at = v.join('-') + ' s';
		}
	}
	await page.evaluate(() => window.iowReport.wholeRun());
	await sleep(150);
	const back = moved(whole, await panelBoxes(page));

	if (back.px > worst.px) {
		worst = back;
		at = 'the whole run again';
	}
	check(r.name + ': no panel moves when the page zooms (' + (st.views || []).length +
	      ' views and back; ' + worst.px.toFixed(1) + ' px at most)', worst.px < 0.5,
	      'at ' + at + ': ' + worst.why);
	if (!st.hover)
		return;
	const sel = '.iow-panel[data-graph="' + st.hover + '"] .u-over';
	const b = await box(page, sel);

	if (!b) {
		fail(r.name + ': a hover moves no panel', 'no chart ' + st.hover);
		return;
	}
	const before = await panelBoxes(page);
	let hw = { px: 0, why: '' }, shown = 0;

	for (const f of [0.1, 0.5, 0.9]) {
		await page.mouse.move(b.x + b.width * f, b.y + b.height / 2);
		await sleep(60);
		const m = moved(before, await panelBoxes(page));

		shown += (await readouts(page)).values.length;
		if (m.px > hw.px)
			hw = m;
	}
	if (r.shots)
		await page.screenshot({ path: path.join(r.shots, r.name + '-hover.png') });
	check(r.name + ': hovering ' + st.hover + ' moves no panel (' + shown +
	      ' values shown; ' + hw.px.toFixed(1) + ' px at most)',
	      shown > 0 && hw.px < 0.5, hw.why || 'no value shown');
	/* out of every chart: the page's left margin */
	await page.mouse.move(2, 2);
	await sleep(100);
	const left = await readouts(page);
	const stale = left.notes.filter((n, i) => n !== idle.notes[i]);

	check(r.name + ': the readouts go when the pointer leaves (' + left.values.length +
	      ' values, ' + left.boxes + ' boxes, ' + stale.length + ' notes left)',
	      !left.values.length && !left.boxes && !stale.length,
	      JSON.stringify({ values: left.values.slice(0, 4), notes: stale.slice(0, 3) }));
}

/* The I/O map's drawn pixels at a deep zoom: every non-empty cell
 * painted across its time span, and no gap between two side by side. */
async function checkCover(page, r) {
	const cv = r.cover;

	for (const v of cv.views) {
		await page.evaluate(w => { window.iowReport.wholeRun(); window.iowReport.zoom(w[0], w[1]); }, v);
		await sleep(200);
		const got = await page.evaluate(g => {
			const c = window.iowReport.charts.find(x => x.graph.name === g);

			if (!c)
				return null;
			const u = c.u, ctx = u.ctx, bb = u.bbox;
			const painted = (x, y) => {
				const d = ctx.getImageData(Math.floor(x), Math.floor(y), 1, 1).data;

				/* a class's colour: not white, not the grid's grey */
				return d[3] > 60 && Math.max(d[0], d[1], d[2]) -
					Math.min(d[0], d[1], d[2]) > 40;
			};
			const inside = (x, y) => x >= bb.left + 1 && x < bb.left + bb.width - 1 &&
				y >= bb.top + 1 && y < bb.top + bb.height - 1;
			let cells = 0, bare = 0, runs = 0, gaps = 0, widest = 0;
			const why = [];

			c.grids.forEach(gr => {
				const lit = (col, row) => {
					let n = 0;

					for (let k = 0; k < gr.nc; k++)
						n += gr.grid[(row * gr.cols + col) * gr.nc + k];
					return n > 0;
				};
				const xAt = t => u.valToPos(t, 'x', true);
				const rowY = row => u.valToPos(gr.y0 + (row + 0.5) *
					(gr.y1 - gr.y0) / gr.rows, 'y', true);

				for (let row = 0; row < gr.rows; row++)
					for (let col = 0; col < gr.cols; col++) {
						if (!lit(col, row))
							continue;
						const x0 = xAt(gr.x0 + col * gr.w), x1 = xAt(gr.x0 + (col + 1) * gr.w);
						const y = rowY(row);

						widest = Math.max(widest, x1 - x0);
						for (const f of [0.15, 0.5, 0.85]) {
							const x = x0 + (x1 - x0) * f;

							if (!inside(x, y))
								continue;
							cells++;
							if (!painted(x, y)) {
								bare++;
								if (why.length < 3)
									why.push('cell at ' + (gr.x0 + col * gr.w).toFixed(4) +
										 ' s row ' + row + ': bare at ' + f * 100 + '%');
							}
						}
						if (col + 1 < gr.cols && lit(col + 1, row)) {
							const xm = xAt(gr.x0 + (col + 1.5) * gr.w);

							runs++;
							for (let x = Math.ceil((x0 + x1) / 2); x < xm; x++)
								if (inside(x, y) && !painted(x, y)) {
									gaps++;
									if (why.length < 3)
										why.push('gap at ' + (gr.x0 + (col + 1) * gr.w).toFixed(4) +
											 ' s row ' + row);
									break;
								}
						}
					}
			});
			return { cells, bare, runs, gaps, widest: widest / devicePixelRatio, why };
		}, cv.graph || 'io');
		if (!got) {
			fail(r.name + ': the I/O map covers its cells', 'no chart ' + cv.graph);
			continue;
		}
		if (r.shots) {
			const e = await page.$('.iow-panel[data-graph="' + (cv.graph || 'io') + '"]');

			await e.evaluate(x => x.scrollIntoView({ block: 'center' }));
			await e.screenshot({ path: path.join(r.shots, r.name + '-map-' +
							     v.join('-') + '.png') });
		}
		check(r.name + ': zoomed to ' + v.join('-') + ' s the I/O map paints its cells (' +
		      got.widest.toFixed(0) + ' px wide) across their span (' + got.cells +
		      ' points, ' + got.bare + ' bare; ' + got.runs + ' pairs side by side, ' +
		      got.gaps + ' with a gap)',
		      got.cells > 0 && !got.bare && !got.gaps && (!cv.runs || got.runs > 0),
		      got.why.join('; ') || (got.cells ? 'no cells side by side' : 'no cell'));
	}
}

/* The whole run's box against --summary's text: its head, each class
 * and latency row, the depth line, as the text says them (units words
 * aside); no row the text has not (no pooled "D2C" of reads and writes). */
function summaryWords(line) {
	return line.trim().split(/\s+/).filter(w =>
		!['I/O', 'I/Os', 'MB/s', 'IOPS'].includes(w)).join(' ');
}

async function checkSummaryBox(page, r) {
	const text = childProcess.execFileSync(r.summary.iow,
		r.summary.args.concat(['--summary']), { encoding: 'utf8' });
	const want = [];
	text.split('\n').forEach((line, i) => {
		if (i === 0 || /^  (read|write|discard|flush|zone-mgmt|write-zeroes|D2C|Q2C|Q2D|queue depth) /.test(line))
			want.push(summaryWords(line));
	});
	const box = await page.evaluate(() => {
		window.iowReport.wholeRun();
		const t = document.querySelector('.iow-table');
		const rows = [];
		t.querySelectorAll('.iow-trace, .iow-small').forEach(e => rows.push(e.innerText));
		t.querySelectorAll('table.iow-io tr, table.iow-lat tr').forEach(tr =>
			rows.push([...tr.children].map(c => c.innerText).filter(x => x !== '').join(' ')));
		return rows;
	});
	const have = box.map(summaryWords);
	const missing = want.filter(w => !have.includes(w));
	check(r.name + ': the whole run\'s box says what --summary says (' + want.length + ' lines)',
	      !missing.length, 'missing: ' + missing.slice(0, 3).join(' | ') +
	      '; the box: ' + have.slice(0, 6).join(' | '));
	const pooled = have.filter(w => /^(D2C|Q2C|Q2D) \d/.test(w));
	check(r.name + ': no latency row of reads and writes pooled', !pooled.length,
	      pooled.join(' | '));
}

/* The zoomed table against iowatcher -x of the interval it shows. */
async function checkX(page, r) {
	const xc = r.xcheck;

	for (const v of xc.views) {
		await page.evaluate(w => { window.iowReport.wholeRun(); window.iowReport.zoom(w[0], w[1]); }, v);
		await sleep(150);
		const t = await page.evaluate(() => {
			const x = document.querySelector('.iow-table .iow-x');
			const rows = sel => Array.from(document.querySelectorAll('.iow-table ' + sel + ' tr'))
				.slice(1).map(tr => Array.from(tr.children).map(td => td.textContent));

			return x ? { text: x.textContent, from: x.dataset.from, to: x.dataset.to,
				     io: rows('.iow-io'), lat: rows('.iow-lat') } : null;
		});
		const what = r.name + ': the view ' + v.join('-') + ' s: its table\'s -x';

		if (!t) {
			fail(what + ' counts what the table counts', 'the page shows no -x');
			continue;
		}
		let json;
		try {
			json = JSON.parse(childProcess.execFileSync(xc.iow,
				xc.args.concat(['--summary=json', '-x', t.from + ':' + t.to]),
				{ encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
		} catch (e) {
			fail(what + ' counts what the table counts', 'iowatcher ' + t.text + ': ' + e.message);
			continue;
		}
		const want = {}, bad = [];
		let d2c = 0;

		json.traces[0].devices.forEach(d => {
			['read', 'write', 'discard'].forEach(op => {
				want[op] = want[op] || { ios: 0, bytes: 0 };
				want[op].ios += d[op].ios;
				want[op].bytes += d[op].bytes;
			});
			d2c += d.d2c_us.n;
		});
		t.io.forEach(row => {
			const w = want[row[0]];

			if (!w)
				return;
			if (+row[1] !== w.ios || row[2] !== (w.bytes / 1048576).toFixed(1))
				bad.push(row[0] + ' ' + row[1] + ' I/Os ' + row[2] + ' MiB, -x ' +
					 w.ios + ' I/Os ' + (w.bytes / 1048576).toFixed(1) + ' MiB');
		});
		const lat = t.lat.find(row => row[0] === 'D2C');

		if (!lat || +lat[1] !== d2c)
			bad.push('D2C ' + (lat ? lat[1] : 'no row') + ' bios, -x ' + d2c);
		const covers = +t.from <= v[0] + 1e-12 && +t.to >= v[1] - 1e-12;

		check(what + ' (' + t.text + ') covers it and counts what the table counts (' +
		      t.io.map(row => row[0] + ' ' + row[1]).join(', ') + ')',
		      !bad.length && covers && t.io.length > 0,
		      covers ? bad.join('; ') : 'the view is not inside ' + t.text);
	}
}

async function checkReport(browser, r) {
	const page = await browser.newPage();
	const errors = [], requests = [];
	let first = null;

	await page.setViewport({ width: 1400, height: 900 });
	await page.setRequestInterception(true);
	page.on('request', req => {
		if (first === null)
			first = req.url();
		/* the page itself and the pictures it holds load; nothing else */
		if (req.url() === first || req.url().startsWith('data:'))
			return req.continue();
		requests.push(req.url());
		req.abort();
	});
	page.on('console', m => {
		if (m.type() === 'error')
			errors.push(m.text());
	});
	page.on('pageerror', e => errors.push(e.message));
	const t0 = Date.now();
	await page.goto('file://' + path.resolve(r.report));
	try {
		await page.waitForFunction('window.iowReport && (window.iowReport.warm || window.iowReport.error)',
					   { timeout: 30000 });
	} catch (e) {
		fail(r.name + ': the page is ready', 'not within 30 s');
		await page.close();
		return;
	}
	const info = await page.evaluate(() => {
		const fcp = performance.getEntriesByName('first-contentful-paint')[0];
		return { error: window.iowReport.error, ready: window.iowReport.firstPaintMs,
			 fcp: fcp ? fcp.startTime : null,
			 charts: window.iowReport.charts.map(c => c.graph.name),
			 pictures: [...document.querySelectorAll('.iow-picture')].map(e => {
				 const img = e.querySelector('img');
				 return { graph: e.dataset.graph,
					  w: img ? img.naturalWidth : 0 };
			 }) };
	});
	check(r.name + ': the page reads its numbers', !info.error, info.error);
	check(r.name + ': no console error', !errors.length, errors.join(' | '));
	check(r.name + ': no network request', !requests.length, requests.join(' '));
	console.log('info ' + r.name + ': graphs drawn ' + info.ready.toFixed(0) +
		    ' ms after navigation (first contentful paint ' +
		    (info.fcp === null ? '?' : info.fcp.toFixed(0)) + ' ms; load ' +
		    (Date.now() - t0) + ' ms in all)');
	if (r.budget && r.budget.paint_ms)
		budget(r.name + ': graphs drawn within ' + r.budget.paint_ms + ' ms',
		       info.ready < r.budget.paint_ms, info.ready.toFixed(0) + ' ms');
	if (r.panels) {
		const got = {};
		info.charts.concat(info.pictures.map(p => p.graph))
			.forEach(n => { got[n] = (got[n] || 0) + 1; });
		const want = JSON.stringify(r.panels, Object.keys(r.panels).sort());
		const have = JSON.stringify(got, Object.keys(got).sort());
		check(r.name + ': a chart per panel of the picture (' + have + ')',
		      want === have, 'the picture has ' + want);
	}
	if (r.pictures) {
		const names = [...new Set(info.pictures.map(p => p.graph))].sort();
		check(r.name + ': pictures of ' + r.pictures.join(', ') + ', decoded',
		      JSON.stringify(names) === JSON.stringify(r.pictures.slice().sort()) &&
		      info.pictures.every(p => p.w > 0),
		      JSON.stringify(info.pictures));
	}
	if (r.shots) {
		fs.mkdirSync(r.shots, { recursive: true });
		await page.screenshot({ path: path.join(r.shots, r.name + '.png'), fullPage: true });
	}
	const whole = await page.evaluate(() => window.iowReport.view());
	for (const h of r.hover || []) {
		const sel = '.iow-panel[data-graph="' + h.graph + '"] .u-over';
		const b = await box(page, sel);
		if (!b) {
			fail(r.name + ': hover on ' + h.graph, 'no chart');
			continue;
		}
		let matched = 0, tried = 0, why = '';
		for (const f of h.at || [0.3, 0.5, 0.7]) {
			await page.mouse.move(b.x + b.width * f, b.y + b.height / 2);
			await sleep(50);
			const v = await page.evaluate((g, s) => {
				const e = document.querySelector('.iow-panel[data-graph="' + g +
					'"] .iow-value[data-series="' + s + '"]');
				return e ? { value: e.dataset.value, t0: e.dataset.t0,
					     level: e.dataset.level, text: e.textContent } : null;
			}, h.graph, h.series);
			if (!v || v.t0 === undefined) {
				why = 'no value shown for ' + h.series;
				continue;
			}
			const want = csvValue(h.csv, h.column, +v.t0);
			if (want.error) {
				why = want.error;
				continue;
			}
			tried++;
			const got = v.value === '' ? NaN : +v.value * (h.scale || 1);
			if ((isNaN(got) && isNaN(want.value)) ||
			    Math.abs(got - want.value) <= 1e-5 * Math.max(1e-9, Math.abs(want.value)))
				matched++;
			else
				why = 'at ' + v.t0 + ' s the page says ' + got + ' (' + v.text.trim() +
				      '), the CSV ' + want.value;
		}
		check(r.name + ': hovered ' + h.graph + ' ' + h.series + ' equals the CSV (' +
		      matched + ' of ' + tried + ' bins)', tried > 0 && matched === tried, why);
	}
	if (r.drag) {
		const sel = '.iow-panel[data-graph="' + r.drag + '"] .u-over';
		await drag(page, sel, 0.3, 0.5);
		const view = await page.evaluate(() => window.iowReport.view());
		const ranges = await xRanges(page);
		const redraw = await page.evaluate(() => window.iowReport.lastRedrawMs);
		check(r.name + ': a drag on ' + r.drag + ' zooms in',
		      view[1] - view[0] < (whole[1] - whole[0]) * 0.6,
		      'view ' + view.join('-'));
		const off = ranges.filter(x => Math.abs(x[1] - view[0]) > 1e-9 * (1 + view[1]) ||
						Math.abs(x[2] - view[1]) > 1e-9 * (1 + view[1]));
		check(r.name + ': every time chart has the dragged range (' + ranges.length + ' charts)',
		      !off.length && ranges.length > 0, off.map(x => x.join(' ')).join('; '));
		console.log('info ' + r.name + ': zoom redraw ' + redraw.toFixed(1) + ' ms');
		if (r.budget && r.budget.redraw_ms)
			budget(r.name + ': zoom redraw within ' + r.budget.redraw_ms + ' ms',
			       redraw < r.budget.redraw_ms, redraw.toFixed(1) + ' ms');
		if (r.shots)
			await page.screenshot({ path: path.join(r.shots, r.name + '-drag.png'), fullPage: true });
		const b = await box(page, sel);
		await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2, { clickCount: 2 });
		await sleep(200);
		const back = await page.evaluate(() => window.iowReport.view());
		const backRanges = await xRanges(page);
		const stray = backRanges.filter(x => x[1] !== whole[0] || x[2] !== whole[1]);
		check(r.name + ': a double-click restores the whole run',
		      back[0] === whole[0] && back[1] === whole[1] && !stray.length,
		      'view ' + back.join('-') + '; ' + stray.map(x => x.join(' ')).join('; '));
	}
	if (r.zoom20 !== undefined) {
		await page.evaluate(t => window.iowReport.zoom(t, t + 0.02), r.zoom20);
		await sleep(200);
		const widths = await page.evaluate(() => Array.from(
			document.querySelectorAll('.iow-panel[data-bin-width]'))
			.map(p => [p.dataset.graph, p.dataset.binWidth]));
		const wide = widths.filter(w => w[1].split(',').some(x => +x > 0.001 + 1e-12));
		check(r.name + ': a 20 ms zoom shows bins of 1 ms or less (' + widths.length +
		      ' charts)', widths.length > 0 && !wide.length,
		      wide.map(w => w.join(' ')).join('; '));
		const redraw = await page.evaluate(() => window.iowReport.lastRedrawMs);
		console.log('info ' + r.name + ': 20 ms zoom redraw ' + redraw.toFixed(1) + ' ms');
		if (r.shots)
			await page.screenshot({ path: path.join(r.shots, r.name + '-zoom20.png'),
						fullPage: true });
	}
	if (r.toggle) {
		/* a legend entry hides its class in every graph, and back */
		const sel = '.iow-panel[data-graph="' + r.toggle.graph + '"] .iow-entry';
		const state = () => page.evaluate((key) => {
			let hidden = 0, shown = 0;
			window.iowReport.charts.forEach(c => {
				if (c.graph.kind !== 'lines')
					return;
				c.panel.series.forEach((s, i) => {
					if ('c' + s.trace + ':' + s.color !== key || s.empty)
						return;
					if (c.data[i + 1].every(v => v === null || v === undefined))
						hidden++;
					else
						shown++;
				});
			});
			const marks = Array.from(document.querySelectorAll('[data-key="' + key + '"]'));
			return { hidden, shown, off: marks.filter(m => m.classList.contains('iow-off')).length,
				 marks: marks.length };
		}, key);
		const entries = await page.$$(sel);
		let entry = null, key = null;
		for (const e of entries) {
			const t = await e.evaluate(x => x.textContent);
			if (t.startsWith(r.toggle.label)) {
				entry = e;
				key = await e.evaluate(x => x.dataset.key);
				break;
			}
		}
		if (!entry) {
			fail(r.name + ': a legend entry hides its class everywhere', 'no entry ' + r.toggle.label);
		} else {
			await entry.evaluate(e => e.scrollIntoView({ block: 'center' }));
			await entry.click();
			await sleep(100);
			const off = await state();
			await entry.click();
			await sleep(100);
			const on = await state();
			check(r.name + ': a click on "' + r.toggle.label + '" hides it in every graph (' +
			      off.hidden + ' series, ' + off.off + ' legend entries and chips)',
			      off.hidden > 1 && !off.shown && off.off === off.marks,
			      JSON.stringify(off));
			check(r.name + ': a second click shows it again', !on.hidden && on.shown > 1 && !on.off,
			      JSON.stringify(on));
		}
	}
	if (r.stable)
		await checkStable(page, r);
	if (r.cover)
		await checkCover(page, r);
	if (r.xcheck)
		await checkX(page, r);
	check(r.name + ': no console error as it was used', !errors.length,
	      errors.join(' | '));
	if (r.summary)
		await checkSummaryBox(page, r);
	for (const t of r.texts || []) {
		const found = await page.evaluate(s => document.body.innerText.indexOf(s) >= 0, t);
		check(r.name + ': the page says "' + t + '"', found);
	}
	if (r.shaded) {
		/* loss windows: the hatching's red in a time chart, where the
		 * window lies, and none outside */
		const px = await page.evaluate((g, w) => {
			const c = window.iowReport.charts.find(x => x.graph.name === g);
			if (!c)
				return null;
			const u = c.u, ctx = u.ctx, b = u.bbox, y = b.top + b.height / 2;
			const at = v => { const d = ctx.getImageData(Math.round(u.valToPos(v, 'x', true)),
				Math.round(y), 1, 1).data; return [d[0], d[1], d[2]]; };
			return { inside: at((w[0] + w[1]) / 2), outside: at(w[1] + (w[1] - w[0]) * 2) };
		}, r.shaded.graph, r.shaded.window);
		const reddish = p => p && p[0] > p[2] + 15 && p[0] > p[1] + 15;
		check(r.name + ': a loss window is shaded in ' + r.shaded.graph,
		      px && reddish(px.inside) && !reddish(px.outside),
		      JSON.stringify(px));
	}
	if (r.cpu) {
		/* mpstat's seconds: every panel of the graph (a trace each) on
		 * one y scale, and each sample a level from its second's start
		 * (x at whole seconds from the trace's start) */
		const got = await page.evaluate(g => window.iowReport.charts
			.filter(c => c.graph.name === g)
			.map(c => ({ top: c.u.scales.y.max, span: c.graph.xSpan,
				     x: Array.from(c.u.data[0]).slice(0, 4) })), r.cpu);
		check(r.name + ': ' + r.cpu + "'s panels (" + got.length + ') share one y scale',
		      got.length > 1 && got.every(c => c.top === got[0].top),
		      JSON.stringify(got.map(c => c.top)));
		check(r.name + ': ' + r.cpu + ' draws each sample over its second, from its start',
		      got.length && got.every(c => c.span === 1 && c.x.length > 1 &&
			c.x.every(v => Math.abs(v - Math.round(v)) < 1e-9)),
		      JSON.stringify(got));
	}
	await page.close();
}

(async () => {
	if (!fs.existsSync(chromium)) {
		console.log('skipped: ' + chromium + ' is missing (apt-get install chromium)');
		return;
	}
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'iow-chromium-'));
	const browser = await puppeteer.launch({
		executablePath: chromium,
		headless: true,
		userDataDir: profile,
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
		       '--disable-component-update', '--disable-sync', '--no-first-run',
		       '--disable-extensions', '--disable-default-apps']
	});
	try {
		for (const r of spec)
			await checkReport(browser, r);
	} finally {
		await browser.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
})().catch(e => {
	fail('the browser run', String(e && e.stack || e));
	process.exitCode = 1;
});
