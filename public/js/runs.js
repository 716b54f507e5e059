import { api } from './api.js';
import { errorBox } from './cards.js';
import { clear, h } from './dom.js';

const $ = (id) => document.getElementById(id);
const PAGE_SIZE = 20;
let cursor = null;

const when = (t) => {
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleString();
};
const duration = (ms) => (typeof ms === 'number' ? (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`) : '');

const row = (r) =>
  h(
    'tr',
    { 'data-run-id': r.runId },
    h('td', {}, h('a', { href: `/runs/${encodeURIComponent(r.runId)}`, 'data-internal': '' }, r.question || '(no question)')),
    h('td', {}, r.variant ?? ''),
    h('td', {}, r.mode ?? ''),
    h('td', {}, h('span', { class: `run-status status-${r.status}` }, r.status ?? '')),
    h('td', { class: 'run-answer' }, r.answer ?? '—'),
    h('td', {}, h('time', { datetime: new Date(r.createdAt ?? 0).toISOString?.() ?? '' }, when(r.createdAt)), r.durationMs != null ? h('span', { class: 'muted' }, ` · ${duration(r.durationMs)}`) : null),
  );

const table = () =>
  h(
    'table',
    { class: 'runs' },
    h('caption', { class: 'visually-hidden' }, 'Recent runs, newest first'),
    h('thead', {}, h('tr', {}, ['Question', 'Variant', 'Mode', 'Status', 'Answer', 'Started'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', { id: 'runs-rows' }),
  );

const load = async (more) => {
  const body = $('runs-body');
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (more && cursor) params.set('cursor', cursor);
  try {
    const page = await api('GET', `/v1/runs?${params}`);
    const runs = page.runs ?? [];
    cursor = page.nextCursor ?? null;
    if (!more) {
      clear(body);
      if (!runs.length) {
        body.append(h('p', {}, 'No runs yet. ', h('a', { href: '/', 'data-internal': '' }, 'Ask a question'), ' and it will be listed here.'));
        $('runs-more').hidden = true;
        return;
      }
      body.append(table());
    }
    for (const r of runs) $('runs-rows').append(row(r));
    $('runs-more').hidden = !cursor;
  } catch (err) {
    clear(body);
    body.append(errorBox(err.code ?? 'network', err.message));
  }
};

/** The runs page: recent runs (GET /v1/runs, scoped to the API key), each opening its replay. */
export const showRuns = () => {
  cursor = null;
  load(false);
};

$('runs-more').addEventListener('click', () => load(true));
