// The job page: polls GET /api/job (same origin) every 500 ms and draws what it says. Plain script,
// no build step, nothing fetched from elsewhere. Every field may be missing (an unreachable rank has
// only rank, reachable and error): the helpers below read defensively, and a failed poll or a
// failed section never stops the polling. Data goes into the page through textContent only.
(function () {
  'use strict';

  const POLL_MS = 500;
  const POLL_TIMEOUT_MS = 4000;
  const TIMELINE_WINDOW_US = 10e6;          // the timeline shows the last 10 s
  const BANDWIDTH_WINDOW_MS = 120e3;        // the bandwidth chart keeps 2 minutes ...
  const BANDWIDTH_MAX_POINTS = 600;         // ... and never more points than this
  const FAILED_COLOUR = '#d32f2f';
  const OP_COLOURS = {
    allReduce: '#1e88e5', broadcast: '#43a047', reduce: '#8e24aa', allGather: '#fb8c00',
    reduceScatter: '#00897b', barrier: '#6d4c41', allToAll: '#3949ab', gather: '#c0ca33',
    scatter: '#f4511e', send: '#00acc1', recv: '#7cb342', receive: '#7cb342'
  };
  const EXTRA_COLOURS = ['#5e35b1', '#d81b60', '#039be5', '#9e9d24', '#ef6c00', '#546e7a'];

  let latest = null;          // the last job object received
  let receivedAt = 0;         // performance.now() when it came
  let lastOk = null;          // Date of the last successful poll
  let failures = 0;
  const history = [];         // [{t: ms since epoch, v: {rank: sentPerSec}}], bounded

  // ---- reading the JSON defensively --------------------------------------------------------------
  const arr = (x) => (Array.isArray(x) ? x : []);
  const num = (x) => (typeof x === 'number' && isFinite(x) ? x : null);
  const str = (x) => (x === null || x === undefined ? '' : String(x));
  const obj = (x) => (x !== null && typeof x === 'object' && !Array.isArray(x) ? x : {});

  // ---- formatting --------------------------------------------------------------------------------
  function fmtInt(x) {
    const n = num(x);
    return n === null ? '–' : Math.round(n).toLocaleString('en-US');
  }

  function fmtBytes(x) {
    const n = num(x);
    if (n === null) return '–';
    const units = ['B', 'KB', 'MB', 'GB', 'TB'];
    let v = Math.abs(n), i = 0;
    while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
    const digits = i === 0 ? 0 : v < 10 ? 2 : v < 100 ? 1 : 0;
    return (n < 0 ? '-' : '') + v.toFixed(digits) + ' ' + units[i];
  }

  const fmtRate = (x) => (num(x) === null ? '–' : fmtBytes(x) + '/s');

  function fmtMs(x) {
    const ms = num(x);
    if (ms === null) return '–';
    if (ms < 1) return ms.toFixed(2) + ' ms';
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 60e3) return (ms / 1000).toFixed(1) + ' s';
    const s = Math.round(ms / 1000);
    return Math.floor(s / 60) + ' min' + (s % 60 ? ' ' + (s % 60) + ' s' : '');
  }

  const fmtClock = (d) => d.toLocaleTimeString('en-GB', { hour12: false });

  function fmtRanks(list) {
    const ranks = arr(list).map(str);
    if (ranks.length === 0) return '';
    const shown = ranks.length > 8 ? ranks.slice(0, 8).join(', ') + ' …(' + ranks.length + ')' : ranks.join(', ');
    return (ranks.length === 1 ? 'rank ' : 'ranks ') + shown;
  }

  function opColour(op) {
    const name = str(op);
    if (OP_COLOURS[name]) return OP_COLOURS[name];
    let h = 0;
    for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    return EXTRA_COLOURS[h % EXTRA_COLOURS.length];
  }

  // r may be a number or an object key ("3")
  const rankColour = (r) => 'hsl(' + Math.round((210 + (Number(r) || 0) * 137.508) % 360) + ', 65%, 42%)';

  function failed(c) {
    return !!c.error || /FAIL|ERROR|TIMEOUT|TIMED_OUT|ABORT/i.test(str(c.state));
  }

  // ---- DOM helpers (text only) -------------------------------------------------------------------
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function setText(id, text) {
    const e = document.getElementById(id);
    if (e) e.textContent = text;
  }

  function swatch(colour, label) {
    const item = el('span');
    const s = el('span', null, 'swatch');
    s.style.background = colour;
    item.append(s, document.createTextNode(label));
    return item;
  }

  // ---- sections ----------------------------------------------------------------------------------
  function renderHeader(job) {
    setText('group', str(job.group) || '–');
    setText('job', str(job.job) || '–');
    setText('size', num(job.size) === null ? '–' : String(job.size));
    setText('generation', num(job.generation) === null ? '–' : String(job.generation));
  }

  function renderBanner(job) {
    const banner = document.getElementById('straggler-banner');
    if (!banner) return;
    if (job.banner === null || job.banner === undefined) {
      banner.hidden = true;
      banner.textContent = '';
    } else {
      banner.textContent = str(job.banner);
      banner.hidden = false;
    }
  }

  function runningCell(rank) {
    const td = el('td');
    const inFlight = arr(rank.inFlight);
    if (inFlight.length === 0) {
      td.append(el('span', 'idle', 'idle'));
      return td;
    }
    for (const raw of inFlight) {
      const c = obj(raw);
      const line = el('div', null, 'op');
      let what = str(c.op) || '?';
      if (num(c.seq) !== null) what += ' #' + fmtInt(c.seq);
      const details = [];
      if (num(c.bytes) !== null) details.push(fmtBytes(c.bytes));
      if (c.algorithm) details.push(str(c.algorithm));
      if (details.length) what += ' (' + details.join(', ') + ')';
      let age = fmtMs(c.ageMs);
      if (num(c.timeoutMs) > 0) age += ' of ' + fmtMs(c.timeoutMs);
      line.append(document.createTextNode(what + ' · ' + age));
      const waiting = fmtRanks(c.waitingFor);
      if (waiting) line.append(document.createTextNode(' · '), el('span', 'waiting for ' + waiting, 'waiting-for'));
      td.append(line);
    }
    return td;
  }

  function peersCell(rank) {
    const td = el('td');
    const counts = new Map();
    const dead = [];
    for (const raw of arr(rank.peers)) {
      const p = obj(raw);
      const t = str(p.transport) || '?';
      counts.set(t, (counts.get(t) || 0) + 1);
      if (p.alive === false) dead.push(p);
    }
    const summary = [...counts.entries()].sort().map(([t, n]) => t + '×' + n).join(' ');
    td.append(el('span', summary || '–', 'transports'));
    for (const p of dead) {
      td.append(el('span', '✖ rank ' + str(p.rank) + ' dead' + (p.death ? ': ' + str(p.death) : ''), 'dead'));
    }
    return td;
  }

  function renderRanks(job) {
    const table = document.getElementById('ranks');
    if (!table) return;
    const body = table.tBodies[0] || table.appendChild(el('tbody'));
    const stragglers = new Set(arr(job.stragglers).map(String));
    const rows = [];
    for (const raw of arr(job.ranks)) {
      const rank = obj(raw);
      const tr = el('tr');
      tr.dataset.rank = str(rank.rank);
      if (stragglers.has(str(rank.rank))) tr.classList.add('straggler');
      tr.append(el('td', str(rank.rank), 'rank'));
      if (rank.reachable === false) {
        tr.classList.add('unreachable');
        const td = el('td', 'unreachable' + (rank.error ? ': ' + str(rank.error) : ''), 'error');
        td.colSpan = 6;
        tr.append(td);
      } else {
        const where = [str(rank.host), num(rank.pid) === null ? '' : 'pid ' + rank.pid].filter(Boolean).join(' / ');
        tr.append(el('td', where || '–'), runningCell(rank), el('td', fmtInt(rank.lastSeq), 'num'),
          el('td', fmtRate(rank.sentPerSec), 'num'), el('td', fmtRate(rank.receivedPerSec), 'num'), peersCell(rank));
        if (rank.error) tr.cells[1].append(el('div', str(rank.error), 'error'));
      }
      rows.push(tr);
    }
    body.replaceChildren(...rows);
  }

  // ---- canvases ----------------------------------------------------------------------------------
  // Sizes the canvas's backing store to its CSS box (times the pixel ratio) and returns a context in
  // CSS pixels, cleared to transparent: the page's background shows through.
  function fitCanvas(canvas, cssHeight) {
    const dpr = window.devicePixelRatio || 1;
    canvas.style.height = cssHeight + 'px';
    const w = Math.max(1, Math.floor(canvas.clientWidth || 600));
    if (canvas.width !== Math.floor(w * dpr) || canvas.height !== Math.floor(cssHeight * dpr)) {
      canvas.width = Math.floor(w * dpr);
      canvas.height = Math.floor(cssHeight * dpr);
    }
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, cssHeight);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    return { ctx: ctx, w: w, h: cssHeight };
  }

  function drawTimeline() {
    const canvas = document.getElementById('timeline');
    if (!canvas || !latest) return;
    const ranks = arr(latest.ranks).map(obj);
    const lane = ranks.length > 32 ? 8 : ranks.length > 12 ? 14 : 22;
    const top = 18, left = 72, right = 8;
    const { ctx, w, h } = fitCanvas(canvas, top + Math.max(1, ranks.length) * lane + 6);
    const nowUs = (num(latest.nowUs) || Date.now() * 1000) + (performance.now() - receivedAt) * 1000;
    const fromUs = nowUs - TIMELINE_WINDOW_US;
    const plotW = Math.max(1, w - left - right);
    const x = (us) => left + ((us - fromUs) / TIMELINE_WINDOW_US) * plotW;

    ctx.strokeStyle = '#e3e6ea';
    ctx.fillStyle = '#6b7280';
    ctx.textAlign = 'center';
    for (let s = 10; s >= 0; s -= 2) {
      const gx = x(nowUs - s * 1e6);
      ctx.beginPath(); ctx.moveTo(gx, top - 4); ctx.lineTo(gx, h); ctx.stroke();
      ctx.fillText(s === 0 ? 'now' : '-' + s + ' s', Math.min(Math.max(gx, left + 12), w - 14), 8);
    }
    const stragglers = new Set(arr(latest.stragglers).map(String));
    const ops = new Map();
    ranks.forEach((rank, i) => {
      const y = top + i * lane;
      ctx.textAlign = 'left';
      const behind = stragglers.has(str(rank.rank));
      ctx.fillStyle = behind ? FAILED_COLOUR : '#1d2330';
      ctx.font = (behind ? 'bold ' : '') + '11px system-ui, sans-serif';
      if (lane >= 12) ctx.fillText('rank ' + str(rank.rank), 4, y + lane / 2);
      ctx.font = '11px system-ui, sans-serif';
      if (rank.reachable === false) {
        ctx.fillStyle = '#9aa0a6';
        if (lane >= 12) ctx.fillText('unreachable' + (rank.error ? ': ' + str(rank.error) : ''), left + 4, y + lane / 2);
        return;
      }
      const bar = (c, startUs, endUs, live) => {
        if (startUs === null || endUs === null || endUs < fromUs) return;
        const x0 = Math.max(left, x(startUs)), x1 = Math.min(w - right, Math.max(x(endUs), x0 + 2));
        const colour = failed(c) ? FAILED_COLOUR : opColour(c.op);
        ops.set(str(c.op) || '?', opColour(c.op));
        ctx.fillStyle = colour;
        ctx.globalAlpha = live ? 0.6 : 1;
        ctx.fillRect(x0, y + 3, x1 - x0, lane - 6);
        ctx.globalAlpha = 1;
        if (live) { ctx.strokeStyle = colour; ctx.strokeRect(x0 + 0.5, y + 3.5, x1 - x0 - 1, lane - 7); }
        const label = str(c.op) + (num(c.seq) === null ? '' : ' #' + fmtInt(c.seq));
        if (lane >= 14 && x1 - x0 > ctx.measureText(label).width + 8) {
          ctx.fillStyle = '#ffffff';
          ctx.fillText(label, x0 + 4, y + lane / 2);
        }
      };
      for (const raw of arr(rank.finished)) {
        const c = obj(raw);
        bar(c, num(c.startUs), num(c.endUs), false);
      }
      for (const raw of arr(rank.inFlight)) {
        const c = obj(raw);
        const age = num(c.ageMs);
        if (age !== null) bar(c, nowUs - age * 1000, nowUs, true);
      }
    });
    const legend = document.getElementById('timeline-legend');
    if (legend) {
      const items = [...ops.entries()].sort().map(([op, colour]) => swatch(colour, op));
      items.push(swatch(FAILED_COLOUR, 'failed'));
      legend.replaceChildren(...items);
    }
  }

  function recordBandwidth(job) {
    const v = {};
    for (const raw of arr(job.ranks)) {
      const rank = obj(raw);
      if (rank.reachable === false || num(rank.rank) === null) continue;
      let rate = num(rank.sentPerSec);
      if (rate === null) {
        const peers = arr(rank.peers).map((p) => num(obj(p).sentPerSec)).filter((r) => r !== null);
        rate = peers.length ? peers.reduce((a, b) => a + b, 0) : null;
      }
      if (rate !== null) v[rank.rank] = rate;
    }
    const t = Date.now();
    history.push({ t: t, v: v });
    while (history.length > BANDWIDTH_MAX_POINTS || (history.length && history[0].t < t - BANDWIDTH_WINDOW_MS)) history.shift();
  }

  function drawBandwidth() {
    const canvas = document.getElementById('bandwidth');
    if (!canvas) return;
    const { ctx, w, h } = fitCanvas(canvas, 220);
    const left = 72, right = 8, top = 10, bottom = 20;
    const now = Date.now(), from = now - BANDWIDTH_WINDOW_MS;
    const ranks = new Set();
    let max = 0;
    for (const p of history) for (const r in p.v) { ranks.add(r); max = Math.max(max, p.v[r]); }
    max = max > 0 ? max * 1.15 : 1000;
    const x = (t) => left + ((t - from) / BANDWIDTH_WINDOW_MS) * (w - left - right);
    const y = (v) => top + (1 - v / max) * (h - top - bottom);

    ctx.strokeStyle = '#e3e6ea';
    ctx.fillStyle = '#6b7280';
    for (let i = 0; i <= 4; i++) {
      const v = (max * i) / 4, gy = y(v);
      ctx.beginPath(); ctx.moveTo(left, gy); ctx.lineTo(w - right, gy); ctx.stroke();
      ctx.textAlign = 'right';
      ctx.fillText(fmtRate(v), left - 6, gy);
    }
    ctx.textAlign = 'center';
    for (let s = 120; s >= 0; s -= 30) ctx.fillText(s === 0 ? 'now' : '-' + s + ' s', Math.min(x(now - s * 1000), w - 14), h - 8);

    const sorted = [...ranks].sort((a, b) => Number(a) - Number(b));
    ctx.lineWidth = 2;
    for (const r of sorted) {
      ctx.strokeStyle = rankColour(r);
      ctx.beginPath();
      let drawing = false;
      for (const p of history) {
        const v = p.v[r];
        if (v === undefined) { drawing = false; continue; }
        if (drawing) ctx.lineTo(x(p.t), y(v)); else ctx.moveTo(x(p.t), y(v));
        drawing = true;
      }
      ctx.stroke();
    }
    ctx.lineWidth = 1;
    const legend = document.getElementById('bandwidth-legend');
    if (legend) legend.replaceChildren(...sorted.slice(0, 32).map((r) => swatch(rankColour(r), 'rank ' + r)));
  }

  // ---- polling -----------------------------------------------------------------------------------
  function guard(name, fn) {
    try {
      fn();
      return true;
    } catch (e) {
      console.error('job page: ' + name + ' failed', e);
      return false;
    }
  }

  function setStatus() {
    const status = document.getElementById('status');
    if (!status) return;
    const since = lastOk ? fmtClock(lastOk) : 'never';
    if (failures === 0) {
      status.className = 'ok';
      status.textContent = 'live · updated ' + since;
    } else {
      status.className = 'lost';
      status.textContent = 'connection lost · last update ' + since + (failures > 1 ? ' · ' + failures + ' polls failed' : '');
    }
    document.body.classList.toggle('lost', failures > 0);
  }

  function render(job) {
    let ok = guard('header', () => renderHeader(job));
    ok = guard('banner', () => renderBanner(job)) && ok;
    ok = guard('ranks', () => renderRanks(job)) && ok;
    ok = guard('timeline', drawTimeline) && ok;
    ok = guard('bandwidth', () => { recordBandwidth(job); drawBandwidth(); }) && ok;
    if (ok) document.body.dataset.ready = '1';
  }

  async function pollOnce() {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), POLL_TIMEOUT_MS);
    let job = null;
    try {
      const response = await fetch('/api/job', { cache: 'no-store', signal: abort.signal });
      if (!response.ok) throw new Error('HTTP ' + response.status);
      job = obj(await response.json());
      failures = 0;
      lastOk = new Date();
    } catch (e) {
      failures++;
    } finally {
      clearTimeout(timer);
    }
    if (job) {
      latest = job;
      receivedAt = performance.now();
      render(job);
    }
    guard('status', setStatus);
  }

  async function poll() {
    try {
      await pollOnce();
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }

  // between polls the in-flight bars keep growing
  setInterval(() => guard('timeline', drawTimeline), 100);
  window.addEventListener('resize', () => guard('bandwidth', drawBandwidth));
  poll();
})();
