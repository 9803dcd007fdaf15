/*
 * report.js: the page of an iowatcher report (report.c writes it, with
 * this script and uPlot inside). It draws every graph of the picture
 * from the numbers report.c kept: series at several widths of bin, the
 * I/O map's cells at several widths of column, the bins' latency cells.
 * All time axes are linked: a drag on any graph zooms them all, and each
 * shows the finest level that fits its width; a double-click, Backspace
 * or the Back button goes back; the arrow keys pan and zoom. The cursor
 * shows every value under it; a legend entry or a chip hides what it
 * names in every graph. The summary's table on top follows the zoom as
 * far as the levels allow, says where it cannot, and gives the interval
 * it counts as an -x. Nothing moves on the page as it zooms or hovers.
 *
 * window.iowReport (for the tests and the curious): ready, firstPaintMs,
 * lastRedrawMs, view(), zoom(x0, x1), back(), charts.
 */
(function () {
'use strict';

var doc = JSON.parse(document.getElementById('iow-doc').textContent);
var root = document.getElementById('iow');
var api = window.iowReport = { ready: false, charts: [] };
var buf = null;			/* the block of numbers, inflated */
var state = {
	view: doc.x.slice(),	/* the time shown, s */
	history: [],		/* earlier views, for Back */
	hidden: {},		/* keys hidden everywhere */
	band: null,		/* {devs, lo, hi}: the I/O maps' offsets, MiB */
	cursorX: null
};
var CURSOR_KEY = 'iow';
var PANEL_H = 250;
var MIN_CELL_PX = 2.5;		/* map cells merged until this wide */
var HEAT_COLUMNS = 200;		/* heat maps merge to about this many */
var RASTER_ALPHA_MIN = 0.45;
var TICK_EPS = 1e-9;

/* ---- the block of numbers ---- */

function inflate(b64) {
	var bin = atob(b64), bytes = new Uint8Array(bin.length), i;

	for (i = 0; i < bin.length; i++)
		bytes[i] = bin.charCodeAt(i);
	var stream = new Blob([bytes]).stream()
		.pipeThrough(new DecompressionStream('deflate'));
	return new Response(stream).arrayBuffer();
}

function f32(ref) {
	return new Float32Array(buf, ref.o, ref.n);
}

function f64(ref) {
	return new Float64Array(buf, ref.o, ref.n);
}

/* A table of ref.n records, a plane per number (varints 'v' or bytes
 * 'b'): its planes, decoded once. */
var tableCache = new Map();
function table(ref) {
	var got = tableCache.get(ref.o);

	if (got)
		return got;
	var planes = [], at = ref.o;

	ref.k.split('').forEach(function (kind, j) {
		var bytes = new Uint8Array(buf, at, ref.p[j]);
		var out = new Float64Array(ref.n), p = 0, i = 0;

		at += ref.p[j];
		if (kind === 'b') {
			out.set(bytes.subarray(0, ref.n));
		} else {
			while (i < ref.n && p < bytes.length) {
				var v = 0, mul = 1, b;

				do {
					b = bytes[p++];
					v += (b & 127) * mul;
					mul *= 128;
				} while (b & 128);
				out[i++] = v;
			}
		}
		planes.push(out);
	});
	/* the first plane counts on from the record before (a column, a
	 * bin): where each record is, for a search by it */
	var abs = new Float64Array(ref.n), at0 = 0;

	for (var i = 0; i < ref.n; i++) {
		at0 += planes[0][i];
		abs[i] = at0;
	}
	planes.abs = abs;
	tableCache.set(ref.o, planes);
	return planes;
}

/* The first record of a table at or after v in its first plane. */
function firstAt(planes, v) {
	var lo = 0, hi = planes.abs.length;

	while (lo < hi) {
		var mid = (lo + hi) >> 1;

		if (planes.abs[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- numbers as the pictures write them ---- */

function decimalsFor(step) {
	step = Math.abs(step);
	if (!(step > 0) || !isFinite(step))
		return 0;
	for (var d = 0; d < 15; d++) {
		var s = step * Math.pow(10, d);

		if (Math.abs(s - Math.round(s)) <= 1e-6 * s)
			return d;
	}
	return 15;
}

function scaled(v, scale, step, sep, suffix) {
	var s = (v / scale).toFixed(Math.min(decimalsFor(step / scale), 6));

	if (s.indexOf('.') >= 0)
		s = s.replace(/0+$/, '').replace(/\.$/, '');
	if (s === '-0')
		s = '0';
	return s + (suffix ? sep + suffix : '');
}

/* The spacing a label resolves: the axis's, or three digits of v. */
function labelStep(v, step) {
	if (step > 0)
		return step;
	if (v === 0 || !isFinite(v))
		return 1;
	return Math.pow(10, Math.floor(Math.log10(Math.abs(v)) + TICK_EPS) - 2);
}

var TIME_UNITS = [[1, 's'], [1e-3, 'ms'], [1e-6, '\u00b5s'], [1e-9, 'ns']];

function fmtSeconds(v, step, mag) {
	var m = mag !== undefined ? mag : Math.abs(v), u = TIME_UNITS[3];

	if (v === 0 && mag === undefined)
		return '0 s';
	for (var i = 0; i < 3; i++)
		if (m >= (mag !== undefined ? 2 : 1) * TIME_UNITS[i][0] *
		    (1 - TICK_EPS)) {
			u = TIME_UNITS[i];
			break;
		}
	return scaled(v, u[0], labelStep(v, step), ' ', u[1]);
}

var BYTE_UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
var RATE_UNITS = ['B/s', 'kB/s', 'MB/s', 'GB/s', 'TB/s', 'PB/s', 'EB/s'];

/* A span of time, both ends in the unit of the later, to the digits
 * its length needs: "410.2 ms – 410.4 ms". */
function span(a, b) {
	var step = Math.pow(10, Math.floor(Math.log10(Math.max(b - a, 1e-12))));

	return fmtSeconds(a, step, 2 * Math.abs(b)) + ' \u2013 ' +
	       fmtSeconds(b, step, 2 * Math.abs(b));
}

function fmtBytes(v, step, mag) {
	var m = mag !== undefined ? mag : Math.abs(v), k = 0, s = 1;

	while (k + 1 < BYTE_UNITS.length && m / s >= 1000 * (1 - TICK_EPS)) {
		s *= 1024;
		k++;
	}
	return scaled(v, s, step > 0 ? step : labelStep(v / s, 0) * s, ' ',
		      BYTE_UNITS[k]);
}

function fmtRate(v, step, mag) {
	var m = (mag !== undefined ? mag : Math.abs(v)) * 1e6, k = 0, s = 1;

	while (k < 6 && m / s >= 1000 * (1 - TICK_EPS)) {
		s *= 1000;
		k++;
	}
	return scaled(v * 1e6, s, labelStep(v * 1e6, step * 1e6), ' ',
		      RATE_UNITS[k]);
}

function fmtSI(v, step) {
	var a = Math.abs(v), s = 1, p = 0, suffix = ['', 'K', 'M', 'G', 'T',
						    'P', 'E'];

	while (a >= 1000 * (1 - TICK_EPS) && p < 6) {
		a /= 1000;
		s *= 1000;
		p++;
	}
	return scaled(v, s, labelStep(v, step), '', suffix[p]);
}

/* A formatter of axis kind: (value, tick step or 0, axis magnitude). */
function formatter(axis) {
	switch (axis) {
	case 's':
		return fmtSeconds;
	case 'ns':
		return function (v, step, mag) {
			return fmtSeconds(v / 1e9, step / 1e9,
					  mag === undefined ? undefined : mag / 1e9);
		};
	case 'mbps':
		return fmtRate;
	case 'bytes':
		return fmtBytes;
	case 'pct':
		return function (v, step) {
			return fmtSI(v, step) + '%';
		};
	default:
		return fmtSI;
	}
}

function axisValues(fmt, log) {
	return function (u, splits, axisIdx, space, incr) {
		var mag = 0;

		splits.forEach(function (v) {
			if (v !== null && Math.abs(v) > mag)
				mag = Math.abs(v);
		});
		return splits.map(function (v) {
			return v === null ? '' :
				fmt(v, log ? 0 : incr, log ? undefined : mag);
		});
	};
}

/* ---- colours ---- */

function rgb(hex) {
	return [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16),
		parseInt(hex.slice(5, 7), 16)];
}

function color(k) {
	return doc.palette[((k % 24) + 24) % 24];
}

function rgba(hex, a) {
	var c = rgb(hex);

	return 'rgba(' + c[0] + ',' + c[1] + ',' + c[2] + ',' + a + ')';
}

function lighter(k) {
	return k % 8 + 8;
}

/* ---- levels ---- */

function traceLevels(t) {
	return doc.traces[t].levels;
}

/* The level of trace t for a view of span s on px pixels: the widest
 * with at least a bin every two pixels, else the finest. */
function pickLevel(levels, span, px) {
	for (var k = levels.length - 1; k >= 0; k--)
		if (span / levels[k].w >= px / 2)
			return k;
	return 0;
}

function origin(t) {
	return doc.traces[t].origin || 0;
}

/* Bins [i0, i1] of a level that a view [x0, x1] touches, one more each
 * side so that lines run to the frame. */
function binRange(lv, o, x0, x1) {
	var i0 = Math.max(0, Math.floor((x0 - o) / lv.w) - 1);
	var i1 = Math.min(lv.n - 1, Math.ceil((x1 - o) / lv.w) + 1);

	return [i0, i1];
}

/* ---- what is hidden ---- */

function classKey(trace, colorIndex) {
	return 'c' + trace + ':' + colorIndex;
}

function isHidden(trace, colorIndex, label) {
	var h = state.hidden, m;

	if (h['t' + trace] || h[classKey(trace, colorIndex)])
		return true;
	m = /device (\d+,\d+)/.exec(label || '');
	return !!(m && h['d' + m[1]]);
}

function toggle(key) {
	if (state.hidden[key])
		delete state.hidden[key];
	else
		state.hidden[key] = true;
	document.querySelectorAll('[data-key="' + key + '"]').forEach(
		function (el) {
			el.classList.toggle('iow-off', !!state.hidden[key]);
		});
	api.charts.forEach(function (c) {
		c.hide();
	});
}

/* ---- the panels ---- */

function el(tag, cls, text) {
	var e = document.createElement(tag);

	if (cls)
		e.className = cls;
	if (text !== undefined)
		e.textContent = text;
	return e;
}

/* Loss windows of the traces, hatched over every time panel. */
var hatch = null;
function drawLoss(u) {
	var ctx = u.ctx, b = u.bbox;

	if (!hatch) {
		var c = document.createElement('canvas');

		c.width = c.height = 8;
		var g = c.getContext('2d');

		g.fillStyle = 'rgba(217,38,26,0.12)';
		g.fillRect(0, 0, 8, 8);
		g.strokeStyle = 'rgba(179,26,13,0.35)';
		g.lineWidth = 1;
		g.beginPath();
		g.moveTo(0, 8);
		g.lineTo(8, 0);
		g.stroke();
		hatch = ctx.createPattern(c, 'repeat');
	}
	ctx.save();
	ctx.beginPath();
	ctx.rect(b.left, b.top, b.width, b.height);
	ctx.clip();
	doc.traces.forEach(function (t) {
		(t.loss || []).forEach(function (w) {
			var p0 = u.valToPos(w[0], 'x', true);
			var p1 = u.valToPos(w[1], 'x', true);

			if (p1 - p0 < 1) {
				p0 = (p0 + p1) / 2 - 0.5;
				p1 = p0 + 1;
			}
			ctx.fillStyle = hatch;
			ctx.fillRect(p0, b.top, p1 - p0, b.height);
		});
	});
	ctx.restore();
}

function drawNote(u, text) {
	var ctx = u.ctx, b = u.bbox;

	ctx.save();
	ctx.fillStyle = '#666';
	ctx.font = Math.round(13 * devicePixelRatio) + 'px sans-serif';
	ctx.textAlign = 'center';
	ctx.fillText(text, b.left + b.width / 2, b.top + b.height / 2);
	ctx.restore();
}

function panelBox(graph, panel, container) {
	var box = el('div', 'iow-panel');

	box.dataset.graph = graph.name;
	if (panel.device)
		box.dataset.device = panel.device;
	box.appendChild(el('div', 'iow-title', panel.title));
	container.appendChild(box);
	return box;
}

/* A graph of no time axis (the top files, the stacks' icicle): the
 * whole trace's picture, as the PNG output draws it; zoom leaves it. */
function pictureChart(graph, panel, container) {
	var box = el('div', 'iow-panel iow-picture');
	var img = el('img');

	box.dataset.graph = graph.name;
	img.alt = panel.title;
	img.src = 'data:image/png;base64,' + panel.png;
	box.appendChild(img);
	box.appendChild(el('div', 'iow-note', 'the whole trace'));
	container.appendChild(box);
	return null;
}

function plotWidth(box) {
	return Math.max(320, box.clientWidth - 4);
}

/* The options every time panel shares: the cursor synced, a drag that
 * zooms every panel, a double-click that goes back. */
function timeOpts(box, yAxis, extra) {
	var o = {
		width: plotWidth(box),
		height: PANEL_H,
		legend: { show: false },
		padding: [8, 24, 0, 4],
		cursor: {
			/* the cursor moves in every panel; a drag or a
			 * double-click is the panel's own (zoom tells the
			 * others) */
			sync: { key: CURSOR_KEY, setSeries: false,
				filters: { pub: function (type) {
					return type === 'mousemove' ||
					       type === 'mouseleave';
				}, sub: function () {
					return true;
				} } },
			drag: { x: true, y: false, setScale: false },
			points: { show: false },
			bind: {
				dblclick: function () {
					return function () {
						back();
						return null;
					};
				}
			}
		},
		scales: {
			x: { time: false, range: function () {
				return [state.view[0], state.view[1]];
			} }
		},
		axes: [
			{ values: axisValues(fmtSeconds, false), size: 36,
			  space: timeTickSpace, label: 'time', labelSize: 16 },
			yAxis
		],
		hooks: {
			setSelect: [function (u) {
				if (u.select.width < 3)
					return;
				var x0 = u.posToVal(u.select.left, 'x');
				var x1 = u.posToVal(u.select.left + u.select.width,
						    'x');

				u.setSelect({ left: 0, width: 0, top: 0,
					      height: 0 }, false);
				zoom(x0, x1);
			}],
			setCursor: [function (u) {
				if (u.cursor.left >= 0 && u.cursor.left !== null)
					hover(u.posToVal(u.cursor.left, 'x'));
				else
					hover(null);
			}]
		}
	};

	for (var k in extra)
		o[k] = extra[k];
	return o;
}

/* The time axis's room per tick: its widest label (about 7 px a
 * character at 12 px) and a gap, so that a zoom's long labels ("1000 ms",
 * "1050 ms") never run together. */
function timeTickSpace(u, axisIdx, min, max) {
	var step = Math.pow(10, Math.floor(Math.log10(Math.max((max - min) / 5,
							       1e-12))));
	var mag = Math.max(Math.abs(min), Math.abs(max));
	var n = Math.max(fmtSeconds(min, step, mag).length,
			 fmtSeconds(max, step, mag).length);

	return Math.max(50, Math.ceil(n * 7.5) + 20);
}

/* Room for the widest tick label, and the axis's own label. */
function axisSize(u, values) {
	var w = 0;

	if (!values)
		return 40;
	u.ctx.save();
	u.ctx.font = Math.round(12 * devicePixelRatio) + 'px sans-serif';
	values.forEach(function (v) {
		w = Math.max(w, u.ctx.measureText(String(v)).width);
	});
	u.ctx.restore();
	return Math.ceil(w / devicePixelRatio) + 14;
}

/* Ticks of a log axis: its decades, and 2 and 5 between them where the
 * axis spans few of them (as the pictures' log axes). */
function logSplits(u, axisIdx, min, max) {
	var out = [], e0 = Math.floor(Math.log10(min) - 1e-9);
	var e1 = Math.ceil(Math.log10(max) + 1e-9), e;
	var mults = e1 - e0 <= 2 ? [1, 2, 5] : e1 - e0 <= 4 ? [1, 3] : [1];

	for (e = e0; e <= e1; e++)
		mults.forEach(function (m) {
			var v = m * Math.pow(10, e);

			if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9))
				out.push(v);
		});
	return out;
}

/* A log range out to whole decades, or 1-2-5 steps when narrow. */
function logRange(lo, hi) {
	if (!(lo > 0) || !(hi > lo))
		return [1, 10];
	var a = Math.pow(10, Math.floor(Math.log10(lo))),
	    b = Math.pow(10, Math.ceil(Math.log10(hi)));

	if (b / a <= 100) {
		[5, 2].some(function (m) {
			return a * m <= lo ? (a *= m, true) : false;
		});
		[0.1, 0.2, 0.5].some(function (m) {
			return b * m >= hi ? (b *= m, true) : false;
		});
	}
	return [a, b];
}

/* Ticks of a bytes axis on 1-2-5 of the unit its labels are in. */
function byteSplits(u, axisIdx, min, max) {
	var m = Math.max(Math.abs(min), Math.abs(max)), s = 1, k = 0;

	while (k < 6 && m / s >= 1000) {
		s *= 1024;
		k++;
	}
	var raw = (max - min) / s / 5, p = Math.pow(10, Math.floor(Math.log10(raw)));
	var step = [1, 2, 5, 10].map(function (x) {
		return x * p;
	}).filter(function (x) {
		return x >= raw;
	})[0] * s;
	var out = [];

	for (var v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step)
		out.push(v);
	return out;
}

function yAxis(label, fmt, log, axis) {
	var a = { label: label, labelSize: 18, size: axisSize,
		  values: axisValues(fmt, log) };

	if (log)
		a.splits = logSplits;
	else if (axis === 'bytes')
		a.splits = byteSplits;
	return a;
}

/* ---- line graphs: series at levels ---- */

function seriesEmpty(s, percent) {
	var lv = s.d[s.d.length - 1], v = f32(lv);

	for (var i = 0; i < v.length; i++)
		if (!isNaN(v[i]) && (percent || v[i] !== 0))
			return false;
	return true;
}

/* The legend's entries: a line per class, its bands and max with it. */
function legendEntries(series) {
	var entries = [];

	series.forEach(function (s, i) {
		if (s.role === 'p90' || s.role === 'p99' || s.role === 'max' ||
		    s.role === 'hi' || s.empty)
			return;
		if (s.role === 'p50' && series.some(function (o, j) {
			return j < i && o.role === 'line' &&
			       o.trace === s.trace && o.color === s.color;
		}))
			return;
		entries.push(i);
	});
	return entries;
}

/* The series drawn with entry i's line: its bands and max. */
function entryMembers(series, i) {
	var s = series[i];

	return series.map(function (o, j) {
		return j;
	}).filter(function (j) {
		var o = series[j];

		return j === i || (o.trace === s.trace && o.color === s.color &&
			(o.role === 'p50' || o.role === 'p90' ||
			 o.role === 'p99' || o.role === 'max' ||
			 (s.role === 'lo' && o.role === 'hi')) &&
			(j > i || s.role === 'line'));
	});
}

/*
 * The legend (an entry per class: a click hides it everywhere) and the
 * cursor's readouts: a line per entry, its values, in a box that floats
 * over the plot (placeReadout). The legend never holds a value, so that
 * a hover re-wraps nothing and moves no panel. Returns the value
 * elements by series index, and the box as values.box.
 */
function makeLegend(box, series, fmt) {
	var legend = el('div', 'iow-legend');
	var readout = el('div', 'iow-readout');
	var entries = legendEntries(series);
	var values = {};

	entries.forEach(function (i) {
		var s = series[i];
		var item = el('span', 'iow-entry');
		var key = classKey(s.trace, s.color);
		var line = el('div', 'iow-readline');

		item.dataset.key = key;
		line.dataset.key = key;
		item.appendChild(swatch(s));
		line.appendChild(swatch(s));
		var members = entryMembers(series, i);
		var banded = members.some(function (j) {
			return series[j].role === 'p99';
		});

		item.appendChild(el('span', 'iow-label', s.label +
				    (banded ? ', p50-p90-p99 band, max' : '')));
		line.appendChild(el('span', 'iow-label', s.label));
		members.forEach(function (j) {
			var v = el('span', 'iow-value');

			v.dataset.series = series[j].label;
			v.dataset.role = series[j].role;
			values[j] = v;
			line.appendChild(v);
		});
		item.title = 'click: hide or show this in every graph';
		item.addEventListener('click', function () {
			toggle(key);
		});
		if (state.hidden[key]) {
			item.classList.add('iow-off');
			line.classList.add('iow-off');
		}
		legend.appendChild(item);
		readout.appendChild(line);
	});
	box.appendChild(legend);
	box.appendChild(readout);
	Object.defineProperty(values, 'box', { value: readout });
	return values;
}

function swatch(s) {
	var sw = el('span', 'iow-swatch');

	sw.style.background = color(s.color);
	if (s.cycle === 1 || s.role === 'dotted')
		sw.classList.add(s.role === 'dotted' ? 'iow-dotted' :
				 'iow-dashed');
	return sw;
}

/* The readouts' box at the top of the plot, on the side away from the
 * cursor (at fraction f of the plot's width), or hidden (f null). */
function placeReadout(chart, readout, f) {
	if (f === null) {
		readout.style.visibility = 'hidden';
		return;
	}
	var o = chart.u.over.getBoundingClientRect();
	var b = chart.box.getBoundingClientRect();
	var side = f < 0.5 ? 'right' : 'left';
	var gap = f < 0.5 ? b.right - o.right : o.left - b.left;

	readout.style.top = Math.round(o.top - b.top + 4) + 'px';
	readout.style[side === 'left' ? 'right' : 'left'] = '';
	readout.style[side] = Math.round(gap + 4) + 'px';
	/* a wide one goes over the axis rather than out of the panel */
	var w = readout.getBoundingClientRect().width;

	if (gap + 4 + w > b.width - 4)
		readout.style[side] = Math.max(4, Math.round(b.width - w - 4)) + 'px';
	readout.style.visibility = 'visible';
}

/* The values shown empty, as before any hover. */
function clearValues(values) {
	Object.keys(values).forEach(function (j) {
		var v = values[j];

		v.textContent = '';
		delete v.dataset.value;
		delete v.dataset.t0;
		delete v.dataset.level;
	});
}

function lineChart(graph, panel, container) {
	var box = panelBox(graph, panel, container);
	var series = panel.series;
	var percent = graph.axis === 'pct';
	var fmt = formatter(graph.axis);
	var log = panel.log;
	var chart = { box: box, graph: graph, panel: panel };

	series.forEach(function (s) {
		s.empty = seriesEmpty(s, percent);
	});
	var uSeries = [{}], bands = [];
	var stackBase = {};

	series.forEach(function (s, i) {
		var c = color(s.color), o = { label: s.label, points: { show: false },
					      spanGaps: false };

		switch (s.role) {
		case 'line':
		case 'dotted':
			o.stroke = c;
			o.width = 1.6;
			o.points = { show: true, size: 5, fill: c, stroke: c,
				     filter: lonePoints };
			if (s.cycle === 1)
				o.dash = [6, 3];
			if (s.cycle === 2 || s.role === 'dotted') {
				o.dash = [1.5, 2.5];
				o.cap = 'round';
			}
			break;
		case 'max':
			o.stroke = color(lighter(s.color));
			o.width = 0.8;
			o.dash = [6, 3];
			break;
		case 'step':
			o.stroke = c;
			o.width = 1.6;
			o.paths = uPlot.paths.stepped({ align: 1 });
			break;
		case 'p50':
			/* a line of its own where no p99 edge follows (size) */
			if (!series.some(function (x, j) {
				return j > i && x.role === 'p99' &&
				       x.trace === s.trace && x.color === s.color;
			})) {
				o.stroke = c;
				o.width = 1.6;
			} else {
				o.stroke = 'transparent';
				o.width = 0;
			}
			break;
		default:
			o.stroke = 'transparent';
			o.width = 0;
		}
		uSeries.push(o);
		/* bands: p50..p90 darker, p90..p99 lighter, lo..hi, stacks */
		var next = function (role) {
			for (var j = i + 1; j < series.length; j++)
				if (series[j].role === role &&
				    series[j].trace === s.trace &&
				    series[j].color === s.color)
					return j;
			return -1;
		};
		var up = s.role === 'p50' ? next('p90') :
			 s.role === 'p90' ? next('p99') :
			 s.role === 'lo' ? next('hi') : -1;

		if (up >= 0)
			bands.push({ series: [up + 1, i + 1],
				     fill: rgba(c, s.role === 'p50' ? 0.30 :
						s.role === 'lo' ? 0.2 : 0.15),
				     from: s });
		if (s.role === 'stack') {
			var below = stackBase[s.trace];

			stackBase[s.trace] = i;
			bands.push({ series: [i + 1, below === undefined ? -1 :
					      below + 1],
				     fill: rgba(c, 0.75), from: s, stack: true });
		}
	});
	var values = makeLegend(box, series, fmt);
	var note = el('div', 'iow-note');

	box.appendChild(note);
	var opts = timeOpts(box, yAxis(panel.y + (log ? ' (log scale)' : ''),
				       fmt, log, graph.axis), {
		series: uSeries,
		bands: bands.filter(function (b) {
			return b.series[1] >= 0;
		}).map(function (b) {
			return { series: b.series, fill: b.fill };
		})
	});
	opts.scales.y = log ? { distr: 3, range: function () {
		return chart.yRange;
	} } : { range: function () {
		return chart.yRange;
	} };
	opts.hooks.drawClear = [function (u) {
		/* stacks on the floor: from 0 (or the log axis's bottom) */
		bands.forEach(function (b) {
			if (!b.stack || b.series[1] >= 0 || !u.series[b.series[0]].show)
				return;
			fillToFloor(u, b.series[0], b.fill);
		});
	}];
	opts.hooks.draw = [function (u) {
		drawLoss(u);
		if (chart.empty)
			drawNote(u, graph.empty);
	}];
	chart.u = new uPlot(opts, [[]].concat(series.map(function () {
		return [];
	})), box);
	chart.values = values;
	chart.update = function () {
		var px = chart.u.bbox.width / devicePixelRatio;
		var span = state.view[1] - state.view[0];
		var picks = {}, xs = null, joined;
		var tables = [];

		/* each trace at its own level; traces of one grid share x */
		series.forEach(function (s) {
			if (picks[s.trace] === undefined)
				picks[s.trace] = pickLevel(traceLevels(s.trace),
							   span, px);
		});
		chart.picks = picks;
		var grids = {};

		Object.keys(picks).forEach(function (t) {
			var lv = traceLevels(t)[picks[t]];
			var key = lv.w + '/' + lv.n + '/' + origin(t);
			var r = binRange(lv, origin(t), state.view[0],
					 state.view[1]);

			if (!grids[key])
				grids[key] = { lv: lv, o: origin(+t), r: r,
					       cols: [] };
			grids[key].traces = (grids[key].traces || []).concat(+t);
		});
		var stackSum = {};

		series.forEach(function (s, i) {
			var t = s.trace, lv = traceLevels(t)[picks[t]];
			var g = grids[lv.w + '/' + lv.n + '/' + origin(t)];
			var v = f32(s.d[picks[t]]), out = [];
			var hide = isHidden(t, s.color, s.label) || s.empty;

			for (var k = g.r[0]; k <= g.r[1]; k++) {
				var y = v[k];

				if (isNaN(y) || hide)
					y = null;
				else if (s.role === 'stack') {
					var base = stackSum[t] ? stackSum[t][k - g.r[0]]
							       : 0;

					y += base || 0;
				}
				if (log && y !== null && !(y > 0))
					y = null;
				out.push(y);
			}
			if (s.role === 'stack')
				stackSum[t] = out.map(function (y, j) {
					return y === null ? (stackSum[t] ?
						stackSum[t][j] : 0) : y;
				});
			g.cols.push([i, out]);
		});
		/* one x per grid, joined where the traces' grids differ */
		Object.keys(grids).forEach(function (key) {
			var g = grids[key], x = [];

			for (var k = g.r[0]; k <= g.r[1]; k++)
				x.push(g.o + (k + 0.5) * g.lv.w);
			var table = [x];
			var order = [];

			g.cols.forEach(function (c) {
				table.push(c[1]);
				order.push(c[0]);
			});
			tables.push({ table: table, order: order });
		});
		var data = [];

		if (!tables.length) {
			data = [[]];
		} else if (tables.length === 1) {
			data = [tables[0].table[0]];
			tables[0].order.forEach(function (i, j) {
				data[i + 1] = tables[0].table[j + 1];
			});
		} else {
			joined = uPlot.join(tables.map(function (t) {
				return t.table;
			}));
			data = [joined[0]];
			var col = 1;

			tables.forEach(function (t) {
				t.order.forEach(function (i) {
					data[i + 1] = joined[col++];
				});
			});
		}
		for (var i = 1; i <= series.length; i++)
			if (!data[i])
				data[i] = data[0].map(function () {
					return null;
				});
		chart.hasData = data.slice(1).some(function (col) {
			return col.some(function (v) {
				return v !== null && v !== undefined;
			});
		});
		chart.yRange = yRange(series, data, log, percent);
		/* nothing in view on a log axis: the whole run's, not 1-10 */
		if (log && !chart.hasData)
			chart.yRange = chart.wholeY || chart.yRange;
		if (!chart.wholeY && chart.hasData)
			chart.wholeY = chart.yRange;
		chart.empty = !series.some(function (s) {
			return !s.empty;
		});
		chart.data = data;
		chart.grids = grids;
		chart.u.batch(function () {
			chart.u.setData(data, false);
			chart.u.setScale('x', { min: state.view[0],
						 max: state.view[1] });
		});
		var lvNames = Object.keys(grids).map(function (k) {
			return fmtSeconds(grids[k].lv.w, 0);
		});

		chart.binsText = 'bins: ' + lvNames.join(', ');
		note.textContent = chart.binsText;
		box.dataset.level = Object.keys(picks).map(function (t) {
			return picks[t];
		}).join(',');
		box.dataset.binWidth = Object.keys(grids).map(function (k) {
			return grids[k].lv.w;
		}).join(',');
	};
	chart.hide = chart.update;
	chart.hover = function (x) {
		var shownBin = null;

		if (x === null) {
			clearValues(values);
			placeReadout(chart, values.box, null);
			note.textContent = chart.binsText;
			return;
		}
		Object.keys(values).forEach(function (j) {
			var s = series[j], t = s.trace;
			var lv = traceLevels(t)[chart.picks[t]];
			var k = Math.floor((x - origin(t)) / lv.w), v = NaN;
			var ve = values[j];

			if (k >= 0 && k < lv.n)
				v = f32(s.d[chart.picks[t]])[k];
			ve.dataset.value = isNaN(v) ? '' : String(v);
			ve.dataset.t0 = String(origin(t) + k * lv.w);
			ve.dataset.level = String(chart.picks[t]);
			ve.textContent = isNaN(v) ? '' :
				(s.role === 'line' || s.role === 'stack' ||
				 s.role === 'step' || s.role === 'dotted' ||
				 s.role === 'lo' ? '' : ' ' + roleName(s)) + ' ' +
				fmt(v, 0);
			if (shownBin === null && k >= 0 && k < lv.n)
				shownBin = [origin(t) + k * lv.w,
					    origin(t) + (k + 1) * lv.w];
		});
		note.textContent = shownBin ? 'bin ' + span(shownBin[0], shownBin[1]) : '';
		placeReadout(chart, values.box, viewFraction(x));
	};
	return chart;
}

/* A value with no neighbour would draw nothing as a line: a dot. */
function lonePoints(u, si) {
	var y = u.data[si], out = [];

	if (!y)
		return null;
	for (var i = 0; i < y.length; i++)
		if (y[i] !== null && y[i] !== undefined &&
		    (i === 0 || y[i - 1] === null || y[i - 1] === undefined) &&
		    (i + 1 === y.length || y[i + 1] === null ||
		     y[i + 1] === undefined))
			out.push(i);
	return out;
}

function roleName(s) {
	var m = /(p50|p90|p99|max|median)$/.exec(s.label);

	return m ? m[1] : s.role;
}

/* y from 0 (or the log axis's bottom) to the top of what is shown, as
 * the pictures do (max lines may go off the top). */
function yRange(series, data, log, percent) {
	var top = 0, lo = Infinity;

	series.forEach(function (s, i) {
		var col = data[i + 1] || [];

		col.forEach(function (v) {
			if (v === null || v === undefined)
				return;
			if (v > 0 && v < lo)
				lo = v;
			if (s.role !== 'max' && v > top)
				top = v;
		});
	});
	if (log)
		return logRange(lo, top * 1.5);
	if (percent)
		return [0, top > 50 ? 100 : top > 0 ? top * 1.05 : 1];
	return [0, top > 0 ? top * 1.05 : 1];
}

/* A stack's lowest band: from the axis's floor up to its edge (as
 * steps: each value held to the next x). */
function fillToFloor(u, si, fill, stepped) {
	var d = u.data, ctx = u.ctx, b = u.bbox, y = d[si], x = d[0];
	var floorPx = b.top + b.height, started = false, lastPy = null;

	ctx.save();
	ctx.beginPath();
	ctx.rect(b.left, b.top, b.width, b.height);
	ctx.clip();
	ctx.fillStyle = fill;
	ctx.beginPath();
	for (var i = 0; i < x.length; i++) {
		if (y[i] === null || y[i] === undefined) {
			if (started) {
				ctx.lineTo(u.valToPos(x[i - 1], 'x', true), floorPx);
				ctx.closePath();
				started = false;
			}
			continue;
		}
		var px = u.valToPos(x[i], 'x', true), py = u.valToPos(y[i], 'y', true);

		if (!started) {
			ctx.moveTo(px, floorPx);
			started = true;
		} else if (stepped && lastPy !== null) {
			ctx.lineTo(px, lastPy);
		}
		ctx.lineTo(px, py);
		lastPy = py;
	}
	if (started) {
		ctx.lineTo(u.valToPos(x[x.length - 1], 'x', true), floorPx);
		ctx.closePath();
	}
	ctx.fill();
	ctx.restore();
}

/* ---- series with x of their own: mpstat, fio, latency histograms ---- */

/* Samples that each average a span (mpstat's seconds; x at the span's
 * middle), as steps: x becomes each span's start, with the last span's
 * end after it holding the last value, for paths drawn stepped. */
function spanSteps(s, span) {
	var n = s.x.length, x = new Float64Array(n ? n + 1 : 0),
	    y = new Float64Array(n ? n + 1 : 0);

	for (var i = 0; i < n; i++) {
		x[i] = s.x[i] - span / 2;
		y[i] = s.y[i];
	}
	if (n) {
		x[n] = s.x[n - 1] + span / 2;
		y[n] = s.y[n - 1];
	}
	s.x = x;
	s.y = y;
}

/* The top of a panel's values, its stacks added up sample by sample. */
function ownTop(panel) {
	var top = 0, sum = {};

	panel.series.forEach(function (s) {
		var y = s.y instanceof Float64Array ? s.y : f64(s.y);

		if (s.role === 'stack' && !sum[s.trace])
			sum[s.trace] = [];
		for (var j = 0; j < y.length; j++) {
			var v = y[j];

			if (isNaN(v))
				continue;
			if (s.role === 'stack')
				v = sum[s.trace][j] = (sum[s.trace][j] || 0) + v;
			if (v > top)
				top = v;
		}
	});
	return top;
}

function ownChart(graph, panel, container) {
	var box = panelBox(graph, panel, container);
	var series = panel.series, fmt = formatter(graph.axis);
	var hist = graph.kind === 'hist';
	var chart = { box: box, graph: graph, panel: panel };
	var stepped = graph.xSpan > 0;

	/* panels that compare (a trace each) share one scale */
	if (graph.shareY && graph.sharedTop === undefined)
		graph.sharedTop = Math.max.apply(null, graph.panels.map(ownTop));
	series.forEach(function (s) {
		s.x = f64(s.x);
		s.y = f64(s.y);
		if (stepped)
			spanSteps(s, graph.xSpan);
		s.empty = !Array.prototype.some.call(s.y, function (v) {
			return !isNaN(v) && (graph.axis === 'pct' || v !== 0);
		});
	});
	/* one table of every series' x, joined */
	var tables = series.map(function (s) {
		return [Array.from(s.x), Array.from(s.y, function (v) {
			return isNaN(v) ? null : v;
		})];
	});
	var data = tables.length ? uPlot.join(tables) : [[]];
	var uSeries = [{}], bands = [], stackBase = {};

	series.forEach(function (s, i) {
		var c = color(s.color), o = { label: s.label, stroke: c,
					      width: 1.6, points: { show: false } };

		if (s.role === 'step' || stepped)
			o.paths = uPlot.paths.stepped({ align: 1 });
		if (s.role === 'lo' || s.role === 'hi' || s.role === 'stack')
			o.stroke = 'transparent';
		if (s.cycle === 1)
			o.dash = [6, 3];
		uSeries.push(o);
		if (s.role === 'lo' && series[i + 1] && series[i + 1].role === 'hi')
			bands.push({ series: [i + 2, i + 1], fill: rgba(c, 0.2) });
		if (s.role === 'stack') {
			var below = stackBase[s.trace];

			stackBase[s.trace] = i;
			if (below !== undefined)
				bands.push({ series: [i + 1, below + 1],
					     fill: rgba(c, 0.75) });
			else
				s.floor = true;
		}
	});
	/* stacks add up, sample by sample */
	var sum = {};

	series.forEach(function (s, i) {
		if (s.role !== 'stack')
			return;
		var col = data[i + 1];

		if (!sum[s.trace])
			sum[s.trace] = col.map(function () {
				return 0;
			});
		data[i + 1] = col.map(function (v, j) {
			if (v === null || v === undefined)
				return v;
			sum[s.trace][j] += v;
			return sum[s.trace][j];
		});
	});
	chart.raw = tables;
	var values = makeLegend(box, series, fmt);
	var note = el('div', 'iow-note');

	box.appendChild(note);
	/* its x is not time: it does not zoom, and says so */
	if (hist)
		note.textContent = 'the whole run';
	var top = 0;

	series.forEach(function (s, i) {
		data[i + 1].forEach(function (v) {
			if (v !== null && v !== undefined && v > top)
				top = v;
		});
	});
	if (graph.shareY && graph.sharedTop > top)
		top = graph.sharedTop;
	var opts;
	var yA = yAxis(panel.y, fmt, false, graph.axis);

	if (hist) {
		opts = {
			width: plotWidth(box), height: PANEL_H,
			legend: { show: false }, padding: [8, 24, 0, 4],
			cursor: { points: { show: false }, drag: { x: false, y: false } },
			scales: { x: { time: false, distr: 3 }, y: {
				range: [0, top > 0 ? top * 1.05 : 1] } },
			axes: [{ label: graph.xLabel, labelSize: 16, size: 36,
				 values: axisValues(formatter(graph.xAxis), true) },
			       yA],
			hooks: { setCursor: [function (u) {
				if (u.cursor.left === null || u.cursor.left < 0)
					clearOwn();
				else if (u.cursor.idx !== null &&
					 u.cursor.idx !== undefined)
					showOwn(u.cursor.idx, u.cursor.left /
						(u.bbox.width / devicePixelRatio));
			}] }
		};
	} else {
		opts = timeOpts(box, yA, {});
		opts.scales.y = { range: graph.axis === 'pct' ?
			[0, top > 50 ? 100 : top > 0 ? top * 1.05 : 1] :
			[0, top > 0 ? top * 1.05 : 1] };
		opts.hooks.draw = [drawLoss];
	}
	opts.series = uSeries;
	opts.bands = bands;
	opts.hooks.drawClear = [function (u) {
		series.forEach(function (s, i) {
			if (s.floor && u.series[i + 1].show)
				fillToFloor(u, i + 1, rgba(color(s.color), 0.75),
					    stepped);
		});
	}];
	chart.u = new uPlot(opts, data, box);
	function showOwn(idx, f) {
		Object.keys(values).forEach(function (j) {
			var x = data[0][idx];
			var t = tables[j], k = t[0].indexOf(x);
			var v = k >= 0 ? t[1][k] : null;

			values[j].dataset.value = v === null ? '' : String(v);
			values[j].textContent = v === null ? '' : ' ' + fmt(v, 0);
		});
		if (hist)
			note.textContent = 'bucket from ' +
				formatter(graph.xAxis)(data[0][idx], 0);
		placeReadout(chart, values.box, f);
	}
	function clearOwn() {
		clearValues(values);
		placeReadout(chart, values.box, null);
		note.textContent = hist ? 'the whole run' : '';
	}
	chart.update = function () {
		if (!hist)
			chart.u.setScale('x', { min: state.view[0],
						 max: state.view[1] });
	};
	chart.hide = function () {
		series.forEach(function (s, i) {
			chart.u.setSeries(i + 1, { show: !isHidden(s.trace,
				s.color, s.label) && !s.empty });
		});
	};
	chart.hover = function (x) {
		if (hist)
			return;
		if (x === null) {
			clearOwn();
			return;
		}
		var best = -1, dist = Infinity;

		data[0].forEach(function (v, i) {
			if (Math.abs(v - x) < dist) {
				dist = Math.abs(v - x);
				best = i;
			}
		});
		if (best >= 0)
			showOwn(best, viewFraction(x));
	};
	return chart;
}

/* ---- rasters: the I/O map, heat maps, the scatter ---- */

/* 0 for a count of 1, 1 for the largest, log-spaced between. */
function countLevel(c, max) {
	if (max <= 1 || c >= max)
		return 1;
	return Math.log(c) / Math.log(max);
}

/* A grid of cols x rows painted into the plot area from x0..x1 and the
 * rows' values y0..y1 (row 0 at the bottom). */
var SPARSE_DOT_RADIUS = 2.6, SPARSE_MAX_COVER = 0.12;

function paintGrid(u, cols, rows, pixel, x0, x1, y0, y1, dots) {
	if (!(cols > 0) || !(rows > 0))
		return;
	var img = new ImageData(cols, rows), d = img.data, lit = [];

	for (var r = 0; r < rows; r++)
		for (var c = 0; c < cols; c++) {
			var p = pixel(c, r);

			if (!p)
				continue;
			var o = ((rows - 1 - r) * cols + c) * 4;

			d[o] = p[0];
			d[o + 1] = p[1];
			d[o + 2] = p[2];
			d[o + 3] = p[3];
			lit.push([c, r, p]);
		}
	if (dots && paintDots(u, lit, cols, rows, x0, x1, y0, y1))
		return;
	var canvas = document.createElement('canvas');

	canvas.width = cols;
	canvas.height = rows;
	canvas.getContext('2d').putImageData(img, 0, 0);
	var b = u.bbox, ctx = u.ctx;
	var px0 = u.valToPos(x0, 'x', true), px1 = u.valToPos(x1, 'x', true);
	var py0 = u.valToPos(y0, 'y', true), py1 = u.valToPos(y1, 'y', true);

	ctx.save();
	ctx.beginPath();
	ctx.rect(b.left, b.top, b.width, b.height);
	ctx.clip();
	ctx.imageSmoothingEnabled = false;
	ctx.drawImage(canvas, px0, py1, px1 - px0, py0 - py1);
	ctx.restore();
}

/*
 * A raster of few cells (a few I/Os in a long view) would be specks: its
 * cells are drawn at least a dot's size, opaque enough to find, while
 * they cover little of the plot (as the pictures do). A cell wider or
 * taller than the dot keeps its own edges that way, so a run of cells
 * stays a run at any zoom (no gaps the events do not have). Returns
 * whether it drew.
 */
function paintDots(u, lit, cols, rows, x0, x1, y0, y1) {
	var b = u.bbox, ctx = u.ctx, r = SPARSE_DOT_RADIUS * devicePixelRatio;
	var px0 = u.valToPos(x0, 'x', true), px1 = u.valToPos(x1, 'x', true);
	var py0 = u.valToPos(y0, 'y', true), py1 = u.valToPos(y1, 'y', true);
	var cw = (px1 - px0) / cols, ch = (py0 - py1) / rows;

	if (lit.length * Math.max(Math.PI * r * r, cw * Math.max(ch, 2 * r)) >
	    SPARSE_MAX_COVER * b.width * b.height)
		return false;
	ctx.save();
	ctx.beginPath();
	ctx.rect(b.left, b.top, b.width, b.height);
	ctx.clip();
	lit.forEach(function (l) {
		var x = px0 + (l[0] + 0.5) * cw;
		var y = py0 - (l[1] + 0.5) * ch;

		ctx.fillStyle = 'rgba(' + l[2][0] + ',' + l[2][1] + ',' + l[2][2] +
			',0.85)';
		if (cw < 2 * r && ch < 2 * r) {
			x = Math.min(Math.max(x, b.left + r), b.left + b.width - r);
			y = Math.min(Math.max(y, b.top + r), b.top + b.height - r);
			ctx.beginPath();
			ctx.arc(x, y, r, 0, 2 * Math.PI);
			ctx.fill();
			return;
		}
		var xs = cellEdges(px0, cw, l[0], 2 * r);
		var ys = cellEdges(py1, ch, rows - 1 - l[1], 2 * r);

		ctx.fillRect(xs[0], ys[0], xs[1] - xs[0], ys[1] - ys[0]);
	});
	ctx.restore();
	return true;
}

/* Cell i's edges on a grid from p0 by steps of w, in whole pixels (the
 * next cell's first edge is this one's last: no seam, no overlap), or,
 * a cell narrower than min, min about its middle. */
function cellEdges(p0, w, i, min) {
	if (w < min) {
		var mid = p0 + (i + 0.5) * w;

		return [Math.round(mid - min / 2), Math.round(mid + min / 2)];
	}
	return [Math.round(p0 + i * w), Math.round(p0 + (i + 1) * w)];
}

function mixOf(a, b, share) {
	var m = doc.mixes[a + ',' + b];

	return m ? rgb(m[Math.round(share * 32)]) : rgb(color(doc.classes[a].color));
}

/* The I/O map of one device: every trace's cells in their classes'
 * colours, two classes in a cell in their mix. */
function mapChart(graph, panel, container, bytes) {
	var box = panelBox(graph, panel, container);
	var chart = { box: box, graph: graph, panel: panel };
	var unit = panel.unitMib || 1, lo = panel.lo / unit, hi = panel.hi / unit;

	if (!(hi > lo)) {
		lo = 0;
		hi = 1;
	}
	var legend = el('div', 'iow-legend'), readout = el('div', 'iow-note');
	var seen = {}, pairs = {};

	/* the classes with I/O here, and the pairs that share cells: the
	 * legend names every colour drawn, mixes too */
	panel.maps.forEach(function (m) {
		var levels = doc.traces[m.trace].maps[m.slot].levels;
		var cells = table(levels[levels.length - 1].cells);
		var col = 0, last = -1, lastRow = -1, lastCls = 0;

		for (var i = 0; i < cells[0].length; i++) {
			var cls = cells[2][i];

			col += cells[0][i];
			if (cls)
				seen[cls - 1] = true;
			if (col === last && cells[1][i] === lastRow && cls &&
			    lastCls && cls !== lastCls) {
				var key = Math.min(cls, lastCls) - 1 + ',' +
					  (Math.max(cls, lastCls) - 1);

				pairs[key] = (pairs[key] || 0) + 1;
			}
			last = col;
			lastRow = cells[1][i];
			lastCls = cls;
		}
	});
	if (!bytes)
		Object.keys(seen).forEach(function (ci) {
			var c = doc.classes[ci], item = el('span', 'iow-entry');
			var sw = el('span', 'iow-swatch'), key = classKey(c.trace, c.color);

			sw.style.background = color(c.color);
			item.dataset.key = key;
			item.appendChild(sw);
			item.appendChild(el('span', 'iow-label', c.label));
			item.addEventListener('click', function () {
				toggle(key);
			});
			legend.appendChild(item);
		});
	if (!bytes)
		Object.keys(pairs).sort(function (a, b) {
			return pairs[b] - pairs[a];
		}).slice(0, 2).forEach(function (key) {
			var ab = key.split(','), item = el('span', 'iow-entry');
			var sw = el('span', 'iow-swatch'), m = doc.mixes[key];
			var skip = doc.traces.length > 1 ?
				doc.traces[doc.classes[ab[0]].trace].label.length + 1 : 0;

			sw.style.background = m ? m[16] : '#888';
			item.appendChild(sw);
			item.appendChild(el('span', 'iow-label',
				doc.classes[ab[0]].label + ' + ' +
				doc.classes[ab[1]].label.slice(skip)));
			legend.appendChild(item);
		});
	else
		legend.appendChild(el('span', 'iow-label', 'bytes per cell: '));
	var bar = el('span', 'iow-colorbar');

	if (bytes)
		legend.appendChild(bar);
	box.appendChild(legend);
	box.appendChild(readout);
	var opts = timeOpts(box, yAxis(panel.y, fmtSI, false, 'number'), {
		series: [{}, { stroke: 'transparent', label: 'offset' }]
	});
	/* the device's whole range, or a band a comparison's contributor
	 * showed (with a quarter of its width of context each side) */
	chart.yRange = function () {
		var b = state.band;

		if (!b || b.devs.indexOf(panel.device) < 0)
			return [lo, hi];
		var m = (b.hi - b.lo) / 4;

		return [Math.max(lo, (b.lo - m) / unit), Math.min(hi, (b.hi + m) / unit)];
	};
	opts.scales.y = { auto: false, range: function () {
		return chart.yRange();
	} };
	opts.hooks.draw = [function (u) {
		chart.paint(u);
		drawLoss(u);
		drawBand(u, panel, unit);
		if (!panel.maps.length)
			drawNote(u, 'no I/O of this action in range');
	}];
	chart.u = new uPlot(opts, [[state.view[0], state.view[1]], [null, null]],
			    box);
	chart.grids = [];
	chart.compute = function () {
		var px = chart.u.bbox.width / devicePixelRatio;
		var py = chart.u.bbox.height / devicePixelRatio;
		var span = state.view[1] - state.view[0];

		chart.grids = panel.maps.map(function (m) {
			var map = doc.traces[m.trace].maps[m.slot];
			var levels = map.levels, k = 0, j;

			/* the widest level whose columns are still at most
			 * MIN_CELL_PX wide, else the finest */
			for (j = levels.length - 1; j >= 0; j--)
				if (px * levels[j].w / span <= MIN_CELL_PX) {
					k = j;
					break;
				}
			var lv = levels[k], o = origin(m.trace);
			var fx = Math.max(1, Math.ceil(MIN_CELL_PX * span /
						       (px * lv.w)));
			var rowUnit = map.rowBytes / 1048576 / unit;
			var rowLo = map.rowLo / 1048576 / unit;
			var fy = Math.max(1, Math.ceil(MIN_CELL_PX /
						       (py * rowUnit / (hi - lo))));
			var c0 = Math.max(0, Math.floor((state.view[0] - o) / lv.w));
			var c1 = Math.min(lv.cols, Math.ceil((state.view[1] - o) / lv.w));

			c0 -= c0 % fx;
			var cols = Math.max(0, Math.ceil((c1 - c0) / fx));
			var rows = Math.ceil(256 / fy);
			var cells = table(lv.cells), abs = cells.abs;
			var nc = doc.classes.length + 1;
			var grid = new Float64Array(Math.max(cols * rows * (bytes ? 1 : nc), 1));
			var shown = doc.classes.map(function (c) {
				return !isHidden(c.trace, c.color, c.label);
			});

			for (var i = firstAt(cells, c0); i < abs.length; i++) {
				var col = abs[i];

				if (col >= c0 + cols * fx)
					break;
				var cls = cells[2][i], cell = Math.floor((col - c0) / fx) +
					Math.floor(cells[1][i] / fy) * cols;

				if (bytes) {
					grid[cell] += cells[4][i];
					continue;
				}
				if (!cls || !shown[cls - 1])
					continue;
				grid[cell * nc + cls] += cells[3][i];
			}
			return { grid: grid, cols: cols, rows: rows, nc: nc,
				 x0: o + c0 * lv.w, x1: o + (c0 + cols * fx) * lv.w,
				 y0: rowLo, y1: rowLo + rows * fy * rowUnit,
				 w: lv.w * fx, rowUnit: rowUnit * fy, trace: m.trace,
				 level: k };
		});
		box.dataset.level = chart.grids.map(function (g) {
			return g.level;
		}).join(',');
		box.dataset.binWidth = chart.grids.map(function (g) {
			return g.w;
		}).join(',');
	};
	chart.paint = function (u) {
		var max = 0;

		chart.grids.forEach(function (g) {
			for (var k = 0; k < g.cols * g.rows; k++) {
				var t = 0;

				if (bytes)
					t = g.grid[k];
				else
					for (var c = 0; c < g.nc; c++)
						t += g.grid[k * g.nc + c];
				if (t > max)
					max = t;
			}
		});
		chart.max = max;
		chart.grids.forEach(function (g) {
			paintGrid(u, g.cols, g.rows, function (c, r) {
				var k = r * g.cols + c;

				if (bytes) {
					var v = g.grid[k];

					if (!v)
						return null;
					var p = ramp(countLevel(v, max));

					return [p[0], p[1], p[2], 255];
				}
				return mapPixel(g, k, max);
			}, g.x0, g.x1, g.y0, g.y1, !bytes);
		});
		if (bytes)
			bar.textContent = '1 KiB \u2013 ' + fmtBytes(max * 1024, 0);
	};
	rasterRedraws(chart);
	var redraw = chart.update;

	chart.update = function () {
		var r = chart.yRange();

		chart.u.setScale('y', { min: r[0], max: r[1] });
		redraw();
	};
	chart.hover = function (x) {
		var parts = [];

		if (x === null) {
			readout.textContent = '';
			return;
		}
		chart.grids.forEach(function (g) {
			var c = Math.floor((x - g.x0) / g.w);

			if (c < 0 || c >= g.cols)
				return;
			var n = 0;

			for (var r = 0; r < g.rows; r++)
				if (bytes)
					n += g.grid[r * g.cols + c];
				else
					for (var k = 0; k < g.nc; k++)
						n += g.grid[(r * g.cols + c) * g.nc + k];
			parts.push((doc.traces.length > 1 ? doc.traces[g.trace].label + ': ' : '') +
				   (bytes ? fmtBytes(n * 1024, 0) : n + ' I/Os') +
				   ' in ' + span(g.x0 + c * g.w, g.x0 + (c + 1) * g.w));
		});
		readout.textContent = parts.join('; ');
	};
	return chart;
}

/* A raster chart (its cells counted by chart.compute) recounts on a new
 * view or a hidden class, and draws again. */
function rasterRedraws(chart) {
	chart.update = function () {
		chart.compute();
		chart.u.setScale('x', { min: state.view[0], max: state.view[1] });
	};
	chart.hide = function () {
		chart.compute();
		chart.u.redraw(false, false);
	};
}

/* Of the counts get(from) .. get(to - 1): the largest and the next (their
 * indexes a and b, -1 where none, and counts ca and cb), and the sum. */
function topTwo(from, to, get) {
	var r = { a: -1, b: -1, ca: 0, cb: 0, total: 0 };

	for (var i = from; i < to; i++) {
		var c = get(i);

		r.total += c;
		if (c > r.ca) {
			r.b = r.a;
			r.cb = r.ca;
			r.a = i;
			r.ca = c;
		} else if (c > r.cb) {
			r.b = i;
			r.cb = c;
		}
	}
	return r;
}

function mapPixel(g, k, max) {
	var top = topTwo(1, g.nc, function (i) {
		return g.grid[k * g.nc + i];
	});
	var a = top.a, b = top.b, ca = top.ca, cb = top.cb, total = top.total;

	if (!total)
		return null;
	var p;

	if (b < 0) {
		p = rgb(color(doc.classes[a - 1].color));
	} else {
		/* mixed from the lower class index to the higher, by the
		 * higher's share */
		var lo = Math.min(a, b), hi = Math.max(a, b);

		p = mixOf(lo - 1, hi - 1, (hi === b ? cb : ca) / (ca + cb));
	}
	var alpha = RASTER_ALPHA_MIN + (1 - RASTER_ALPHA_MIN) * countLevel(total, max);

	return [p[0], p[1], p[2], Math.round(alpha * 255)];
}

function ramp(t) {
	var last = doc.ramp.length - 1, pos = Math.max(0, Math.min(1, t)) * last;
	var i = Math.min(Math.floor(pos), last - 1), f = pos - i;
	var a = rgb(doc.ramp[i]), b = rgb(doc.ramp[i + 1]);

	return [Math.round(a[0] + (b[0] - a[0]) * f),
		Math.round(a[1] + (b[1] - a[1]) * f),
		Math.round(a[2] + (b[2] - a[2]) * f)];
}

/* The latency heat map (counts on the ramp) or the scatter (each op in
 * its colour, as the I/O map): the bins' latency cells, rows
 * log-spaced from graph.lo to graph.hi. */
function heatChart(graph, panel, container, points) {
	var box = panelBox(graph, panel, container);
	var chart = { box: box, graph: graph, panel: panel };
	var lo = graph.lo, hi = graph.hi, rows = graph.rows;
	var legend = el('div', 'iow-legend'), readout = el('div', 'iow-note');
	var bar = el('span', 'iow-colorbar');
	var layers = panel.layers || [];

	if (points)
		layers.forEach(function (l) {
			var item = el('span', 'iow-entry'), sw = el('span', 'iow-swatch');
			var key = classKey(panel.trace, l.color);

			sw.style.background = color(l.color);
			item.dataset.key = key;
			item.appendChild(sw);
			item.appendChild(el('span', 'iow-label', l.label));
			item.addEventListener('click', function () {
				toggle(key);
			});
			legend.appendChild(item);
		});
	else
		legend.appendChild(bar);
	box.appendChild(legend);
	box.appendChild(readout);
	var opts = timeOpts(box, yAxis(points ? 'latency (log scale)' : panel.y,
				       formatter('ns'), true, 'ns'), {
		series: [{}, { stroke: 'transparent', label: 'latency' }]
	});
	opts.scales.y = { distr: 3, auto: false, range: [lo, hi] };
	opts.hooks.draw = [function (u) {
		chart.paint(u);
		drawLoss(u);
		if (!layers.length)
			drawNote(u, 'no completions in range');
	}];
	chart.u = new uPlot(opts, [[state.view[0], state.view[1]], [null, null]],
			    box);
	chart.compute = function () {
		var t = panel.trace;

		if (!layers.length)
			return;
		var levels = traceLevels(t), o = origin(t);
		var span = state.view[1] - state.view[0];
		var px = chart.u.bbox.width / devicePixelRatio;
		var k = pickLevel(levels, span, px), lv = levels[k];
		var r = binRange(lv, o, state.view[0], state.view[1]);
		var visible = r[1] - r[0] + 1;
		var g = points ? Math.max(1, Math.ceil(MIN_CELL_PX * span / (px * lv.w))) :
			Math.max(1, Math.ceil(visible / HEAT_COLUMNS));
		var c0 = r[0] - r[0] % g;
		var cols = Math.max(0, Math.ceil((r[1] + 1 - c0) / g));
		var grids = layers.map(function (l) {
			var cells = table(l.d[k]), grid = new Float64Array(cols * rows);

			if (points && isHidden(t, l.color, l.label))
				return grid;
			for (var i = firstAt(cells, c0); i < cells.abs.length; i++) {
				var bin = cells.abs[i];

				if (bin >= c0 + cols * g)
					break;
				grid[Math.floor((bin - c0) / g) + cells[1][i] * cols] +=
					cells[2][i];
			}
			return grid;
		});
		chart.cells = { grids: grids, cols: cols, x0: o + c0 * lv.w,
				w: lv.w * g, level: k };
		box.dataset.level = String(k);
		box.dataset.binWidth = String(lv.w * g);
	};
	chart.paint = function (u) {
		var c = chart.cells, max = 0;

		if (!c)
			return;
		for (var i = 0; i < c.cols * rows; i++) {
			var tot = 0;

			c.grids.forEach(function (gr) {
				tot += gr[i];
			});
			if (tot > max)
				max = tot;
		}
		paintGrid(u, c.cols, rows, function (col, row) {
			var i = row * c.cols + col;

			if (!points) {
				var v = c.grids[0][i];

				if (!v)
					return null;
				var p = ramp(countLevel(v, max));

				return [p[0], p[1], p[2], 255];
			}
			var top = topTwo(0, c.grids.length, function (j) {
				return c.grids[j][i];
			});
			var tot = top.total, a = top.a, ca = top.ca, b = top.b,
				cb = top.cb;

			if (!tot)
				return null;
			var pc = rgb(color(layers[a].color));

			if (b >= 0) {
				var ia = Math.min(a, b), ib = Math.max(a, b);
				var ci = classIndex(panel.trace, layers[ia].color);
				var cj = classIndex(panel.trace, layers[ib].color);

				if (ci >= 0 && cj >= 0)
					pc = mixOf(ci, cj, (ia === a ? cb : ca) / (ca + cb));
			}
			return [pc[0], pc[1], pc[2], Math.round((RASTER_ALPHA_MIN +
				(1 - RASTER_ALPHA_MIN) * countLevel(tot, max)) * 255)];
		}, c.x0, c.x0 + c.cols * c.w, lo, hi, points);
		bar.textContent = 'I/Os per ' + fmtSeconds(c.w, 0) + ': 1 \u2013 ' +
			max;
	};
	rasterRedraws(chart);
	chart.hover = function (x) {
		var c = chart.cells;

		if (!c)
			return;
		var col = x === null ? -1 : Math.floor((x - c.x0) / c.w), n = 0;

		if (col < 0 || col >= c.cols) {
			readout.textContent = '';
			return;
		}
		c.grids.forEach(function (gr) {
			for (var r = 0; r < rows; r++)
				n += gr[r * c.cols + col];
		});
		readout.textContent = n + ' completions in ' +
			span(c.x0 + col * c.w, c.x0 + (col + 1) * c.w);
	};
	return chart;
}

function classIndex(trace, colorIndex) {
	for (var i = 0; i < doc.classes.length; i++)
		if (doc.classes[i].trace === trace && doc.classes[i].color === colorIndex)
			return i;
	return -1;
}

/* ---- the table ---- */

function fixed(v, d) {
	return isFinite(v) ? v.toFixed(d) : '';
}

/* Quantile q of a histogram over the bins' buckets (their midpoints). */
function quantile(h, q) {
	var total = 0, k;

	for (k = 0; k < h.length; k++)
		total += h[k];
	if (!total)
		return NaN;
	var rank = Math.max(1, Math.ceil(q * total)), run = 0;

	for (k = 0; k < h.length; k++) {
		run += h[k];
		if (run >= rank)
			return doc.buckets[k];
	}
	return NaN;
}

var CLASS_OPS = ['read', 'write', 'discard', 'flush', 'zone-mgmt',
		 'write-zeroes'];

/* A row per class of stats.ops that has I/O in whole (read and write
 * always), zero where stats has none of it: a view's table has the rows
 * of the whole run's, and keeps its shape through a zoom. */
function tableRows(stats, whole) {
	var rows = [];

	CLASS_OPS.forEach(function (op) {
		var c = stats.ops[op] || { ios: 0, bytes: 0 };

		if ((!whole[op] || !whole[op].ios) &&
		    op !== 'read' && op !== 'write')
			return;
		rows.push([op, c.ios, fixed(c.bytes / 1048576, 1),
			   fixed(c.bytes / stats.span / 1e6, 2),
			   fixed(c.ios / stats.span, 1)]);
	});
	return rows;
}

function latRow(name, l) {
	return [name, l.n, fixed(l.mean, 1), fixed(l.p50, 1), fixed(l.p90, 1),
		fixed(l.p99, 1), fixed(l.max, 1)];
}

function htmlTable(head, rows, cls) {
	var t = el('table', cls);
	var tr = el('tr');

	head.forEach(function (h) {
		tr.appendChild(el('th', null, h));
	});
	t.appendChild(tr);
	rows.forEach(function (r) {
		var row = el('tr');

		r.forEach(function (v) {
			row.appendChild(el('td', null, String(v)));
		});
		t.appendChild(row);
	});
	return t;
}

/* Trace t's I/Os and bytes by class over the whole run, its devices
 * pooled. */
function wholeRunOps(t) {
	var ops = {};

	CLASS_OPS.forEach(function (op) {
		ops[op] = { ios: 0, bytes: 0 };
		doc.summary.traces[t].devices.forEach(function (d) {
			ops[op].ios += d[op] ? d[op].ios : 0;
			ops[op].bytes += d[op] && d[op].bytes ? d[op].bytes : 0;
		});
	});
	return ops;
}

var IO_HEAD = ['class', 'I/Os', 'MiB', 'MB/s', 'IOPS'];
var LAT_HEAD = ['latency (\u00b5s)', 'bios', 'mean', 'p50', 'p90', 'p99', 'max'];

/* n and its word, "s" where n is not one: "1 event", "2 events". */
function counted(n, word) {
	return n + ' ' + word + (n === 1 ? '' : 's');
}

/* Bytes as --summary prints them: "0 B", "16.0 KiB", "5.6 MiB". */
function summaryBytes(b) {
	var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], v = b, u = 0;

	while (v >= 1023.95 && u < 4) {
		v /= 1024;
		u++;
	}
	return (u ? v.toFixed(1) : v.toFixed(0)) + ' ' + units[u];
}

var SUMMARY_IO_HEAD = ['class', 'I/Os', 'bytes', 'MB/s', 'IOPS'];
/* --summary's classes, in its order (flush moves no bytes it counts) */
var SUMMARY_OPS = ['read', 'write', 'discard', 'flush', 'zone-mgmt',
		   'write-zeroes'];

/* A device's class rows as --summary prints them: read and write
 * always, the others where they have I/O. */
function summaryIoRows(d, span) {
	var rows = [];

	SUMMARY_OPS.forEach(function (op) {
		var c = d[op] || { ios: 0, bytes: 0 }, noBytes;

		if (!c.ios && op !== 'read' && op !== 'write')
			return;
		noBytes = op === 'flush' || op === 'zone-mgmt';
		rows.push([op, c.ios, noBytes ? '' : summaryBytes(c.bytes || 0),
			   noBytes ? '' : fixed(span > 0 ? c.bytes / 1e6 / span : 0, 2),
			   fixed(span > 0 ? c.ios / span : 0, 1)]);
	});
	return rows;
}

/* A device's latency rows as --summary prints them: one per metric and
 * class with timed bios ("D2C read", "D2C write"), never their pool;
 * "-" where none was timed; flushes' D2C last. */
function summaryLatRows(d) {
	var rows = [], by = d.latency_by_class || {};

	[['D2C', 'd2c_us'], ['Q2C', 'q2c_us'], ['Q2D', 'q2d_us']].forEach(function (m) {
		if (!d[m[1]] || !d[m[1]].n) {
			rows.push([m[0], '-', '', '', '', '', '']);
			return;
		}
		Object.keys(by).forEach(function (op) {
			var l = by[op][m[1]];

			if (l && l.n)
				rows.push(latRow(m[0] + ' ' + op, l));
		});
	});
	if (d.flush && d.flush.ios && d.flush.d2c_us && d.flush.d2c_us.n)
		rows.push(latRow('D2C flush', d.flush.d2c_us));
	return rows;
}

/* The whole run, as --summary says it: per trace and device. */
function wholeRunTable(box) {
	doc.summary.traces.forEach(function (tr, t) {
		var nw = tr.loss_windows.length, where =
			nw ? ' (' + nw + (nw === 1 ? ' window, ' : ' windows, ') +
			     tr.lossy_s.toFixed(3) + ' s)' : ' (where unknown)';
		/* the source in brackets only where it says more, as the
		 * text summary does */
		var head = el('div', 'iow-trace', tr.label +
			      (tr.source !== tr.label ? ' (' + tr.source + ')' : '') +
			      ': ' + counted(tr.events, 'event') + ', ' +
			      tr.duration_s.toFixed(3) + ' s' +
			      (tr.lost_events ? ', ' +
			       counted(tr.lost_events, 'event') + ' lost' +
			       where : ''));

		head.dataset.key = 't' + t;
		box.appendChild(head);
		tr.devices.forEach(function (d) {
			var span = d.span_s !== undefined ? d.span_s : tr.duration_s;
			var dev = el('div', 'iow-device');

			dev.appendChild(el('div', 'iow-devname', 'device ' + d.device));
			dev.appendChild(htmlTable(SUMMARY_IO_HEAD, summaryIoRows(d, span),
						  'iow-io'));
			dev.appendChild(htmlTable(LAT_HEAD, summaryLatRows(d), 'iow-lat'));
			dev.appendChild(el('div', 'iow-small', 'queue depth (mean) ' +
				d.queue_depth_mean.toFixed(3) + ', seeks ' + d.seeks));
			box.appendChild(dev);
		});
	});
}

/* Trace t's numbers over the view, from the level its graphs show. */
function zoomedStats(t, k) {
	var lv = traceLevels(t)[k], o = origin(t);
	var i0 = Math.max(0, Math.floor((state.view[0] - o) / lv.w));
	var i1 = Math.min(lv.n - 1, Math.ceil((state.view[1] - o) / lv.w) - 1);
	var s = { ops: {}, span: 0, from: o + i0 * lv.w, to: o + (i1 + 1) * lv.w,
		  fromNs: binEdgeNs(t, lv, i0), toNs: binEdgeNs(t, lv, i1 + 1),
		  w: lv.w, d2c: { n: 0, sum: 0, max: 0 }, flush: { n: 0, sum: 0, max: 0 },
		  depth: 0, seeks: 0, lossy: 0 };

	s.span = Math.max(1e-12, Math.min(s.to, doc.x[1]) - s.from);
	Object.keys(lv.ops).forEach(function (op) {
		var a = lv.ops[op].map(f32), c = { ios: 0, bytes: 0 };

		for (var i = i0; i <= i1; i++) {
			c.ios += a[0][i];
			c.bytes += a[1][i];
			var l = op === 'flush' ? s.flush : s.d2c;

			l.n += a[2][i];
			l.sum += a[3][i];
			if (a[4][i] > l.max)
				l.max = a[4][i];
		}
		s.ops[op] = c;
	});
	var depth = f32(lv.depth), seeks = f32(lv.seeks), lossy = f32(lv.lossy);

	for (var i = i0; i <= i1; i++) {
		s.depth += depth[i];
		s.seeks += seeks[i];
		s.lossy += lossy[i];
	}
	return s;
}

/* Percentiles over the usual bins that cover the view (the levels keep
 * the bins' histograms at those only). */
function zoomedPercentiles(t) {
	var lv = traceLevels(t)[traceLevels(t).length - 1], o = origin(t);
	var i0 = Math.max(0, Math.floor((state.view[0] - o) / lv.w));
	var i1 = Math.min(lv.n - 1, Math.ceil((state.view[1] - o) / lv.w) - 1);
	var data = new Float64Array(doc.buckets.length);
	var flush = new Float64Array(doc.buckets.length);
	var hist = doc.traces[t].hist;

	Object.keys(hist).forEach(function (op) {
		var v = table(hist[op]), into = op === 'flush' ? flush : data;

		for (var i = firstAt(v, i0); i < v.abs.length && v.abs[i] <= i1; i++)
			into[v[1][i]] += v[2][i];
	});
	return { data: data, flush: flush, from: o + i0 * lv.w,
		 to: o + (i1 + 1) * lv.w, w: lv.w };
}

/* Bin i's first edge of level lv of trace t, in whole nanoseconds (as
 * the analysis counts them: no float's error in an -x made of it). */
function binEdgeNs(t, lv, i) {
	return Math.round(origin(t) * 1e9) + i * Math.round(lv.w * 1e9);
}

/* Nanoseconds as -x reads seconds: exact, no trailing zeros. */
function secondsArg(ns) {
	var frac = String(ns % 1e9);

	frac = ('000000000' + frac).slice(-9).replace(/0+$/, '');
	return Math.floor(ns / 1e9) + (frac ? '.' + frac : '');
}

function zoomedTable(box) {
	doc.traces.forEach(function (tr, t) {
		var px = 700, viewSpan = state.view[1] - state.view[0];
		var k = pickLevel(traceLevels(t), viewSpan, px);
		var s = zoomedStats(t, k), p = zoomedPercentiles(t);
		var head = el('div', 'iow-trace', tr.label + ': ' +
			      secondsArg(s.fromNs) + ' \u2013 ' +
			      secondsArg(s.toNs) + ' s' +
			      (tr.devices > 1 ? ', its ' + tr.devices +
			       ' devices pooled' : '') + ' (whole ' +
			      fmtSeconds(s.w, 0) + ' bins: ');
		var x = el('code', 'iow-x', '-x ' + secondsArg(s.fromNs) + ':' +
			   secondsArg(s.toNs));

		x.dataset.from = secondsArg(s.fromNs);
		x.dataset.to = secondsArg(s.toNs);
		x.title = 'iowatcher -x with these seconds counts what this table counts';
		head.appendChild(x);
		head.appendChild(document.createTextNode(' counts the same)'));
		head.dataset.key = 't' + t;
		box.appendChild(head);
		box.appendChild(htmlTable(IO_HEAD, tableRows(s, wholeRunOps(t)), 'iow-io'));
		var lat = [];
		var q = function (h, l, name) {
			var us = function (v) {
				return v / 1e3;
			};

			if (!l.n)
				return [name, 0, '', '', '', '', ''];
			return [name, l.n, fixed(us(l.sum / l.n), 1),
				fixed(us(Math.min(quantile(h, 0.5), l.max)), 1),
				fixed(us(Math.min(quantile(h, 0.9), l.max)), 1),
				fixed(us(Math.min(quantile(h, 0.99), l.max)), 1),
				fixed(us(l.max), 1)];
		};

		lat.push(q(p.data, s.d2c, 'D2C'));
		if (doc.summary.traces[t].devices.some(function (d) {
			return d.flush && d.flush.ios;
		}))
			lat.push(q(p.flush, s.flush, 'D2C flush'));
		box.appendChild(htmlTable(LAT_HEAD, lat, 'iow-lat'));
		box.appendChild(el('div', 'iow-small', 'queue depth (mean, all devices) ' +
			fixed(s.depth / 1e9 / Math.max(1e-12, s.span - s.lossy / 1e9), 3) +
			', seeks ' + s.seeks + '.'));
		box.appendChild(el('div', 'iow-small', 'Percentiles: of the ' +
			fmtSeconds(p.w, 0) + ' bins\u2019 histograms over ' +
			fmtSeconds(p.from, 0) + ' \u2013 ' + fmtSeconds(p.to, 0) +
			' (to 6%, the width the levels keep ' +
			'them at); Q2C and Q2D: whole run only.'));
	});
}

var tableBox = null, tableBody = null;

function fillTable(view) {
	var whole = view[0] <= doc.x[0] && view[1] >= doc.x[1];
	var shown = state.view;

	state.view = view;
	tableBody.textContent = '';
	tableBody.appendChild(el('div', 'iow-caption', whole ?
		'The whole run, as --summary says it' :
		'The view: ' + fmtSeconds(view[0], 0) + ' \u2013 ' +
		fmtSeconds(view[1], 0)));
	if (whole)
		wholeRunTable(tableBody);
	else
		zoomedTable(tableBody);
	state.view = shown;
}

/* The table's box keeps the height of the tallest table it held, so
 * that the graphs below stay where they were through a zoom (a drag
 * lands where it was aimed): the whole run's and a view's, measured
 * once the page is laid out and again at a new width. */
function holdTableHeight() {
	var h = tableBody.getBoundingClientRect().height;
	var held = parseFloat(tableBox.style.minHeight) || 0;

	if (h > held)
		tableBox.style.minHeight = Math.ceil(h) + 'px';
}

function measureTable() {
	var mid = (doc.x[0] + doc.x[1]) / 2, w = (doc.x[1] - doc.x[0]) / 100;

	tableBox.style.minHeight = '';
	fillTable(doc.x);
	holdTableHeight();
	fillTable([mid - w, mid + w]);
	holdTableHeight();
	updateTable();
}

function updateTable() {
	fillTable(state.view);
	holdTableHeight();
}

/* ---- zoom, pan, hover ---- */

function redrawAll() {
	var t0 = performance.now(), parts = [];

	api.charts.forEach(function (c) {
		var t = performance.now();

		c.update();
		parts.push([c.graph.name, performance.now() - t]);
	});
	var t1 = performance.now();

	updateTable();
	updateStatus();
	parts.push(['table', performance.now() - t1]);
	var t2 = performance.now();

	/* uPlot draws in a microtask queued before this one */
	queueMicrotask(function () {
		parts.push(['drawing', performance.now() - t2]);
		api.lastRedrawMs = performance.now() - t0;
		api.lastRedrawParts = parts;
	});
}

function zoom(x0, x1) {
	/* two of the finest bins, or a hundredth of a short run */
	var min = Math.max(1e-6, Math.min(doc.finest * 2,
					  (doc.x[1] - doc.x[0]) / 100));

	if (!(x1 > x0))
		return;
	if (x1 - x0 < min) {
		var m = (x0 + x1) / 2;

		x0 = m - min / 2;
		x1 = m + min / 2;
	}
	x0 = Math.max(doc.x[0], x0);
	x1 = Math.min(doc.x[1], x1);
	state.history.push(state.view.slice());
	state.view = [x0, x1];
	redrawAll();
}

function back() {
	if (!state.history.length)
		return;
	state.view = state.history.pop();
	redrawAll();
}

function wholeRun() {
	if (state.band) {
		state.band = null;
		redrawAll();
	}
	if (state.view[0] === doc.x[0] && state.view[1] === doc.x[1])
		return;
	state.history.push(state.view.slice());
	state.view = doc.x.slice();
	redrawAll();
}

function pan(f) {
	var span = state.view[1] - state.view[0];
	var x0 = Math.max(doc.x[0], Math.min(doc.x[1] - span,
					     state.view[0] + f * span));

	state.view = [x0, x0 + span];
	redrawAll();
}

function scaleView(f) {
	var m = (state.view[0] + state.view[1]) / 2;
	var h = (state.view[1] - state.view[0]) * f / 2;

	zoom(Math.max(doc.x[0], m - h), Math.min(doc.x[1], m + h));
}

/* Where x lies across the view, 0 to 1. */
function viewFraction(x) {
	return (x - state.view[0]) / (state.view[1] - state.view[0]);
}

/* The cursor at time x in every time chart, or gone (x null: the
 * pointer left the plots, and their readouts go with it). */
function hover(x) {
	state.cursorX = x;
	api.charts.forEach(function (c) {
		if (c.hover)
			c.hover(x);
	});
}

var status = null;
function updateStatus() {
	var parts = ['view ' + fmtSeconds(state.view[0], 0) + ' \u2013 ' +
		     fmtSeconds(state.view[1], 0)];

	if (state.band)
		parts.push('I/O maps of ' + state.band.devs.join(', ') + ': ' +
			   fmtBytes(state.band.lo * 1048576, 0) + ' \u2013 ' +
			   fmtBytes(state.band.hi * 1048576, 0) + ' (Home: all)');
	parts.push('finest bins kept: ' + fmtSeconds(doc.finest, 0) +
		   ' (set by ' + doc.finestWhy + ')');
	status.textContent = parts.join('; ');
}

/* ---- the page ---- */

function header() {
	var h = el('div', 'iow-header');

	h.appendChild(el('h1', null, doc.title));
	var bar = el('div', 'iow-bar');
	var b1 = el('button', null, '\u2190 Back'), b2 = el('button', null, 'Whole run');

	b1.id = 'iow-back';
	b2.id = 'iow-whole';
	b1.addEventListener('click', back);
	b2.addEventListener('click', wholeRun);
	bar.appendChild(b1);
	bar.appendChild(b2);
	status = el('span', 'iow-status');
	bar.appendChild(status);
	h.appendChild(bar);
	h.appendChild(el('div', 'iow-help', 'Drag across a graph to zoom every graph; ' +
		'double-click, Backspace or Back to go back; \u2190 \u2192 pan, ' +
		'\u2191 \u2193 zoom, Home: the whole run. Click a legend entry ' +
		'or a chip to hide or show it in every graph.'));
	var chips = el('div', 'iow-chips');

	if (doc.traces.length > 1)
		doc.traces.forEach(function (t, i) {
			chip(chips, 't' + i, 'trace ' + t.label, color(i));
		});
	var devices = {};

	doc.graphs.forEach(function (g) {
		g.panels.forEach(function (p) {
			if (p.device)
				devices[p.device] = true;
		});
	});
	if (Object.keys(devices).length > 1)
		Object.keys(devices).forEach(function (d) {
			chip(chips, 'd' + d, 'device ' + d, null);
		});
	doc.classes.forEach(function (c) {
		chip(chips, classKey(c.trace, c.color), c.label, color(c.color));
	});
	h.appendChild(chips);
	return h;
}

function chip(box, key, label, c) {
	var b = el('span', 'iow-chip');

	b.dataset.key = key;
	if (c) {
		var sw = el('span', 'iow-swatch');

		sw.style.background = c;
		b.appendChild(sw);
	}
	b.appendChild(el('span', null, label));
	b.addEventListener('click', function () {
		toggle(key);
		devicePanels();
	});
	box.appendChild(b);
}

/* A hidden device's panels go; its lines go with toggle's redraw. */
function devicePanels() {
	document.querySelectorAll('.iow-panel[data-device]').forEach(function (p) {
		p.style.display = state.hidden['d' + p.dataset.device] ? 'none' : '';
	});
}

/* The band's edges across an I/O map of its device, dashed. */
function drawBand(u, panel, unit) {
	var b = state.band;

	if (!b || b.devs.indexOf(panel.device) < 0)
		return;
	var ctx = u.ctx, box = u.bbox;

	ctx.save();
	ctx.strokeStyle = '#000';
	ctx.lineWidth = devicePixelRatio;
	ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
	[b.lo, b.hi].forEach(function (v) {
		var y = Math.round(u.valToPos(v / unit, 'y', true)) + 0.5;

		ctx.beginPath();
		ctx.moveTo(box.left, y);
		ctx.lineTo(box.left + box.width, y);
		ctx.stroke();
	});
	ctx.restore();
}

/* The offsets lo..hi MiB of devices devs in their I/O maps. */
function showBand(devs, lo, hi) {
	if (!(hi > lo))
		return;
	state.band = { devs: devs, lo: lo, hi: hi };
	redrawAll();
}

/*
 * A section a stage above the report wrote into the page (--compare's
 * answer) goes under the header; its time windows zoom every panel,
 * its offset bands show in the I/O maps.
 */
function linkSection(sec) {
	sec.querySelectorAll('[data-x0]').forEach(function (b) {
		b.addEventListener('click', function () {
			zoom(+b.dataset.x0, +b.dataset.x1);
		});
	});
	sec.querySelectorAll('[data-devs]').forEach(function (b) {
		b.addEventListener('click', function () {
			showBand(b.dataset.devs.split(' '), +b.dataset.lo,
				 +b.dataset.hi);
		});
	});
}

function build() {
	var section = document.getElementById('iow-compare');

	root.textContent = '';
	root.appendChild(header());
	if (section) {
		root.appendChild(section);
		linkSection(section);
	}
	tableBox = el('div', 'iow-table');
	tableBody = el('div');
	tableBox.appendChild(tableBody);
	root.appendChild(tableBox);
	var panels = 0;

	doc.graphs.forEach(function (g) {
		panels += g.panels.length;
	});
	var grid = el('div', 'iow-grid' + (panels > 3 ? ' iow-two' : ''));

	root.appendChild(grid);
	doc.graphs.forEach(function (g) {
		g.panels.forEach(function (p) {
			var c;

			switch (g.kind) {
			case 'lines':
				c = lineChart(g, p, grid);
				break;
			case 'own':
			case 'hist':
				c = ownChart(g, p, grid);
				break;
			case 'map':
				c = mapChart(g, p, grid, false);
				break;
			case 'bytes':
				c = mapChart(g, p, grid, true);
				break;
			case 'heat':
				c = heatChart(g, p, grid, false);
				break;
			case 'points':
				c = heatChart(g, p, grid, true);
				break;
			case 'picture':
				c = pictureChart(g, p, grid);
				break;
			}
			if (c)
				api.charts.push(c);
		});
	});
	redrawAll();
	measureTable();
	document.addEventListener('keydown', function (e) {
		if (e.target && /INPUT|TEXTAREA/.test(e.target.tagName))
			return;
		var keys = {
			ArrowLeft: function () { pan(-0.25); },
			ArrowRight: function () { pan(0.25); },
			ArrowUp: function () { scaleView(0.5); },
			ArrowDown: function () { scaleView(2); },
			'+': function () { scaleView(0.5); },
			'-': function () { scaleView(2); },
			Home: wholeRun,
			Backspace: back,
			Escape: back
		};

		if (keys[e.key]) {
			e.preventDefault();
			keys[e.key]();
		}
	});
	var resizing = null;

	window.addEventListener('resize', function () {
		clearTimeout(resizing);
		resizing = setTimeout(function () {
			api.charts.forEach(function (c) {
				c.u.setSize({ width: plotWidth(c.box), height: PANEL_H });
				c.update();
			});
			measureTable();
		}, 150);
	});
}

api.view = function () {
	return state.view.slice();
};
api.zoom = zoom;
api.back = back;
api.wholeRun = wholeRun;

/*
 * Once the graphs are drawn, and before anyone can drag: every table of
 * cells decoded, and each chart once through a narrow view (the finest
 * levels' code paths compiled), so that the first zoom is as quick as
 * the next ones (88 ms cold, 7-17 ms warm, on the bench trace).
 */
function warmUp() {
	var mid = (doc.x[0] + doc.x[1]) / 2, w = (doc.x[1] - doc.x[0]) / 200;
	var tables = [];

	(function collect(o) {
		if (o && typeof o === 'object') {
			if (o.k && o.p)
				tables.push(o);
			else
				Object.keys(o).forEach(function (k) {
					collect(o[k]);
				});
		}
	})([doc.traces, doc.graphs]);
	tables.forEach(table);
	var view = state.view;

	state.view = [mid - w, mid + w];
	api.charts.forEach(function (c) {
		c.update();
	});
	state.view = view;
	api.charts.forEach(function (c) {
		c.update();
	});
	api.warm = true;
}

inflate(document.getElementById('iow-blob').textContent.trim()).then(
	function (ab) {
		buf = ab;
		build();
		queueMicrotask(function () {
			api.firstPaintMs = performance.now();
			api.ready = true;
			setTimeout(warmUp, 0);
		});
	}).catch(function (e) {
		root.textContent = 'The report could not be read: ' + e;
		api.error = String(e);
	});
})();
