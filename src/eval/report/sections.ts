import type { EvalManifest } from '../manifest';
import type { Interval } from '../stats/bootstrap';
import type { EvalItem, ItemScore, Prediction } from '../types';
import { escapeHtml, safeHref } from './escape';
import { traceHtml } from './trace';

const clip = (s: string, n = 240) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Where a run can be inspected: `<url>/runs/<runId>` (the web UI's run page). */
export const runLink = (url: string | undefined, runId: string | undefined): string => {
  if (!url || !runId) return '';
  const href = safeHref(`${url.replace(/\/+$/, '')}/runs/${encodeURIComponent(runId)}`);
  return href ? `<a href="${escapeHtml(href)}">${escapeHtml(runId)}</a>` : escapeHtml(runId);
};

/** The banner a rehearsal's report opens with: its 100 % is the path working, not a model's skill. */
export const rehearsalBanner = (): string =>
  '<p class="banner"><b>Rehearsal:</b> the model was a stub that answered every question with its gold answer. These numbers measure the harness, the service and the scorer, not any model; do not publish them as results.</p>';

export const warningsHtml = (warnings: readonly string[]): string =>
  warnings.map((w) => `<p class="banner warn"><b>Warning:</b> ${escapeHtml(w)}</p>`).join('');

const kv = (k: string, v: unknown) => `<tr><th>${escapeHtml(k)}</th><td>${typeof v === 'string' ? escapeHtml(v) : `<code>${escapeHtml(JSON.stringify(v))}</code>`}</td></tr>`;

/** What was evaluated, at the top of the report (the same fields as metrics.json's `manifest`). */
export const manifestHtml = (m: EvalManifest): string => {
  const models = Object.entries(m.models).map(([p, names]) => `${p}: ${names.join(', ') || '?'}`).join(' · ') || 'no model call reported';
  const tokens = `${m.tokens.promptTokens.toLocaleString('en')} prompt + ${m.tokens.completionTokens.toLocaleString('en')} completion`;
  const ids = m.asked.ids.length > 12 ? `${m.asked.ids.slice(0, 12).join(', ')} … (${m.asked.n})` : m.asked.ids.join(', ');
  return `<table class="narrow manifest"><tbody>${[
    kv('service', `${m.service.url} · version ${m.service.version} · commit ${m.service.commit}`),
    kv('models that answered', models),
    kv('variant / mode / recipe', `${m.variant ?? 'default'} / ${m.mode ?? 'default'} / ${m.recipe ?? 'default'}`),
    kv('options sent', m.options ?? {}),
    kv('data', m.data ? `${m.data.path} · sha256 ${m.data.sha256} · ${m.data.questions} questions` : 'not recorded'),
    kv('asked', `${m.asked.n} questions${m.sample ? ` · sample ${m.sample.n} seed ${m.sample.seed}` : ''}${m.limit ? ` · limit ${m.limit}` : ''}${m.language ? ` · language ${m.language}` : ''}: ${ids}`),
    kv('eval CLI', m.evalCli ? `version ${m.evalCli.version} · commit ${m.evalCli.commit}` : 'not recorded'),
    kv('time', `${m.startedAt} → ${m.endedAt} · concurrency ${m.concurrency}`),
    kv('judge', m.judge ?? 'none'),
    kv('tokens', tokens),
    kv('cost', m.cost ? `${m.cost.total.toFixed(4)} (at ${m.cost.pricePerMillionIn} in / ${m.cost.pricePerMillionOut} out per million tokens)` : 'no --price-in/--price-out given'),
  ].join('')}</tbody></table>`;
};

/** Each metric, its 95 % interval and, when empty gold sets are counted, its value without them. */
export const metricCards = (metrics: Record<string, number | null>, ci95: Record<string, Interval | null>, nonEmpty?: Record<string, number | null> | null): string =>
  Object.entries(metrics)
    .map(([k, v]) => {
      const ci = ci95[k];
      const alt = nonEmpty && nonEmpty[k] !== undefined ? `<small>non-empty gold: ${nonEmpty[k] === null ? '–' : nonEmpty[k]!.toFixed(2)}</small>` : '';
      return `<div class="metric">${escapeHtml(k)}<b>${v === null ? '–' : v.toFixed(2)}</b>${ci ? `<small>95 % CI [${ci[0].toFixed(1)}, ${ci[1].toFixed(1)}]</small>` : ''}${alt}</div>`;
    })
    .join('');

const IDK = /^\s*(i\s+(do\s+not|don'?t)\s+know|unknown|n\/a|no answer)?\s*[.!]?\s*$/i;

export const OUTCOMES = ['right', 'partly right', 'wrong', 'abstained', 'error'] as const;

export const outcomeOf = (p: Prediction | undefined, s: ItemScore): (typeof OUTCOMES)[number] => {
  if (!p || p.error) return 'error';
  if (s.correct) return 'right';
  if (s.score > 0) return 'partly right';
  return IDK.test(typeof p.answer === 'string' ? p.answer : '') ? 'abstained' : 'wrong';
};

const sourcesCell = (p: Prediction | undefined): string => {
  const a = p?.answers;
  if (!a || typeof a !== 'object') return '';
  if (Array.isArray(a)) return escapeHtml(clip(a.map(String).join(', ')));
  return Object.entries(a as Record<string, unknown>)
    .map(([k, v]) => `<div><b>${escapeHtml(k)}</b>: ${escapeHtml(clip(typeof v === 'string' ? v : JSON.stringify(v) ?? '', 120))}</div>`)
    .join('');
};

/** Every asked question, grouped by outcome, with its per-source answers, confidence, its trace (from the prediction) and the run's page on the service. */
export const questionsHtml = (
  items: readonly EvalItem[],
  predictions: Map<string, Prediction>,
  scores: readonly ItemScore[],
  o: { url?: string; gold: (item: EvalItem) => string },
): string => {
  const byId = new Map(scores.map((s) => [s.id, s]));
  const groups = new Map<string, string[]>(OUTCOMES.map((k) => [k, []]));
  for (const item of items) {
    const s = byId.get(item.id);
    if (!s) continue;
    const p = predictions.get(item.id);
    const answer = p?.error ? `<span class="err">${escapeHtml(clip(p.error))}</span>` : p ? escapeHtml(clip(String(p.answer ?? ''))) : '<span class="err">no prediction</span>';
    groups.get(outcomeOf(p, s))!.push(
      `<tr><td><code>${escapeHtml(item.id)}</code></td><td>${escapeHtml(clip(item.question))}${item.type ? ` <small>(${escapeHtml(item.type)})</small>` : ''}</td><td>${escapeHtml(clip(o.gold(item)))}${s.emptyGold ? ' <small>(empty gold)</small>' : ''}</td>` +
        `<td>${answer}</td><td>${sourcesCell(p)}</td><td class="num">${(s.score * 100).toFixed(0)}</td><td>${escapeHtml(p?.confidence ?? '')}</td><td>${runLink(o.url, p?.runId)}</td></tr>` +
        (p?.steps?.length ? `<tr class="trace"><td colspan="8">${traceHtml(p.steps)}</td></tr>` : ''),
    );
  }
  const head = '<thead><tr><th>id</th><th>question</th><th>gold</th><th>answer</th><th>per source</th><th class="num">score</th><th>confidence</th><th>run</th></tr></thead>';
  return [...groups]
    .filter(([, rows]) => rows.length)
    .map(([k, rows]) => `<details${k === 'wrong' || k === 'error' ? ' open' : ''}><summary>${escapeHtml(k)} (${rows.length})</summary><table>${head}<tbody>${rows.join('')}</tbody></table></details>`)
    .join('');
};
