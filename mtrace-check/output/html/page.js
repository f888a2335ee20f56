/* page.js - the interactive part of mtrace-check's HTML report: summary,
 * live bytes over time, flame graph (icicle: the root at the top), top
 * stacks (numbers and elements are made by page-format.js).  Everything comes from the JSON block "mtc-data" that
 * mtrace-check wrote (mtrace-check/html.c): the page fetches nothing.
 * Text from the log only ever reaches the page through textContent.
 * GPL-3.0-or-later. */
'use strict';
(function () {
  const D = JSON.parse(document.getElementById('mtc-data').textContent);
  const S = D.stacks, F = D.frames, SUM = D.summary;
  const ROW = 18, NO_STACK = -2, MAX_BOXES = 30000;
  const $ = (id) => document.getElementById(id);

  /* ---- frames ------------------------------------------------------ */
  const nstacks = S.frames.length;
  function frameName(f) { return f === NO_STACK ? '[no stack recorded]' : F.name[f]; }
  function frameLoc(f) {
    if (f === NO_STACK) return '';
    const file = F.file[f] >= 0 ? D.files[F.file[f]] : null;
    return file ? file + ':' + (F.line[f] || '?') : '';
  }
  function frameModule(f) {
    if (f === NO_STACK || F.module[f] < 0) return '';
    return D.modules[F.module[f]] + '+0x' + F.off[f].toString(16);
  }
  /* The frame a stack is best known by: its innermost. */
  function stackLeaf(i) {
    const fr = S.frames[i];
    return fr.length ? fr[fr.length - 1] : NO_STACK;
  }

  /* ---- reachability classes ----------------------------------------- */
  /* A log reported by class (its reachability verdicts) lists the class
   * totals of the text report (D.classes, the keys of --json's
   * totals.classes) and its loss records (D.loss: stack, class, bytes,
   * blocks).  The page then calls leaks what the text report does: the
   * classes marked lost.  Without verdicts every block live at the end is
   * a leak, as in the text report. */
  const CL = D.classes || [], LOSS = D.loss || [];
  const byClass = CL.length > 0;
  const clsB = CL.map(() => new Float64Array(nstacks));
  const clsN = CL.map(() => new Float64Array(nstacks));
  for (let k = 0; k < LOSS.length; k += 4) {
    clsB[LOSS[k + 1]][LOSS[k]] += LOSS[k + 2];
    clsN[LOSS[k + 1]][LOSS[k]] += LOSS[k + 3];
  }
  const lostClasses = CL.map((c, i) => (c.lost ? i : -1)).filter((i) => i >= 0);
  function classWeights(list) {
    const b = new Float64Array(nstacks), n = new Float64Array(nstacks);
    for (const c of list)
      for (let i = 0; i < nstacks; i++) { b[i] += clsB[c][i]; n[i] += clsN[c][i]; }
    return { b, n, unit: 'blocks' };
  }
  const LOST = byClass ? classWeights(lostClasses) : { b: S.leak_b, n: S.leak_n };
  const REACH = CL.findIndex((c) => c.key === 'still_reachable');
  /* The headline: what the text report calls leaks. */
  const LEAKED = (() => {
    let bytes = SUM.live_bytes, blocks = SUM.live_blocks, stacks = SUM.leak_stacks;
    if (byClass) {
      bytes = blocks = stacks = 0;
      for (const c of lostClasses) { bytes += CL[c].bytes; blocks += CL[c].blocks; }
      for (let i = 0; i < nstacks; i++) stacks += LOST.n[i] > 0;
    }
    return { bytes, blocks, stacks };
  })();
  function classesSaid(list) {
    if (list.length > 1 && list.every((c) => CL[c].lost))
      return list.map((c) => CL[c].name.replace(/ lost$/, '')).join(', ') + ' lost';
    const names = list.map((c) => CL[c].name);
    return names.length < 2 ? names.join('')
      : names.slice(0, -1).join(', ') + ' and ' + names[names.length - 1];
  }
  /* The classes ticked, in the summary's order. */
  function ticked() { return Array.from(state.classes).sort((a, b) => a - b); }
  function lostOnly(set) {
    return set.size === lostClasses.length && lostClasses.every((c) => set.has(c));
  }

  /* ---- two runs compared (--diff) ----------------------------------- */
  /* D.diff (htmldiff.c): per stack, the leaked bytes of the records the
   * comparison takes in the new run (new_b) and in the old one (old_b).
   * The differential view draws each stack as wide as the larger and
   * colours it by the change. */
  const DIFF = D.diff || null;
  function diffWeights() {
    const b = new Float64Array(nstacks), n = new Float64Array(nstacks);
    for (let i = 0; i < nstacks; i++) {
      b[i] = Math.max(DIFF.old_b[i] || 0, DIFF.new_b[i] || 0);
      n[i] = LOST.n[i];
    }
    return { b, n, unit: 'blocks now', old: DIFF.old_b, now: DIFF.new_b };
  }
  /* Red as the bytes grew, blue as they shrank, grey when unchanged. */
  function diffColor(node) {
    const d = node.now - node.old, m = Math.max(node.now, node.old) || 1;
    const k = Math.round(160 * Math.min(Math.abs(d) / m, 1));
    if (d > 0) return `rgb(255,${215 - k},${215 - k})`;
    if (d < 0) return `rgb(${215 - k},${215 - k},255)`;
    return 'rgb(220,220,220)';
  }

  /* ---- what each view weighs ---------------------------------------- */
  const state = { view: 'leaks', range: null, zoom: [], search: '', axis: 't',
    classes: new Set(lostClasses) };

  function rangeWeights(lo, hi) {
    const b = new Float64Array(nstacks), n = new Float64Array(nstacks);
    const iv = D.intervals, never = D.series.never;
    for (let k = 0; k < iv.length; k += 5) {
      const a = iv[k + 1], f = iv[k + 2];
      if (a >= lo && a <= hi && (f === never || f > hi)) {
        b[iv[k]] += iv[k + 3];
        n[iv[k]] += iv[k + 4];
      }
    }
    return { b, n, unit: 'blocks' };
  }
  function weights() {
    switch (state.view) {
      case 'peak': return { b: S.peak_b, n: S.peak_n, unit: 'blocks' };
      case 'all': return { b: S.all_b, n: S.all_n, unit: 'allocations' };
      case 'range': return rangeWeights(state.range.lo, state.range.hi);
      case 'diff': return diffWeights();
      default:
        if (byClass) return classWeights(ticked());
        return { b: S.leak_b, n: S.leak_n, unit: 'blocks' };
    }
  }

  /* ---- the tree ------------------------------------------------------ */
  function buildTree(w) {
    const root = { f: -1, v: 0, n: 0, old: 0, now: 0, kids: new Map(), parent: null, depth: 0 };
    const o = w.old || null;
    for (let i = 0; i < nstacks; i++) {
      const v = w.b[i];
      if (!v) continue;
      const fr = S.frames[i].length ? S.frames[i] : [NO_STACK];
      let node = root;
      root.v += v; root.n += w.n[i];
      if (o) { root.old += o[i] || 0; root.now += w.now[i] || 0; }
      for (let d = 0; d < fr.length; d++) {
        let c = node.kids.get(fr[d]);
        if (!c) {
          c = { f: fr[d], v: 0, n: 0, old: 0, now: 0, kids: new Map(), parent: node, depth: d + 1 };
          node.kids.set(fr[d], c);
        }
        c.v += v; c.n += w.n[i];
        if (o) { c.old += o[i] || 0; c.now += w.now[i] || 0; }
        node = c;
      }
    }
    (function sortKids(node) {
      node.list = Array.from(node.kids.values()).sort((a, b) => b.v - a.v);
      node.kids = null;
      for (const c of node.list) sortKids(c);
    })(root);
    return root;
  }

  /* ---- the flame graph ---------------------------------------------- */
  let tree = null, weight = null, drawn = [];
  const tip = $('tooltip');

  function hue(name) {
    let h = 0;
    for (let i = 0; i < name.length && i < 40; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    return h;
  }
  function color(f) {
    if (f === NO_STACK) return 'rgb(200,200,200)';
    const h = hue(F.name[f]);
    /* flamegraph.pl's warm palette; frames without a source file paler */
    const r = 205 + (h % 50), g = 80 + ((h >> 8) % 130), b = 40 + ((h >> 16) % 50);
    return F.file[f] >= 0 ? `rgb(${r},${g},${b})` : `rgb(${r},${Math.min(g + 60, 230)},${b + 80})`;
  }

  function zoomNode() {
    let node = tree;
    for (const f of state.zoom) {
      const c = node.list.find((x) => x.f === f);
      if (!c) break;
      node = c;
    }
    return node;
  }
  function pathOf(node) {
    const p = [];
    for (let n = node; n && n.parent; n = n.parent) p.unshift(n.f);
    return p;
  }

  function searchRegex() {
    if (!state.search) return null;
    try { return new RegExp(state.search, 'i'); }
    catch (e) { return new RegExp(state.search.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'); }
  }

  function renderFlame() {
    const box = $('flame');
    box.textContent = '';
    drawn = [];
    const width = Math.max(box.clientWidth || 0, 300);
    const z = zoomNode();
    box.dataset.view = state.view;
    if (!tree.v) {
      box.appendChild(el('div', 'empty', emptyText()));
      box.dataset.total = '0';
      renderCrumbs(z);
      updateSearch();
      return;
    }
    const re = searchRegex();
    let maxDepth = z.depth;
    const boxes = [];
    /* The zoomed node's ancestors span the width, then its subtree. */
    for (let a = z; a; a = a.parent) boxes.push({ node: a, x: 0, w: width, anc: a !== z });
    const scale = width / z.v;
    (function walk(node, x) {
      let cx = x;
      for (const c of node.list) {
        const w = c.v * scale;
        if (w < 0.5 || boxes.length > MAX_BOXES) break; /* sorted: the rest are smaller */
        boxes.push({ node: c, x: cx, w: w, anc: false });
        if (c.depth > maxDepth) maxDepth = c.depth;
        walk(c, cx);
        cx += w;
      }
    })(z, 0);
    const height = (maxDepth + 1) * ROW + 2;
    const root = svg('svg', { width: width, height: height, role: 'img',
      'aria-label': 'flame graph' });
    const frag = document.createDocumentFragment();
    boxes.forEach((b, i) => {
      const n = b.node, y = n.depth * ROW;
      const g = svg('g', { class: 'fr' + (b.anc ? ' anc' : ''), 'data-i': i });
      const name = n.f === -1 ? 'all stacks' : frameName(n.f);
      if (state.view === 'diff') { g.dataset.change = String(n.now - n.old); g.dataset.name = name; }
      if (re && n.f !== -1 && (re.test(name) || re.test(frameLoc(n.f)))) g.classList.add('match');
      g.appendChild(svg('rect', { x: b.x.toFixed(1), y: y, width: Math.max(b.w - 0.5, 0.5).toFixed(1),
        height: ROW - 1, fill: state.view === 'diff' ? diffColor(n)
          : n.f === -1 ? 'rgb(230,210,170)' : color(n.f) }));
      if (b.w > 28) {
        const chars = Math.floor((b.w - 6) / 6.6);
        const t = svg('text', { x: (b.x + 3).toFixed(1), y: y + 13 });
        t.textContent = name.length > chars ? name.slice(0, Math.max(chars - 1, 1)) + '\u2026' : name;
        g.appendChild(t);
      }
      frag.appendChild(g);
      drawn.push(b);
    });
    root.appendChild(frag);
    box.appendChild(root);
    box.dataset.total = String(tree.v);
    box.dataset.view = state.view;
    box.dataset.classes = state.view === 'leaks' && byClass
      ? ticked().map((c) => CL[c].key).join(',') : '';
    box.dataset.zoom = z.f === -1 ? '' : frameName(z.f);
    box.dataset.boxes = String(drawn.length);
    box.dataset.range = state.view === 'range' ? state.range.lo + ',' + state.range.hi : '';
    renderCrumbs(z);
    updateSearch();
  }

  function emptyText() {
    if (state.view === 'diff') return 'No leaks in either run.';
    if (state.view !== 'leaks') return 'Nothing to show for this view.';
    if (!byClass) return 'No memory leaks: nothing is live at the end of the log.';
    if (!lostOnly(state.classes))
      return state.classes.size ? 'Nothing of these classes is live at the end.'
        : 'Tick a class to see its blocks.';
    const r = REACH >= 0 ? CL[REACH] : null;
    return 'No memory leaks: nothing is lost at the end of the log' +
      (r && r.blocks ? ' (' + bytes(r.bytes) + ' still reachable: tick it to see where).' : '.');
  }

  function renderCrumbs(z) {
    const c = $('crumbs');
    c.textContent = '';
    if (!z.parent) return;
    c.append('Zoomed in: ');
    const path = [];
    for (let n = z; n; n = n.parent) path.unshift(n);
    path.forEach((n, i) => {
      if (i) c.append(' \u203a ');
      const a = el('a', null, n.f === -1 ? 'all stacks' : frameName(n.f));
      a.onclick = () => { state.zoom = pathOf(n); renderFlame(); };
      c.appendChild(a);
    });
  }

  /* Bytes under matching frames, each counted once (the topmost match). */
  function updateSearch() {
    const out = $('search-result');
    const re = searchRegex();
    if (!re || !tree || !tree.v) { out.textContent = ''; return; }
    let sum = 0;
    (function walk(node) {
      for (const c of node.list) {
        if (re.test(frameName(c.f)) || re.test(frameLoc(c.f))) sum += c.v;
        else walk(c);
      }
    })(tree);
    out.textContent = 'matched ' + bytes(sum) + ' (' + pct(sum, tree.v) + ')';
  }

  function showTip(ev, b) {
    const n = b.node;
    tip.textContent = '';
    const name = n.f === -1 ? 'all stacks' : frameName(n.f);
    tip.appendChild(el('b', null, name));
    if (n.f >= 0 && F.inl[n.f]) tip.append(' [inlined]');
    const loc = n.f >= 0 ? frameLoc(n.f) : '';
    if (loc) { tip.appendChild(el('br')); tip.appendChild(el('span', 'loc', loc)); }
    const mod = n.f >= 0 ? frameModule(n.f) : '';
    if (mod) { tip.appendChild(el('br')); tip.appendChild(el('span', 'loc', mod)); }
    tip.appendChild(el('br'));
    if (state.view === 'diff') {
      const d = n.now - n.old;
      tip.append('old run ' + bytes(n.old) + ', new run ' + bytes(n.now) + ' (' +
        (d > 0 ? '+' + bytes(d) : d < 0 ? '\u2212' + bytes(-d) : 'unchanged') + ')');
    } else {
      tip.append(bytes(n.v) + ' (' + count(n.v) + ' bytes, ' + pct(n.v, tree.v) + '), ' +
        count(n.n) + ' ' + weight.unit);
    }
    tip.hidden = false;
    const x = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    const y = ev.clientY + 16 + tip.offsetHeight > window.innerHeight
      ? ev.clientY - tip.offsetHeight - 8 : ev.clientY + 16;
    tip.style.left = Math.max(x, 4) + 'px';
    tip.style.top = Math.max(y, 4) + 'px';
  }

  function boxOf(ev) {
    const g = ev.target.closest && ev.target.closest('g.fr');
    return g ? drawn[+g.getAttribute('data-i')] : null;
  }
  $('flame').addEventListener('mousemove', (ev) => {
    const b = boxOf(ev);
    if (b) showTip(ev, b); else tip.hidden = true;
  });
  $('flame').addEventListener('mouseleave', () => { tip.hidden = true; });
  $('flame').addEventListener('click', (ev) => {
    const b = boxOf(ev);
    if (!b) return;
    state.zoom = pathOf(b.node);
    renderFlame();
  });
  $('zoom-reset').onclick = () => { state.zoom = []; renderFlame(); };
  let searchTimer = 0;
  $('search').addEventListener('input', (ev) => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => { state.search = ev.target.value; renderFlame(); }, 120);
  });

  function setView(v) {
    state.view = v;
    for (const r of document.querySelectorAll('input[name=view]')) r.checked = r.value === v;
    redrawFlame();
  }
  function redrawFlame() {
    weight = weights();
    tree = buildTree(weight);
    $('flame-title').textContent = flameTitle();
    renderFlame();
  }
  for (const r of document.querySelectorAll('input[name=view]'))
    r.addEventListener('change', () => { if (r.checked) setView(r.value); });

  function flameTitle() {
    switch (state.view) {
      case 'peak': return '\u2014 live at the peak' + (SUM.peak_t != null ? ' (' + ms(SUM.peak_t) + ')' : '') + ': ' + bytes(tree.v);
      case 'all': return '\u2014 all allocations: ' + bytes(tree.v);
      case 'diff': return '\u2014 leaks compared with ' + DIFF.old_log + ': ' +
        bytes(tree.old) + ' \u2192 ' + bytes(tree.now);
      case 'range': return '\u2014 allocated between ' + xLabel(rangeStart(state.range.lo)) +
        ' and ' + xLabel(rangeEnd(state.range.hi)) + ', still live at its end: ' + bytes(tree.v);
      default:
        if (!byClass || lostOnly(state.classes))
          return '\u2014 leaks' + (byClass ? ' (' + classesSaid(lostClasses) + ')' : '') +
            ': ' + bytes(tree.v);
        return '\u2014 at the end, ' + (classesSaid(ticked()) ||
          'no class') + ': ' + bytes(tree.v);
    }
  }

  /* With verdicts: which classes the end view weighs (the lost ones at
   * first). */
  function renderClassFilter() {
    const box = $('class-filter');
    if (!byClass) return;
    box.hidden = false;
    $('view-leaks-label').textContent = 'Live at the end:';
    CL.forEach((c, i) => {
      if (!c.blocks) return;
      const label = el('label');
      const cb = el('input');
      cb.type = 'checkbox';
      cb.value = c.key;
      cb.checked = state.classes.has(i);
      cb.addEventListener('change', () => {
        if (cb.checked) state.classes.add(i); else state.classes.delete(i);
        if (state.view !== 'leaks') setView('leaks'); else redrawFlame();
      });
      label.appendChild(cb);
      label.append(' ' + c.name + ' ');
      label.appendChild(el('span', 'loc', bytes(c.bytes)));
      box.appendChild(label);
    });
  }

  /* ---- live bytes over time ----------------------------------------- */
  const SER = D.series, nb = SER.live.length;
  /* "rss": resident memory by bucket (rssout.c), when the log sampled it. */
  const RSS = D.rss || null;
  function rssAt(k) { return RSS.anon[k] + RSS.file[k]; }
  function xOf(k) { return state.axis === 't' ? SER.t[k] : SER.line[k]; }
  function rangeStart(k) { return k > 0 ? xOf(k - 1) : 0; }
  function rangeEnd(k) { return xOf(k); }
  function xLabel(x) { return state.axis === 't' ? ms(x) : 'line ' + count(Math.round(x)); }
  let chartGeom = null;

  function renderChart() {
    const box = $('chart');
    box.textContent = '';
    const width = Math.max(box.clientWidth || 0, 300), height = 190;
    const L = 64, R = 12, T = 14, B = 24;
    const xmax = Math.max(xOf(nb - 1), 1e-9);
    let ymax = 1;
    for (let k = 0; k < nb; k++) if (SER.max[k] > ymax) ymax = SER.max[k];
    for (let k = 0; RSS && k < nb; k++) if (rssAt(k) > ymax) ymax = rssAt(k);
    ymax *= 1.08;
    const px = (x) => L + (width - L - R) * x / xmax;
    const py = (y) => T + (height - T - B) * (1 - y / ymax);
    chartGeom = { L, R, width, xmax, px };
    const root = svg('svg', { width: width, height: height, role: 'img', 'aria-label': 'live bytes over time' });
    root.appendChild(svg('line', { class: 'axis', x1: L, y1: py(0), x2: width - R, y2: py(0) }));
    root.appendChild(svg('line', { class: 'axis', x1: L, y1: T, x2: L, y2: py(0) }));
    for (let i = 0; i <= 4; i++) {
      const y = ymax / 1.08 * i / 4, t = svg('text', { x: L - 6, y: py(y) + 4, 'text-anchor': 'end' });
      t.textContent = bytes(Math.round(y));
      root.appendChild(t);
      const x = xmax * i / 4, u = svg('text', { x: px(x), y: height - 6,
        'text-anchor': i === 0 ? 'start' : i === 4 ? 'end' : 'middle' });
      u.textContent = xLabel(x);
      root.appendChild(u);
    }
    /* The most each bucket held: a peak never falls between two points. */
    let d = 'M' + px(0).toFixed(1) + ',' + py(0).toFixed(1);
    for (let k = 0; k < nb; k++) {
      d += 'L' + px(rangeStart(k)).toFixed(1) + ',' + py(SER.max[k]).toFixed(1);
      d += 'L' + px(xOf(k)).toFixed(1) + ',' + py(SER.max[k]).toFixed(1);
    }
    const area = d + 'L' + px(xOf(nb - 1)).toFixed(1) + ',' + py(0).toFixed(1) + 'Z';
    root.appendChild(svg('path', { class: 'area', d: area }));
    root.appendChild(svg('path', { class: 'curve', d: d, id: 'live-curve' }));
    if (RSS) {
      /* Resident memory beside the heap: the most sampled in each stretch. */
      let r = '';
      for (let k = 0; k < nb; k++) {
        r += (k ? 'L' : 'M') + px(rangeStart(k)).toFixed(1) + ',' + py(rssAt(k)).toFixed(1);
        r += 'L' + px(xOf(k)).toFixed(1) + ',' + py(rssAt(k)).toFixed(1);
      }
      root.appendChild(svg('path', { class: 'rss', d: r, id: 'rss-curve' }));
      const t = svg('text', { class: 'rss-label', x: L + 8, y: T + 10, 'text-anchor': 'start' });
      t.textContent = 'RSS (resident memory), peak ' + bytes(RSS.peak) + '; heap: live bytes';
      root.appendChild(t);
    }
    const peakX = state.axis === 't' ? SUM.peak_t : SUM.peak_line;
    if (SUM.peak_bytes > 0 && peakX != null) {
      const cx = px(peakX), cy = py(SUM.peak_bytes);
      root.appendChild(svg('circle', { class: 'peak', cx: cx, cy: cy, r: 4, id: 'peak-mark' }));
      const t = svg('text', { class: 'peak-label', x: cx + (cx > width / 2 ? -8 : 8), y: Math.max(cy - 6, 11),
        'text-anchor': cx > width / 2 ? 'end' : 'start' });
      t.textContent = 'peak ' + bytes(SUM.peak_bytes) + ' at ' + xLabel(peakX);
      root.appendChild(t);
    }
    if (state.range) {
      const x0 = px(rangeStart(state.range.lo)), x1 = px(rangeEnd(state.range.hi));
      root.appendChild(svg('rect', { class: 'brush', id: 'range-mark', x: x0, y: T,
        width: Math.max(x1 - x0, 1), height: py(0) - T }));
    }
    box.appendChild(root);
    box.dataset.points = String(nb);
  }

  /* Bucket k spans (end of k-1, end of k]. */
  function bucketAt(x) {
    let lo = 0, hi = nb - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xOf(mid) < x) lo = mid + 1; else hi = mid;
    }
    return lo;
  }
  function chartX(ev) {
    const r = $('chart').firstChild.getBoundingClientRect();
    const g = chartGeom;
    const x = (ev.clientX - r.left - g.L) / (g.width - g.L - g.R) * g.xmax;
    return Math.min(Math.max(x, 0), g.xmax);
  }
  let drag = null;
  $('chart').addEventListener('mousedown', (ev) => {
    if (!chartGeom) return;
    ev.preventDefault();
    drag = { x0: chartX(ev), cx: ev.clientX, rect: null };
  });
  window.addEventListener('mousemove', (ev) => {
    if (!drag) return;
    const g = chartGeom, a = Math.min(drag.x0, chartX(ev)), b = Math.max(drag.x0, chartX(ev));
    if (!drag.rect) {
      drag.rect = svg('rect', { class: 'brush', y: 14, height: 152 });
      $('chart').firstChild.appendChild(drag.rect);
    }
    drag.rect.setAttribute('x', g.px(a));
    drag.rect.setAttribute('width', Math.max(g.px(b) - g.px(a), 1));
  });
  window.addEventListener('mouseup', (ev) => {
    if (!drag) return;
    const d = drag;
    drag = null;
    if (Math.abs(ev.clientX - d.cx) < 3) { renderChart(); return; }
    const a = Math.min(d.x0, chartX(ev)), b = Math.max(d.x0, chartX(ev));
    selectRange(bucketAt(a), bucketAt(b));
  });
  function selectRange(lo, hi) {
    state.range = { lo, hi };
    state.zoom = [];
    $('view-range-label').hidden = false;
    $('range-clear').hidden = false;
    renderChart();
    setView('range');
  }
  $('range-clear').onclick = () => {
    state.range = null;
    $('view-range-label').hidden = true;
    $('range-clear').hidden = true;
    renderChart();
    if (state.view === 'range') setView('leaks');
  };
  if (SUM.has_time) {
    $('axis-choice').hidden = false;
    $('axis').onchange = (ev) => { state.axis = ev.target.value; renderChart(); $('flame-title').textContent = flameTitle(); };
  } else {
    state.axis = 'line';
  }

  /* ---- summary ------------------------------------------------------ */
  function card(k, v, s, alert) {
    const c = el('div', 'card' + (alert ? ' alert' : ''));
    c.appendChild(el('div', 'k', k));
    c.appendChild(el('div', 'v', v));
    if (s) c.appendChild(el('div', 's', s));
    return c;
  }
  function renderSummary() {
    $('title-program').textContent = D.program || D.binary || '';
    $('title-log').textContent = 'log: ' + D.log;
    const s = $('summary');
    if (D.end_note) {
      /* The text report's words on how the log ends (killed, cut short):
       * what is live there is not a proven leak. */
      const note = el('p', 'end-note', D.end_note.replace(/\s+/g, ' ').trim());
      note.id = 'end-note';
      note.setAttribute('role', 'note');
      s.parentNode.insertBefore(note, s);
    }
    const lead = card('Leaked at the end', bytes(LEAKED.bytes),
      count(LEAKED.blocks) + ' blocks from ' + count(LEAKED.stacks) + ' stacks', LEAKED.bytes > 0);
    if (byClass) lead.appendChild(el('div', 's', classesSaid(lostClasses)));
    lead.id = 'leaked';
    lead.dataset.bytes = String(LEAKED.bytes);
    lead.dataset.blocks = String(LEAKED.blocks);
    s.appendChild(lead);
    if (byClass) {
      /* The LEAK SUMMARY of the text report, figure for figure. */
      const c = card('By reachability', '', 'live at the end: ' + bytes(SUM.live_bytes) +
        ' in ' + count(SUM.live_blocks) + ' blocks');
      c.id = 'classes';
      const t = el('table');
      for (const k of CL) {
        if (k.key === 'unknown' && !k.blocks) continue; /* as the text report */
        const tr = el('tr', k.lost && k.blocks ? 'lost' : null);
        tr.dataset.key = k.key;
        tr.dataset.bytes = String(k.bytes);
        tr.dataset.blocks = String(k.blocks);
        tr.appendChild(el('td', null, k.name));
        tr.appendChild(el('td', 'num', bytes(k.bytes)));
        tr.appendChild(el('td', 'num', count(k.blocks) + ' blocks'));
        t.appendChild(tr);
      }
      c.querySelector('.v').replaceWith(t);
      s.appendChild(c);
    }
    if (DIFF) {
      const c = card('Compared with the old run', DIFF.new + ' new, ' + DIFF.gone + ' gone, ' +
        DIFF.grown + ' grown', 'old log: ' + DIFF.old_log, DIFF.failing);
      c.id = 'diff-card';
      c.dataset.new = String(DIFF.new);
      c.dataset.gone = String(DIFF.gone);
      c.dataset.grown = String(DIFF.grown);
      s.appendChild(c);
    }
    s.appendChild(card('Peak', bytes(SUM.peak_bytes), count(SUM.peak_blocks) + ' blocks' +
      (SUM.peak_t != null ? ' at ' + ms(SUM.peak_t) : ' at line ' + count(SUM.peak_line))));
    if (RSS) {
      const c = card('Peak RSS', bytes(RSS.peak), bytes(RSS.peak_anon) + ' anonymous, ' +
        bytes(RSS.peak_file) + ' file-backed or shared' + (RSS.peak_t != null ? ' at ' + ms(RSS.peak_t) : ''));
      c.id = 'rss-peak';
      c.dataset.bytes = String(RSS.peak);
      s.appendChild(c);
    }
    s.appendChild(card('Allocations', count(SUM.allocs), bytes(SUM.alloc_bytes) + ' in all'));
    s.appendChild(card('Frees', count(SUM.frees), bytes(SUM.freed_bytes)));
    s.appendChild(card('Duration', SUM.duration != null ? ms(SUM.duration) : 'unknown',
      SUM.duration != null ? 'from the log\u2019s #t records' : 'the log has no time records'));
    s.appendChild(card('Log', count(SUM.lines) + ' lines', count(nstacks) + ' stacks' +
      (SUM.warnings ? ', ' + count(SUM.warnings) + ' warnings' : '')));
  }

  /* ---- the table of stacks ---------------------------------------- */
  /* With verdicts, what each stack lost, what it still holds reachable,
   * and the classes of its blocks (worst first) instead of "leaked". */
  const EXTRA = { lost_b: LOST.b, lost_n: LOST.n,
    reach_b: REACH >= 0 ? clsB[REACH] : null };
  /* What definitely lost blocks hold (D.blocks: stack, hex, text, C++
   * class), shown under a stack's frames. */
  const BLOCKS = D.blocks || [];
  function stackClasses(i) {
    return CL.map((c, k) => (clsN[k][i] ? k : -1)).filter((k) => k >= 0);
  }
  const COLUMNS = (byClass
    ? [['lost_b', 'Lost bytes'], ['lost_n', 'Lost blocks'],
       ['reach_b', 'Still reachable bytes'], ['class', 'Class']]
    : [['leak_b', 'Leaked bytes'], ['leak_n', 'Leaked blocks']])
    .concat([['peak_b', 'Bytes at peak'], ['all_n', 'Allocations'],
      ['all_b', 'Allocated bytes'], ['name', 'Allocated from']]);
  const table = { key: byClass ? 'lost_b' : 'leak_b', asc: false, shown: 100, open: new Set() };
  function column(k) { return S[k] || EXTRA[k]; }
  function sortedStacks() {
    const idx = [];
    for (let i = 0; i < nstacks; i++) idx.push(i);
    const k = table.key, dir = table.asc ? 1 : -1;
    if (k === 'name') {
      const names = idx.map((i) => frameName(stackLeaf(i)));
      idx.sort((a, b) => dir * (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0) || a - b);
    } else if (k === 'class') {
      /* The worst class first (descending), stacks holding nothing last. */
      const worst = idx.map((i) => { const c = stackClasses(i); return c.length ? CL.length - c[0] : 0; });
      idx.sort((a, b) => dir * (worst[a] - worst[b]) || LOST.b[b] - LOST.b[a] || a - b);
    } else {
      const v = column(k);
      idx.sort((a, b) => dir * (v[a] - v[b]) || S.all_b[b] - S.all_b[a] || a - b);
    }
    return idx;
  }
  function framesRow(i) {
    const tr = el('tr', 'frames'), td = el('td');
    td.colSpan = COLUMNS.length;
    const ol = el('ol');
    ol.start = 0;
    const fr = S.frames[i];
    if (!fr.length) ol.appendChild(el('li', null, '[no stack recorded]'));
    for (let d = fr.length - 1; d >= 0; d--) {
      const li = el('li', null, frameName(fr[d]) + (F.inl[fr[d]] ? ' [inlined]' : ''));
      const loc = frameLoc(fr[d]) || frameModule(fr[d]);
      if (loc) li.appendChild(el('span', 'loc', ' at ' + loc));
      ol.appendChild(li);
    }
    td.appendChild(ol);
    for (const b of BLOCKS.filter((x) => x[0] === i)) {
      const p = el('div', 'block', 'first ' + b[1].length / 2 + ' bytes: ' +
        b[1].replace(/(..)/g, '$1 ').trim() + '  |' + b[2] + '|');
      if (b[3]) p.appendChild(el('span', 'type', '  object of class ' + b[3]));
      td.appendChild(p);
    }
    tr.appendChild(td);
    return tr;
  }
  function cell(k, i) {
    if (k === 'name') {
      const leaf = stackLeaf(i), td = el('td', null, frameName(leaf));
      const loc = frameLoc(leaf);
      if (loc) td.appendChild(el('span', 'loc', ' ' + loc));
      /* Blocks that are not malloc's: a pool's, or mappings. */
      if (S.kind && S.kind[i]) td.appendChild(el('span', 'loc', ' [' + S.kind[i] + ']'));
      return td;
    }
    if (k === 'class') {
      const td = el('td', 'cls');
      stackClasses(i).forEach((c, n) => {
        if (n) td.append(', ');
        td.appendChild(el('span', CL[c].lost ? 'lost' : null, CL[c].name));
      });
      return td;
    }
    const v = column(k)[i];
    return el('td', 'num', k.endsWith('_b') ? bytes(v) : count(v));
  }
  function renderTable() {
    const body = document.querySelector('#stacks tbody');
    body.textContent = '';
    const idx = sortedStacks();
    const frag = document.createDocumentFragment();
    for (const i of idx.slice(0, table.shown)) {
      const tr = el('tr', 'row');
      for (const [k] of COLUMNS) tr.appendChild(cell(k, i));
      tr.onclick = () => {
        if (table.open.has(i)) table.open.delete(i); else table.open.add(i);
        renderTable();
      };
      frag.appendChild(tr);
      if (table.open.has(i)) frag.appendChild(framesRow(i));
    }
    body.appendChild(frag);
    for (const th of document.querySelectorAll('#stacks th')) {
      th.classList.toggle('sorted', th.dataset.key === table.key);
      th.classList.toggle('asc', th.dataset.key === table.key && table.asc);
    }
    const more = $('table-more');
    more.hidden = idx.length <= table.shown;
    more.textContent = 'Show more (' + count(idx.length - table.shown) + ' left)';
  }
  (function header() {
    const tr = document.querySelector('#stacks thead tr');
    for (const [k, title] of COLUMNS) {
      const th = el('th', k === 'name' || k === 'class' ? null : 'num', title);
      th.dataset.key = k;
      th.addEventListener('click', () => {
        if (table.key === k) table.asc = !table.asc;
        else { table.key = k; table.asc = k === 'name'; }
        renderTable();
      });
      tr.appendChild(th);
    }
  })();
  $('table-more').onclick = () => { table.shown += 100; renderTable(); };

  /* ---- still reachable and growing (findings/growth.h) ---------------- */
  const GROW = D.growth;
  function renderGrowth() {
    if (!GROW || !GROW.stacks.length) return;
    $('growth-section').hidden = false;
    const box = $('growth-chart');
    box.textContent = '';
    const n = GROW.stacks[0].bytes.length;
    const xs = GROW.t || GROW.stacks[0].bytes.map((_, k) => k);
    const width = Math.max(box.clientWidth || 0, 300), height = 190;
    const L = 64, R = 12, T = 14, B = 24;
    const xmax = Math.max(xs[n - 1], 1e-9);
    let ymax = 1;
    for (const s of GROW.stacks) for (const b of s.bytes) if (b > ymax) ymax = b;
    ymax *= 1.08;
    const px = (x) => L + (width - L - R) * x / xmax;
    const py = (y) => T + (height - T - B) * (1 - y / ymax);
    const root = svg('svg', { width: width, height: height, role: 'img',
      'aria-label': 'still reachable bytes of the growing stacks at each scan' });
    root.appendChild(svg('line', { class: 'axis', x1: L, y1: py(0), x2: width - R, y2: py(0) }));
    root.appendChild(svg('line', { class: 'axis', x1: L, y1: T, x2: L, y2: py(0) }));
    for (let i = 0; i <= 4; i++) {
      const t = svg('text', { x: L - 6, y: py(ymax / 1.08 * i / 4) + 4, 'text-anchor': 'end' });
      t.textContent = bytes(Math.round(ymax / 1.08 * i / 4));
      root.appendChild(t);
      const x = xmax * i / 4, u = svg('text', { x: px(x), y: height - 6,
        'text-anchor': i === 0 ? 'start' : i === 4 ? 'end' : 'middle' });
      u.textContent = GROW.t ? ms(x) : 'scan ' + Math.round(x + 1);
      root.appendChild(u);
    }
    const legend = $('growth-legend');
    legend.textContent = '';
    GROW.stacks.forEach((s, i) => {
      const hueOf = (i * 67) % 360;
      let d = '';
      for (let k = 0; k < n; k++)
        d += (k ? 'L' : 'M') + px(xs[k]).toFixed(1) + ',' + py(s.bytes[k]).toFixed(1);
      root.appendChild(svg('path', { class: 'growth-line', d: d, stroke: 'hsl(' + hueOf + ',70%,40%)',
        fill: 'none', 'stroke-width': 2, 'data-fingerprint': s.fingerprint }));
      const li = el('li', null, s.name + ': ' + bytes(s.bytes[n - 1]) +
        (s.rate != null ? ', ' + bytes(Math.round(s.rate)) + '/s' : '') + ' (' + s.fingerprint + ')');
      li.style.color = 'hsl(' + hueOf + ',70%,40%)';
      legend.appendChild(li);
    });
    box.appendChild(root);
    box.dataset.lines = String(GROW.stacks.length);
}

  /* ---- resources not released (resjson.c's "resources") ------------- */
  function renderResources() {
    const R = D.resources;
    if (!R) return;
    $('resources-section').hidden = false;
    const body = document.querySelector('#resources tbody');
    $('resources-none').hidden = R.groups.length > 0;
    for (const g of R.groups) {
      const tr = el('tr');
      tr.dataset.kind = g.kind;
      tr.appendChild(el('td', null, g.kind));
      tr.appendChild(el('td', 'num', count(g.count)));
      /* As the text report: small ids (descriptors) in decimal, others in hex. */
      const id = (v) => (v < 65536 ? String(v) : '0x' + v.toString(16));
      tr.appendChild(el('td', null, g.ids.slice(0, 8).map(id).join(', ') + (g.ids.length > 8 ? ', \u2026' : '')));
      const fr = g.frames.map((f) => (f.function || '??') + (f.file ? ' (' + f.file.replace(/.*\//, '') + ':' + (f.line || '?') + ')' : ''));
      tr.appendChild(el('td', 'frames', fr.slice(0, 4).join(' \u2190 ')));
      body.appendChild(tr);
    }
    for (const w of R.warnings) {
      const p = el('p', 'res-warning', (w.what === 'release_unknown' ? 'Released but never acquired: ' :
        'Acquired twice: ') + w.kind + ' ' + w.id + ' (log line ' + w.line + ')');
      $('resources-section').appendChild(p);
    }
  }

  /* Records gone with no stack in the new run: listed under the graph. */
  function renderDiff() {
    if (!DIFF) return;
    $('view-diff-label').hidden = false;
    state.view = 'diff';
    const box = $('diff-gone');
    if (!DIFF.gone_elsewhere.length) return;
    box.hidden = false;
    box.appendChild(el('div', 'hint', 'Gone since the old run, from stacks the new run did not use:'));
    const ul = el('ul');
    for (const g of DIFF.gone_elsewhere) {
      const li = el('li', null, bytes(g.bytes) + ' in ' + count(g.blocks) + ' blocks ' +
        g.class.replace('-', ' ') + ', ' + (g.function || '??'));
      if (g.file) li.appendChild(el('span', 'loc', ' ' + g.file + ':' + (g.line || '?')));
      ul.appendChild(li);
    }
    box.appendChild(ul);
  }

  /* ---- start -------------------------------------------------------- */
  renderSummary();
  renderResources();
  renderClassFilter();
  renderChart();
  renderGrowth();
  if (!LEAKED.bytes && SUM.alloc_bytes) {
    state.view = 'all';
    table.key = 'all_b';
  }
  renderDiff();
  setView(state.view);
  renderTable();
  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { renderChart(); renderGrowth(); renderFlame(); }, 150);
  });
  document.body.dataset.ready = '1';
})();
