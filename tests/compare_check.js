/*
 * tests/compare_check.js REPORT.html SHOTS [window] [band]: drives Debian's chromium,
 * headless (puppeteer-core from web/node_modules, as report_check.js),
 * through the report --compare -o writes, and prints one line per check,
 * "ok WHAT" or "FAIL WHAT: why". The comparison's section sits under the
 * header, above the table and the panels, and overlaps none of them; the
 * page loads nothing and logs no error; clicking a time window among the
 * contributors sets every chart's x range to the window (as the page's
 * zoom clamps it), and moves no panel; Back returns; clicking an offset
 * band sets the y range of its devices' I/O maps around the band and
 * says so in the status line; Home shows the whole run and device again.
 * window, band: the report must hold a button of that kind (one it
 * holds is checked anyway). Screenshots go to SHOTS: look at them.
 * Environment: IOW_CHROMIUM (default /usr/bin/chromium).
 */
'use strict';
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
const report = path.resolve(process.argv[2]);
const shots = process.argv[3];
/* what the report must hold: "window", "band" (a button of each) */
const expect = process.argv.slice(4);
const name = path.basename(report, '.html');

function ok(what) { console.log('ok   ' + what); }
function fail(what, why) { console.log('FAIL ' + what + (why ? ': ' + why : '')); }
function check(what, cond, why) { if (cond) ok(what); else fail(what, why); }
const near = (a, b) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b));

/* Where every panel, the table and the section are, in the document. */
function layout() {
	const box = e => {
		const r = e.getBoundingClientRect();
		return { x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height };
	};
	const sec = document.getElementById('iow-compare');
	return {
		section: sec ? box(sec) : null,
		inside: !!(sec && document.getElementById('iow').contains(sec)),
		order: sec ? [...document.getElementById('iow').children].map(e =>
			e.id || e.className) : [],
		overflow: sec ? sec.scrollWidth > sec.clientWidth + 1 : false,
		panels: [...document.querySelectorAll('.iow-panel')].map(box),
		table: box(document.querySelector('.iow-table'))
	};
}

