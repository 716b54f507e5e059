import { escapeHtml } from './escape';

/**
 * A run's trace as the report shows it, from the steps its prediction carries: each thought, action (tool and
 * input), observation (clipped), error, and the answer with each source's answer and its citations. Everything is
 * escaped (model and page text are untrusted); nothing needs the service.
 */

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}… (${s.length.toLocaleString('en')} characters)` : s);
const text = (v: unknown, n = 1500) => escapeHtml(clip(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''), n));

type Step = Record<string, unknown>;

const citations = (list: unknown): string => {
  if (!Array.isArray(list) || !list.length) return '';
  const rows = list
    .slice(0, 20)
    .map((c: Step) => `<li>${c.verified ? '✔' : '✘'} <b>${text(c.source, 60)}</b> ${text(c.kind, 40)} ${text(c.key, 120)}${c.quote ? `: “${text(c.quote, 300)}”` : ''}</li>`)
    .join('');
  return `<div>citations:<ul>${rows}</ul></div>`;
};

const answers = (a: unknown): string =>
  a && typeof a === 'object' && !Array.isArray(a)
    ? Object.entries(a as Step)
        .map(([k, v]) => `<div><b>${escapeHtml(k)}</b>: ${text(v, 300)}</div>`)
        .join('')
    : '';

const stepRow = (s: Step): string => {
  const kind = typeof s.type === 'string' ? s.type : '?';
  let body: string;
  if (kind === 'thought') body = text(s.text);
  else if (kind === 'action') body = `<code>${text(s.tool, 60)}</code> ${text(s.input, 600)}`;
  else if (kind === 'observation') body = `<code>${text(s.tool, 60)}</code>${s.error ? ' <span class="err">(error)</span>' : ''} ${typeof s.ms === 'number' ? `<small>${s.ms} ms</small>` : ''}<pre>${text(s.output, 2000)}</pre>`;
  else if (kind === 'answer') body = `<b>${text(s.answer, 600)}</b> <small>confidence ${text(s.confidence ?? '', 20)}</small>${answers(s.answers)}${citations(s.citations)}`;
  else if (kind === 'error') body = `<span class="err">${text(s.code, 60)}: ${text(s.message, 600)}</span>`;
  else body = text(s, 600);
  return `<tr><td class="step">${escapeHtml(kind)}</td><td>${body}</td></tr>`;
};

/** A collapsed trace, or '' when the prediction carries no steps (an old predictions file, a failed request). */
export const traceHtml = (steps: unknown[] | undefined): string => {
  if (!Array.isArray(steps) || !steps.length) return '';
  const rows = steps.filter((s): s is Step => !!s && typeof s === 'object').map(stepRow).join('');
  return `<details class="trace"><summary>trace (${steps.length} steps)</summary><table class="trace">${rows}</table></details>`;
};
