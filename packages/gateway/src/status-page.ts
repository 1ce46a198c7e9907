/**
 * The self-contained status page (no CDN, no build step): the report is embedded as JSON, a
 * small script draws badges and inline-SVG sparklines from it and fetches /status again every
 * few seconds. The browser resends the credentials it was asked for (HTTP Basic, the gateway
 * key as password), so the refresh needs no key in the page or the URL.
 */
import type { StatusReport } from './status-board.js';

/** JSON inside a <script> element: `<` escaped so no value can close the element. */
function embed(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#0f1115;color:#e6e6e6}
header{display:flex;gap:24px;align-items:baseline;padding:16px 24px;border-bottom:1px solid #2a2e37}
h1{font-size:18px;margin:0}h2{font-size:15px;margin:24px 24px 8px}
.meta{color:#9aa3b2}.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(320px,1fr));gap:12px;padding:0 24px}
.deployment{background:#171a21;border:1px solid #2a2e37;border-radius:8px;padding:12px}
.deployment h3{font-size:14px;margin:0 0 8px;word-break:break-all}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;margin-right:6px}
.breaker-closed,.health-healthy,.key-active{background:#1f6f43;color:#fff}.breaker-half-open,.key-paced,.key-resting,.pattern{background:#a66b00;color:#fff}
.breaker-open,.health-unhealthy,.key-parked,.state-down,.state-failing,.model-failing{background:#b3261e;color:#fff}
.state-serving,.model-ok{background:#1f6f43;color:#fff}.state-idle,.model-idle{background:#3a3f4b;color:#fff}.model-degraded{background:#a66b00;color:#fff}
.stale .badge.breaker,.stale .badge.health{background:#3a3f4b;color:#c4c9d4}.verdict{margin:0 24px 8px;color:#c4c9d4}
.row{display:flex;justify-content:space-between;gap:8px;margin-top:6px}.row svg{background:#11141a;border-radius:4px}
.keys{margin-top:8px}.error{color:#f2b8b5;font-size:12px;margin-top:6px;word-break:break-word}
table{margin:0 24px;border-collapse:collapse}td,th{padding:4px 12px;border-bottom:1px solid #2a2e37;text-align:left}
tr.exhausting td{color:#f2b8b5}`;

const SCRIPT = `
(function () {
  var refreshMs = Number(document.querySelector('meta[name="switchyard-refresh-ms"]').content);
  var el = function (tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  var svgNs = 'http://www.w3.org/2000/svg';
  function spark(kind, values, max) {
    var w = 140, h = 28, svg = document.createElementNS(svgNs, 'svg');
    svg.setAttribute('class', 'spark ' + kind); svg.setAttribute('width', w); svg.setAttribute('height', h);
    svg.setAttribute('viewBox', '0 0 ' + w + ' ' + h);
    var top = max || Math.max.apply(null, values.map(function (v) { return v || 0; }).concat([1]));
    var pts = values.map(function (v, i) { return (i * w / Math.max(1, values.length - 1)).toFixed(1) + ',' + (h - 2 - ((v || 0) / top) * (h - 4)).toFixed(1); });
    var line = document.createElementNS(svgNs, 'polyline');
    line.setAttribute('points', pts.join(' ')); line.setAttribute('fill', 'none');
    line.setAttribute('stroke', kind === 'errors' ? '#f28b82' : '#8ab4f8'); line.setAttribute('stroke-width', '1.5');
    svg.appendChild(line);
    return svg;
  }
  function ms(v) { return v === null || v === undefined ? '–' : v + ' ms'; }
  function pct(v) { return v === null || v === undefined ? '–' : (v * 100).toFixed(1) + ' %'; }
  var reportNow = 0;
  // A time as the operator reads it: "3 min ago", "in 40 s"; the exact time in the tooltip.
  function ago(iso) {
    if (!iso) return '–';
    var s = Math.round((reportNow - Date.parse(iso)) / 1000), future = s < 0, a = Math.abs(s);
    var text = a < 60 ? a + ' s' : a < 3600 ? Math.round(a / 60) + ' min' : a < 172800 ? Math.round(a / 3600) + ' h' : Math.round(a / 86400) + ' days';
    return a < 1 ? 'just now' : future ? 'in ' + text : text + ' ago';
  }
  function when(tag, attrs, prefix, iso) { attrs = attrs || {}; attrs.title = iso || ''; return el(tag, attrs, prefix + ago(iso)); }
  function render(report) {
    reportNow = Date.parse(report.now);
    document.getElementById('spend').textContent = '$' + report.spendTodayUsd.toFixed(4);
    var updated = document.getElementById('updated'); updated.textContent = ago(report.now); updated.title = report.now;
    var started = document.getElementById('started'); started.textContent = ago(report.startedAt); started.title = report.startedAt;
    var root = document.getElementById('models'); root.textContent = '';
    report.models.forEach(function (model) {
      var section = el('section', { 'class': 'model', 'data-model': model.name });
      var heading = el('h2', {}, model.name + ' ');
      heading.appendChild(el('span', { 'class': 'badge model-state model-' + model.state }, model.state));
      section.appendChild(heading);
      section.appendChild(el('div', { 'class': 'verdict' }, model.verdict + (model.successRate === null ? '' : ' · success ' + pct(model.successRate))));
      var grid = el('div', { 'class': 'grid' });
      model.deployments.forEach(function (d) {
        var card = el('div', { 'class': 'deployment' + (d.stale ? ' stale' : ''), 'data-deployment': d.id });
        card.appendChild(el('h3', {}, d.id));
        var badges = el('div');
        badges.appendChild(el('span', { 'class': 'badge state state-' + d.state }, d.state));
        badges.appendChild(el('span', { 'class': 'badge breaker breaker-' + d.breaker, title: d.breakerUntil ? 'open until ' + d.breakerUntil : '' }, 'breaker ' + d.breaker));
        badges.appendChild(el('span', { 'class': 'badge health health-' + (d.healthy ? 'healthy' : 'unhealthy') }, d.healthy ? 'healthy' : 'unhealthy'));
        if (d.breaker === 'open' && d.breakerUntil) badges.appendChild(when('span', { 'class': 'reopen' }, 'retries ', d.breakerUntil));
        // Badges nothing has confirmed lately say so: what was true then, not now.
        if (d.stale) badges.appendChild(when('span', { 'class': 'badge-age' }, 'as of ', d.badgeAsOf));
        (d.patterns || []).forEach(function (p) { badges.appendChild(el('span', { 'class': 'badge pattern', title: 'since ' + p.since }, p.pattern === 'timeouts' ? 'timing out' : 'repeating ' + p.kind + (p.status ? ' ' + p.status : ''))); });
        card.appendChild(badges);
        var lat = el('div', { 'class': 'row' }); lat.appendChild(el('span', { 'class': 'latency' }, 'p50 ' + ms(d.p50Ms) + ' · p95 ' + ms(d.p95Ms)));
        lat.appendChild(spark('latency', d.series.map(function (p) { return p.p95Ms; }))); card.appendChild(lat);
        var err = el('div', { 'class': 'row' }); err.appendChild(el('span', { 'class': 'error-rate' }, 'errors ' + pct(d.errorRate) + ' of requests' + (d.errorRateEwma === null || d.errorRateEwma === undefined ? '' : ' · EWMA ' + pct(d.errorRateEwma)) + ' · ' + d.requests + ' requests, ' + d.attempts + ' attempts'));
        err.appendChild(spark('errors', d.series.map(function (p) { return p.errorRate; }), 1)); card.appendChild(err);
        var keys = el('div', { 'class': 'keys' });
        d.keys.forEach(function (k) { keys.appendChild(el('span', { 'class': 'badge key key-' + k.state, 'data-key': k.id, title: k.reason || '' }, k.id + ': ' + k.state)); });
        card.appendChild(keys);
        card.appendChild(el('div', { 'class': 'spend' }, 'spend today $' + d.spendTodayUsd.toFixed(4)));
        if (d.lastError) card.appendChild(el('div', { 'class': 'error', title: d.lastError.at }, 'last error ' + ago(d.lastError.at) + ': ' + d.lastError.kind + (d.lastError.status ? ' ' + d.lastError.status : '') + ': ' + d.lastError.message));
        grid.appendChild(card);
      });
      section.appendChild(grid); root.appendChild(section);
    });
    var budgets = document.getElementById('budgets'); budgets.textContent = '';
    report.budgets.forEach(function (b) {
      var tr = el('tr', { 'data-budget': b.scope });
      [b.scope, b.limit, b.used.toFixed(4) + ' / ' + b.max, pct(b.ratio)].forEach(function (v) { tr.appendChild(el('td', {}, v)); });
      budgets.appendChild(tr);
    });
    var slos = document.getElementById('slos'); slos.textContent = '';
    (report.slos || []).forEach(function (o) {
      var tr = el('tr', { 'data-slo': o.name, 'class': 'slo-' + o.state });
      [o.name, o.scope, o.state + ' since ' + ago(o.since), pct(o.successRate) + ' of ' + o.samples + ' (target ' + pct(o.target) + ', recovers at ' + pct(o.recoverAt) + ')', o.state === 'breached' ? o.actions.join(', ') : '-'].forEach(function (v) { tr.appendChild(el('td', {}, v)); });
      slos.appendChild(tr);
    });
    var balances = document.getElementById('balances'); balances.textContent = '';
    report.balances.forEach(function (k) {
      var tr = el('tr', { 'data-balance': k.endpoint + '|' + k.keyId, 'class': k.dry || k.low ? 'exhausting' : '' });
      var funds = k.balances.map(function (b) { return b.available + ' ' + b.currency; }).join(', ') || '–';
      [k.endpoint, k.keyId, funds, k.minBalance === null ? '–' : String(k.minBalance), k.error ? 'unread: ' + k.error : k.dry ? 'dry' : k.low ? 'low' : 'ok', ago(k.checkedAt)].forEach(function (v) { tr.appendChild(el('td', {}, v)); });
      balances.appendChild(tr);
    });
    var forecast = document.getElementById('forecast'); forecast.textContent = '';
    if (report.forecast) ['day', 'month'].forEach(function (period) {
      var f = report.forecast[period];
      var tr = el('tr', { 'data-forecast': period });
      [period + ' ' + f.from + (f.until !== f.from ? ' .. ' + f.until : ''), '$' + f.spentUsd.toFixed(4), '$' + f.projectedUsd.toFixed(4), '$' + f.ratePerHourUsd.toFixed(4) + ' / h', ''].forEach(function (v) { tr.appendChild(el('td', {}, v)); });
      forecast.appendChild(tr);
      f.budgets.forEach(function (b) {
        var row = el('tr', { 'data-forecast-budget': b.scope, 'class': b.exhaustsAt ? 'exhausting' : '' });
        ['  ' + b.scope + ' ' + b.limit, '$' + b.spentUsd.toFixed(4), '$' + b.projectedUsd.toFixed(4) + ' of $' + b.maxUsd, '', b.exhaustsAt ? 'runs out ' + ago(b.exhaustsAt) : 'lasts the ' + period].forEach(function (v) { row.appendChild(el('td', {}, v)); });
        forecast.appendChild(row);
      });
    });
    else forecast.appendChild(el('tr', {}, 'no forecast: plugin-quota with ledger: {} projects spend'));
    var callers = document.getElementById('callers'); callers.textContent = '';
    (report.callers || []).forEach(function (c) {
      var tr = el('tr', { 'data-caller': c.keyId });
      [c.keyId, c.keyName || '', c.team || '', String(c.requests), String(c.errors), '$' + c.spendTodayUsd.toFixed(4)].forEach(function (v) { tr.appendChild(el('td', {}, v)); });
      callers.appendChild(tr);
    });
    document.body.setAttribute('data-rendered', String(Number(document.body.getAttribute('data-rendered') || 0) + 1));
  }
  function refresh() {
    fetch('status', { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) { if (!r.ok) throw new Error('status ' + r.status); return r.json(); })
      .then(function (report) { render(report); document.getElementById('stale').textContent = ''; })
      .catch(function (e) { document.getElementById('stale').textContent = 'refresh failed: ' + e.message; })
      .finally(function () { setTimeout(refresh, refreshMs); });
  }
  render(JSON.parse(document.getElementById('initial').textContent));
  setTimeout(refresh, refreshMs);
})();`;

export function statusPage(report: StatusReport, refreshMs: number): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="switchyard-refresh-ms" content="${Math.round(refreshMs)}">
<title>Switchyard status</title><style>${STYLE}</style></head>
<body data-rendered="0">
<header><h1>Switchyard</h1><span class="meta">spend today <b id="spend"></b></span><span class="meta">started <span id="started"></span></span><span class="meta">updated <span id="updated"></span></span><span class="meta" id="stale"></span></header>
<main><div id="models"></div><h2>Budgets</h2><table><thead><tr><th>scope</th><th>limit</th><th>used</th><th>share</th></tr></thead><tbody id="budgets"></tbody></table><h2>Objectives</h2><table><thead><tr><th>objective</th><th>measures</th><th>state</th><th>success</th><th>acting</th></tr></thead><tbody id="slos"></tbody></table>
<h2>Balances</h2><table><thead><tr><th>endpoint</th><th>key</th><th>available</th><th>threshold</th><th>state</th><th>checked</th></tr></thead><tbody id="balances"></tbody></table>
<h2>Spend forecast</h2><table><thead><tr><th>period</th><th>spent</th><th>projected</th><th>pace</th><th>budget</th></tr></thead><tbody id="forecast"></tbody></table>
<h2>Gateway keys today</h2><table><thead><tr><th>key</th><th>name</th><th>team</th><th>requests</th><th>errors</th><th>spend</th></tr></thead><tbody id="callers"></tbody></table></main>
<script type="application/json" id="initial">${embed(report)}</script>
<script>${SCRIPT}</script>
</body></html>`;
}