function overlaps(a, b) {
	return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/* The charts' x ranges and the I/O maps' y ranges. */
function scales() {
	return window.iowReport.charts.map(c => ({
		kind: c.graph.kind, device: c.panel.device,
		x: [c.u.scales.x.min, c.u.scales.x.max],
		y: [c.u.scales.y.min, c.u.scales.y.max],
		unit: c.panel.unitMib || 1, lo: c.panel.lo, hi: c.panel.hi
	}));
}

async function run(browser) {
	const page = await browser.newPage();
	const errors = [], requests = [];
	let first = null;

	await page.setViewport({ width: 1400, height: 900 });
	await page.setRequestInterception(true);
	page.on('request', req => {
		if (first === null)
			first = req.url();
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
	await page.goto('file://' + report);
	await page.waitForFunction('window.iowReport && (window.iowReport.warm || window.iowReport.error)',
				   { timeout: 30000 });
	const err = await page.evaluate(() => window.iowReport.error);
	check('the page reads its numbers', !err, err);
	const before = await page.evaluate(layout);
	check('the comparison is a section of the report, under the header, above the table',
	      before.inside && before.order.indexOf('iow-compare') === 1 &&
	      before.order.indexOf('iow-table') === 2, before.order.join(' '));
	check('the section overlaps neither the table nor a panel, and fits the page',
	      before.section && !overlaps(before.section, before.table) &&
	      !before.panels.some(p => overlaps(before.section, p)) && !before.overflow,
	      JSON.stringify(before.section));
	if (shots) {
		fs.mkdirSync(shots, { recursive: true });
		await page.screenshot({ path: path.join(shots, 'compare-' + name + '.png'), fullPage: true });
	}

	/* a time window */
	const win = await page.evaluate(() => {
		const b = document.querySelector('#iow-compare [data-x0]');
		return b ? { x0: +b.dataset.x0, x1: +b.dataset.x1, text: b.textContent } : null;
	});
	if (expect.includes('window') || win)
		check(name + ': a time window is a button among the contributors', win);
	if (win) {
		await page.evaluate(() => {
			const d = document.querySelector('#iow-compare [data-x0]').closest('details');
			if (d)
				d.open = true;
		});
		await page.click('#iow-compare [data-x0]');
		await new Promise(r => setTimeout(r, 300));
		const view = await page.evaluate(() => window.iowReport.view());
		const doc = await page.evaluate(() => JSON.parse(document.getElementById('iow-doc').textContent).x);
		const want = [Math.max(doc[0], win.x0), Math.min(doc[1], win.x1)];
		check('clicking ' + win.text + ' zooms the page to its window (' +
		      want.map(v => v.toFixed(3)).join(' - ') + ' s)',
		      near(view[0], want[0]) && near(view[1], want[1]), JSON.stringify(view));
		const sc = await page.evaluate(scales);
		const off = sc.filter(s => !(near(s.x[0], view[0]) && near(s.x[1], view[1])));
		check('  every chart shows that window (' + sc.length + ' charts)',
		      sc.length && !off.length, JSON.stringify(off.slice(0, 3)));
		const after = await page.evaluate(layout);
		check('  no panel moves or changes size',
		      JSON.stringify(after.panels) === JSON.stringify(before.panels) &&
		      JSON.stringify(after.section) === JSON.stringify(before.section));
		if (shots)
			await page.screenshot({ path: path.join(shots, 'compare-' + name + '-window.png'), fullPage: true });
		await page.click('#iow-back');
		const back = await page.evaluate(() => window.iowReport.view());
		check('  Back returns to the whole run', near(back[0], doc[0]) && near(back[1], doc[1]),
		      JSON.stringify(back));
	}

	/* an offset band */
	const band = await page.evaluate(() => {
		const b = document.querySelector('#iow-compare [data-devs]');
		return b ? { devs: b.dataset.devs.split(' '), lo: +b.dataset.lo, hi: +b.dataset.hi,
			     text: b.textContent } : null;
	});
	if (expect.includes('band') || band)
		check(name + ': an offset band is a button among the contributors', band);
	if (band) {
		const whole = (await page.evaluate(scales)).filter(s => s.kind === 'map');
		/* it may be among the contributors folded away */
		await page.evaluate(() => {
			const d = document.querySelector('#iow-compare [data-devs]').closest('details');
			if (d)
				d.open = true;
		});
		await page.click('#iow-compare [data-devs]');
		await new Promise(r => setTimeout(r, 300));
		const maps = (await page.evaluate(scales)).filter(s => s.kind === 'map' &&
			band.devs.indexOf(s.device) >= 0);
		const bad = maps.filter(s => !(s.y[0] <= band.lo / s.unit + 1e-9 &&
			s.y[1] >= band.hi / s.unit - 1e-9 &&
			s.y[1] - s.y[0] <= 1.5 * (band.hi - band.lo) / s.unit + 1e-9));
		check('clicking ' + band.text + ' shows that band in ' + maps.length +
		      ' I/O map(s) of ' + band.devs.join(' '), maps.length && !bad.length,
		      JSON.stringify(bad.concat(maps).slice(0, 2)));
		const status = await page.evaluate(() => document.querySelector('.iow-status').textContent);
		check('  the status line says which band', /I\/O maps of/.test(status), status);
		if (shots) {
			const el = await page.$('.iow-panel[data-graph="io"]') || await page.$('.iow-panel');
			if (el)
				await el.screenshot({ path: path.join(shots, 'compare-' + name + '-band.png') });
		}
		await page.keyboard.press('Home');
		await new Promise(r => setTimeout(r, 300));
		const home = (await page.evaluate(scales)).filter(s => s.kind === 'map');
		check('  Home shows the whole device again',
		      JSON.stringify(home.map(s => s.y)) === JSON.stringify(whole.map(s => s.y)),
		      JSON.stringify(home.map(s => s.y)));
	}
	check('no console error', !errors.length, errors.join(' | '));
	check('no network request', !requests.length, requests.join(' '));
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
		await run(browser);
	} finally {
		await browser.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
})().catch(e => {
	fail('the browser run', String(e && e.stack || e));
	process.exitCode = 1;
});
