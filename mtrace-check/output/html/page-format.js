/* page-format.js - the HTML report's numbers and elements: byte sizes,
 * counts, times and shares as the page prints them, and the two element
 * makers (HTML and SVG).  A script of its own before page.js, which uses
 * these functions; text only ever reaches the page through textContent.
 * GPL-3.0-or-later. */
'use strict';
const NS = 'http://www.w3.org/2000/svg'; /* a name, not an address */

function bytes(n) {
  if (n < 1024) return n + ' B';
  const u = ['KiB', 'MiB', 'GiB', 'TiB'];
  let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < u.length - 1);
  return n.toFixed(n < 10 ? 2 : n < 100 ? 1 : 0) + ' ' + u[i];
}
function count(n) { return n.toLocaleString('en-US'); }
function ms(t) {
  if (t == null) return '';
  if (t < 1) return (t * 1000).toFixed(0) + ' \u00b5s';
  if (t < 1000) return t.toFixed(t < 10 ? 2 : 1) + ' ms';
  return (t / 1000).toFixed(t < 10000 ? 3 : 1) + ' s';
}
function pct(a, b) { return b ? (100 * a / b).toFixed(1) + '%' : ''; }
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}
function svg(tag, attrs) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  return e;
}
