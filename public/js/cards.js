import { ERROR_HINTS } from './api.js';
import { h, plural, safeHref } from './dom.js';

const SOURCE_NAMES = { agent: 'Agent (tools)', wikipedia: 'Wikipedia', wikidata: 'Wikidata', parametric: "Model's own knowledge", table: 'Table', passage: 'Passages', web: 'Web pages', kg: 'Knowledge graph' };
/** Sources that answer from the model's memory rather than from evidence it looked up. */
const MODEL_ONLY = new Set(['parametric']);

const show = (value) => (typeof value === 'string' ? value : JSON.stringify(value, null, 1));
const answered = (v) => {
  const t = show(v ?? '').trim();
  return t !== '' && !/^(i don't know|unknown|none|n\/a)\.?$/i.test(t);
};
const list = (names) => (names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);
const plain = (v) => show(v ?? '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
/** A source's own answer is not the answer given (neither holds the other): its citations back another answer. */
const ownAnswerDiffers = (data, source) => {
  const own = plain((data.answers ?? {})[source]);
  const given = plain(data.answer);
  return own !== '' && given !== '' && !own.includes(given) && !given.includes(own);
};

/**
 * The agreement badge, read from the API's own verdict: `agreementSources` are the sources with a citation that
 * supports the answer (verified in the run's evidence, and about what the question asks), and the badge names
 * exactly those. "Not verified", and evidence that only mentions the answer, are said plainly.
 */
export const agreementBadge = (data) => {
  const supported = (data.agreementSources ?? []).map((k) => SOURCE_NAMES[k] ?? k);
  const c = data.confidence;
  const others = Object.entries(data.answers ?? {}).filter(([k, v]) => answered(v) && !(data.agreementSources ?? []).includes(k));
  if (!supported.length || c === 'none' || !c) {
    if (!others.length) return ['No source answered', 'bad'];
    const mentioning = [...new Set((data.citations ?? []).filter((x) => x.verified && x.support === 'mentions' && !ownAnswerDiffers(data, x.source)).map((x) => SOURCE_NAMES[x.source] ?? x.source))];
    if (mentioning.length) return [`Not supported: ${list(mentioning)} only mention${mentioning.length === 1 ? 's' : ''} the answer`, 'bad'];
    return others.every(([k]) => MODEL_ONLY.has(k))
      ? ["Only the model's own knowledge answered: not verified in any evidence", 'bad']
      : ['Not verified: no evidence this run read contains the answer', 'bad'];
  }
  if (c === 'conflict') return [`Supported but disagreeing: ${list(supported)}`, 'bad'];
  if (c === 'one_source') return [`Supported by one source: ${supported[0]}`, 'neutral'];
  if (c === 'all_agree') return [`Supported by ${list(supported)}, which agree`, 'good'];
  if (c === 'two_agree') return [`Supported by ${list(supported)}; two of them agree`, 'good'];
  return [`Supported by ${list(supported)}`, 'neutral'];
};

/**
 * Each citation: its source, the quote that holds the answer and a link, whether that record supports the answer or
 * only mentions it (and whether a model judged so), or "not verified" when no quote holds it. A source verified for
 * its own answer that is not the answer given (agreementSources leaves it out) says so.
 */
const citationList = (data) =>
  h(
    'div',
    {},
    h('h3', { class: 'sources-heading' }, 'Citations'),
    h(
      'ul',
      { class: 'citations' },
      data.citations.map((c) => {
        const href = safeHref(c.url);
        const name = SOURCE_NAMES[c.source] ?? c.source;
        const where = href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer nofollow' }, c.kind) : c.kind;
        const by = c.supportBy === 'model' ? ', judged by the model' : '';
        const item = (cls, text) => h('li', { class: `citation ${cls}` }, text, h('span', { class: 'kind' }, '('), where, h('span', { class: 'kind' }, ')'));
        if (!c.verified) return item('unverified', `${name}: not verified — the ${c.kind === 'missing' ? 'record it names is not in this run' : 'evidence it read does not contain this answer'} `);
        if (ownAnswerDiffers(data, c.source)) return item('other-answer', `${name} (its own answer, not the one given): “${c.quote}” `);
        if (c.support === 'mentions') return item('verified mentions', `${name} (mentions the answer only, no support${by}): “${c.quote}” `);
        return item('verified supports', `${name}${by ? ` (supports${by})` : ''}: “${c.quote}” `);
      }),
    ),
  );

const card = (kind, id, title, ...body) =>
  h('li', { class: `card card-${kind}`, 'data-event-id': id, 'data-kind': kind }, h('h3', { class: 'card-title' }, title), ...body);

/** An error with the API's message and a line on what to do about it (a default hint per code unless one is given). */
export const errorBox = (code, message, hint) =>
  h(
    'div',
    { class: 'error-box', role: 'alert' },
    h('p', {}, h('strong', {}, 'Error: '), message || code),
    h('p', { class: 'hint' }, hint ?? ERROR_HINTS[code] ?? (String(code).startsWith('limit_') ? ERROR_HINTS.limit : 'Try again; if it keeps failing, check the server log.')),
    h('p', { class: 'code' }, `code: ${code}`),
  );

export const answerBlock = (data) => {
  const [label, tone] = agreementBadge(data);
  const answers = Object.entries(data.answers ?? {});
  const sources = data.sources ?? [];
  return h(
    'div',
    { class: 'answer' },
    h('p', { class: 'answer-text' }, data.answer || 'No answer'),
    h('p', {}, h('span', { class: `badge badge-${tone}`, title: `confidence: ${data.confidence}` }, label)),
    answers.length
      ? h('dl', { class: 'per-source', 'aria-label': 'Answer of each source' }, answers.flatMap(([k, v]) => [h('dt', {}, SOURCE_NAMES[k] ?? k), h('dd', {}, show(v) || '—')]))
      : null,
    (data.citations ?? []).length ? citationList(data) : null,
    sources.length
      ? h(
          'div',
          {},
          h('h3', { class: 'sources-heading' }, 'Sources'),
          h(
            'ul',
            { class: 'sources' },
            sources.map((s) => {
              const href = safeHref(s.url);
              const text = s.title || s.url || s.kind;
              return h('li', {}, href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer nofollow' }, text) : text, h('span', { class: 'kind' }, ` (${s.kind})`));
            }),
          ),
        )
      : null,
  );
};

/** One card per event; `run` and `done` are shown by the page header and footer instead (returns null). */
export const renderCard = (type, data, id) => {
  switch (type) {
    case 'thought':
      return card('thought', id, 'Thought', h('p', { class: 'pre' }, data.text ?? ''));
    case 'action':
      return card('action', id, `Action: ${data.tool}`, h('pre', { class: 'input' }, show(data.input)));
    case 'observation': {
      const output = data.output ?? '';
      return card(
        'observation',
        id,
        `Observation from ${data.tool}`,
        h(
          'details',
          { open: output.length <= 400 },
          h('summary', {}, [data.error ? 'Tool error' : '', `${output.length} characters`, duration(data.ms)].filter(Boolean).join(' · ')),
          h('pre', { class: 'output' }, output),
        ),
      );
    }
    case 'answer':
      // The full answer leads the page; the trace ends with a short line so it reads to its conclusion.
      return card('answer', id, 'Final answer', h('p', { class: 'pre' }, data.answer || 'No answer'));
    case 'error':
      return card('error', id, data.code === 'cancelled' ? 'The run was cancelled' : 'The run stopped', errorBox(data.code, data.message));
    default:
      return null;
  }
};

/** How long an observation's step took; nothing when the step does not say (one stored before steps were timed). */
const duration = (ms) => (typeof ms !== 'number' || !Number.isFinite(ms) ? '' : ms < 1 ? 'under 1 ms' : `${Math.round(ms)} ms`);

/**
 * What a run did, in the words of its mode: the agent calls tools; program mode runs programs in its sandbox and
 * rag mode walks its pipeline, neither through the agent's tools, so "0 tool calls" would say nothing true.
 */
const workDone = (u, mode, actions) => {
  if ((u.toolCalls ?? 0) > 0 || !actions) return plural(u.toolCalls ?? 0, 'tool call');
  if (mode === 'program') return plural(actions, 'program run');
  if (mode === 'rag') return plural(actions, 'pipeline stage');
  return plural(actions, 'action');
};

export const usageLine = (data, { mode, actions = 0 } = {}) => {
  const u = data.usage ?? {};
  return `Run ${data.status}: ${plural(u.llmCalls ?? 0, 'model call')}, ${workDone(u, mode, actions)}, ${plural((u.promptTokens ?? 0) + (u.completionTokens ?? 0), 'token')}, ${data.timings?.totalMs ?? '?'} ms.`;
};

/**
 * What the run JSON adds to a trace: a "replayed" mark, the run it was forked from, and a "Fork from here" button
 * under the last card of every step a fork can start after (POST /v1/runs/{id}/fork).
 */
export const runLineage = (run) => {
  const parts = [];
  if (run.replay) {
    parts.push(h('p', { class: 'run-replay' }, h('strong', {}, 'Replayed'), ` evidence from archive ${run.replay.archiveId}; ${plural(run.replay.misses, 'request')} not in the recording.`));
  }
  if (run.parent) {
    parts.push(h('p', { class: 'run-parent' }, `Forked after step ${run.parent.fromStep} of `, h('a', { href: `/runs/${run.parent.runId}`, 'data-internal': '' }, `run ${run.parent.runId.slice(0, 8)}`), '.'));
  }
  for (const f of run.forks ?? []) {
    parts.push(h('p', { class: 'run-fork' }, `Forked after step ${f.fromStep}: `, h('a', { href: `/runs/${f.runId}`, 'data-internal': '' }, `run ${f.runId.slice(0, 8)}`), '.'));
  }
  return parts;
};

export const forkButton = (step, onFork) =>
  h('button', { type: 'button', class: 'fork-button', 'data-step': String(step), title: `Start a new run from the state after step ${step}`, onclick: () => onFork(step) }, 'Fork from here');
