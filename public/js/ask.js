import { api, ApiError } from './api.js';
import { answerBlock, renderCard, errorBox, forkButton, runLineage, usageLine } from './cards.js';
import { clear, h, plural } from './dom.js';
import { announce } from './announce.js';
import { createProgress } from './progress.js';
import { followRun } from './run-stream.js';
import { describeTable, MAX_CONTEXT_BYTES, pagesFromFiles, parsePassagesText, parseTableText, withPassages } from './context-input.js';

const $ = (id) => document.getElementById(id);
let current = null;
let progress = null;
let health = {};

/** Questions the bundled offline snapshot answers (data/snapshot/DEMO_QUESTIONS.md), with the variant that suits each. */
const EXAMPLES = [
  ['In which city was the director of Forrest Gump born?', 'mintaka'],
  ["Which film is longer, Titanic or Schindler's List?", 'mintaka'],
  ["How many times has Lionel Messi won the Ballon d'Or?", 'mintaka'],
  ['Did Cristiano Ronaldo ever play for FC Barcelona?', 'mintaka'],
  ['Give me all films directed by Christopher Nolan.', 'qald9plus'],
  ['Who was the prime minister of the United Kingdom in 2012?', 'compmix'],
];

export const fillSelect = (select, values, preferred) => {
  clear(select);
  for (const v of values) select.append(h('option', { value: v }, v));
  if (values.includes(preferred)) select.value = preferred;
};

/** The mode a person most likely wants: the HQA agent when the server has it. */
export const preferredMode = (modes) => (modes.includes('agent') ? 'agent' : modes.includes('parametric') ? 'parametric' : modes[0]);

/** The mode the server runs for a variant when a request names none (GET /healthz defaultModes). */
const variantMode = (variant) => {
  const mode = health.defaultModes?.[variant];
  return (health.modes ?? []).includes(mode) ? mode : preferredMode(health.modes ?? []);
};

const STATUS_TEXT = {
  succeeded: 'Finished.',
  failed: 'The run failed.',
  limited: 'The run stopped at a limit; the answer may be partial.',
  cancelled: 'Cancelled.',
};

/** What a person can do when a run cannot be shown at all (not an error inside the run). */
const explainFailure = (err, runId) => {
  if (err.status === 404 && runId) {
    return errorBox(
      'not_found',
      `There is no run with the id "${runId}" on this server.`,
      h('span', {}, 'The link may be mistyped, or the run was made on another server. ', h('a', { href: '/', 'data-internal': '' }, 'Ask a new question'), ' or see ', h('a', { href: '/runs', 'data-internal': '' }, 'recent runs'), '.'),
    );
  }
  if (err.code === 'network' || err.status === 0) {
    return errorBox('network', `Cannot reach the server at ${location.origin}.`, 'Check that it is running (npm run dev) and that you are online, then try again.');
  }
  return errorBox(err.code ?? 'network', err.message);
};

const pendingAnswer = () => h('p', { class: 'answer-pending' }, h('span', { class: 'spinner', 'aria-hidden': 'true' }), 'Working on it… the trace below shows what is being looked up.');

const resetView = (question) => {
  current?.stop();
  progress?.stop();
  $('examples').hidden = true;
  $('run-view').hidden = false;
  $('run-question').textContent = question ?? '';
  $('run-link').hidden = true;
  $('run-status').textContent = 'Starting…';
  $('run-meter').textContent = '';
  clear($('answer-body'));
  $('answer-body').append(pendingAnswer());
  $('answer-panel').hidden = false;
  $('trace').hidden = false;
  clear($('run-error'));
  clear($('cards'));
  $('trace-count').textContent = '';
  $('trace').open = true;
  $('run-usage').textContent = '';
  for (const el of document.querySelectorAll('.run-replay, .run-parent, .run-fork')) el.remove();
  $('cancel-button').hidden = true;
};

// "Step" means one thing across the UI, the API and the docs: a stored unit of the run's work (what "step n of 40"
// and a fork's fromStep count). A step may show as several cards, so the trace counts its cards as entries.
const countEntries = () => {
  const n = $('cards').querySelectorAll('li[data-kind]').length;
  $('trace-count').textContent = `(${plural(n, 'entry', 'entries')})`;
};

/** While a run works, the newest entry stays in view inside the trace, without moving the answer off screen. */
const keepLatestInView = (el) => {
  const box = $('cards');
  if ($('trace').open) box.scrollTop = box.scrollHeight;
  el.classList.add('latest');
  el.previousElementSibling?.classList.remove('latest');
};

const follow = (options) => {
  const cards = $('cards');
  let runId = options.runId ?? null;
  let ended = false;
  let runMode = options.start?.mode;
  let draft = '';
  let draftCall;
  const run = followRun({
    ...options,
    onRunId: (id) => {
      runId = id;
      const link = $('run-link');
      link.href = `/runs/${id}`;
      link.hidden = false;
      if (location.pathname !== `/runs/${id}`) history.replaceState(null, '', `/runs/${id}`);
    },
    onStatus: (text) => {
      if (text) $('run-status').textContent = text;
    },
    // The answer as the model writes it, until the finished (attributed, formatted) answer replaces it.
    onDelta: (delta) => {
      if (!delta.answer || $('answer-body').querySelector('.answer')) return;
      draft = delta.retry || delta.call !== draftCall ? delta.text : draft + delta.text;
      draftCall = delta.call;
      let el = $('answer-body').querySelector('.answer-draft');
      if (!el) {
        clear($('answer-body'));
        el = h('p', { class: 'answer-draft' });
        $('answer-body').append(el);
      }
      el.textContent = draft;
    },
    onEvent: (type, data, id) => {
      if (type === 'run') {
        $('run-question').textContent = data.question;
        document.title = `Run: ${data.question.slice(0, 60)} · HumanIQ answers`;
        $('run-status').textContent = `Running (${data.variant}, ${data.mode})…`;
        runMode = data.mode;
        $('question').value ||= data.question;
        progress = createProgress({ runId: data.runId ?? runId, limits: health.limits, meter: $('run-meter') });
        $('cards').classList.add('running');
        $('cancel-button').hidden = false;
        announce('Run started.');
        return;
      }
      if (type === 'done') {
        ended = true;
        progress?.finish(data);
        $('cards').classList.remove('running');
        $('cancel-button').hidden = true;
        $('run-status').textContent = STATUS_TEXT[data.status] ?? `Ended: ${data.status}.`;
        $('run-usage').textContent = usageLine(data, { mode: runMode, actions: cards.querySelectorAll('li[data-kind="action"]').length });
        if (!$('answer-body').querySelector('.answer')) {
          clear($('answer-body'));
          $('answer-body').append(h('p', { class: 'answer-none' }, data.status === 'cancelled' ? 'The run was cancelled before it found an answer.' : 'No answer was found. The trace below shows what was tried.'));
        } else if (data.status !== 'succeeded') {
          // A run that ended early keeps what it had gathered; say plainly that it is not a finished answer.
          $('answer-body').prepend(h('p', { class: 'answer-partial' }, data.status === 'cancelled' ? 'Partial answer: the run was cancelled before it finished.' : 'Partial answer: the run stopped before it finished.'));
        }
        announce(data.status === 'succeeded' ? 'Run finished.' : STATUS_TEXT[data.status] ?? `Run ${data.status}.`);
        if (runId) void showLineage(runId);
        return;
      }
      if (type === 'answer') {
        clear($('answer-body'));
        $('answer-body').append(answerBlock(data));
        announce(`Answer: ${data.answer || 'none'}.`);
      }
      const el = renderCard(type, data, id);
      if (el) {
        cards.append(el);
        keepLatestInView(el);
        countEntries();
      }
      if (!ended && type !== 'answer' && type !== 'error') $('run-status').textContent = type === 'action' ? `Calling ${data.tool}…` : 'Thinking…';
    },
  });
  current = run;
  $('ask-button').disabled = true;
  run.done
    .catch((err) => {
      progress?.stop();
      $('cancel-button').hidden = true;
      $('run-status').textContent = err.status === 404 ? 'Run not found.' : 'The request failed.';
      clear($('answer-body'));
      $('answer-body').append(h('p', { class: 'answer-none' }, 'No answer.'));
      // Nothing of a run arrived (an unknown id, a refused request): the error alone, no empty answer and trace.
      if (!cards.children.length) {
        $('answer-panel').hidden = true;
        $('trace').hidden = true;
      }
      $('run-error').append(explainFailure(err, options.runId));
    })
    .finally(() => {
      if (current === run) $('ask-button').disabled = false;
    });
  return { run, runId: () => runId };
};

/** After a run ends: mark a replayed run, link parent and forks, and offer "Fork from here" on each step. */
const showLineage = async (runId) => {
  let run;
  try {
    run = await api('GET', `/v1/runs/${encodeURIComponent(runId)}`);
  } catch {
    return; // The trace is on screen already; lineage is an extra.
  }
  if (active?.runId() !== runId) return;
  $('run-usage').after(...runLineage(run));
  const onFork = async (step) => {
    try {
      const fork = await api('POST', `/v1/runs/${encodeURIComponent(runId)}/fork`, { fromStep: step });
      history.pushState(null, '', `/runs/${fork.runId}`);
      showRun(fork.runId);
    } catch (err) {
      $('run-error').append(errorBox(err instanceof ApiError ? err.code : 'network', err.message));
    }
  };
  for (const c of run.checkpoints ?? []) {
    if (c.step < 1) continue;
    const card = $('cards').querySelector(`li[data-event-id="${c.lastEventId}"]`);
    card?.append(forkButton(c.step, onFork));
  }
};

let active = null;

/** Replays (and, if still running, follows) a stored run: the page behind a shared /runs/{id} link. */
export const showRun = (runId) => {
  if (active?.runId() === runId && !$('run-view').hidden) return;
  resetView('');
  // A shared link is opened to read its answer: on a phone the form would fill the screen above it.
  $('ask-form').before($('run-view'));
  active = follow({ runId });
};

/** The plain ask page: the empty state with examples unless a run is on screen. */
export const showAsk = () => {
  if (location.pathname === '/' && $('run-view').hidden) $('examples').hidden = false;
};

const showQuestionError = (text) => {
  const err = $('question-error');
  err.textContent = text;
  err.hidden = !text;
  if (text) $('question').setAttribute('aria-invalid', 'true');
  else $('question').removeAttribute('aria-invalid');
};

const cancel = async () => {
  const id = active?.runId();
  if (!id) return;
  const button = $('cancel-button');
  button.disabled = true;
  $('run-status').textContent = 'Cancelling…';
  try {
    await api('DELETE', `/v1/runs/${encodeURIComponent(id)}`);
  } catch (err) {
    $('run-status').textContent = 'Could not cancel the run.';
    $('run-error').append(errorBox(err instanceof ApiError ? err.code : 'network', err.message));
  } finally {
    button.disabled = false;
  }
};

/** Evidence given in the form: program mode's table (and passages), rag mode's pages. */
const given = { table: null, tableError: '', passages: {}, passagesNote: '', pages: [] };

const setVariant = (variant) => {
  $('variant').value = variant;
  $('mode').value = variantMode(variant);
  showContextFields();
};

const showContextFields = () => {
  const mode = $('mode').value;
  $('context-program').hidden = mode !== 'program';
  $('context-rag').hidden = mode !== 'rag';
  $('mmqa-note').hidden = $('variant').value !== 'mmqa';
};

const showTableStatus = () => {
  const status = $('table-status');
  status.classList.toggle('field-error', !!given.tableError);
  if (given.tableError) $('table-text').setAttribute('aria-invalid', 'true');
  else $('table-text').removeAttribute('aria-invalid');
  if (given.tableError) status.textContent = given.tableError;
  else if (given.table) status.textContent = `Table: ${describeTable(withPassages(given.table, given.passages))}${given.passagesNote}`;
  else status.textContent = 'No table yet.';
};

const readTable = () => {
  const raw = $('table-text').value;
  given.table = null;
  given.tableError = '';
  if (raw.trim()) {
    try {
      given.table = parseTableText(raw);
    } catch (err) {
      given.tableError = err.message;
    }
  }
  showTableStatus();
};

/**
 * The request's `context` for a mode: undefined when it takes none, null (and the reason shown, focus moved) when
 * program mode has no usable table yet.
 */
const contextFor = (mode) => {
  if (mode === 'rag') return given.pages.length ? { pages: given.pages } : undefined;
  if (mode !== 'program') return undefined;
  if (!given.table) {
    if (!given.tableError) given.tableError = 'Program mode answers from a table: choose a table file or paste one.';
    showTableStatus();
    $('table-text').focus();
    return null;
  }
  const context = withPassages(given.table, given.passages);
  if (JSON.stringify(context).length > MAX_CONTEXT_BYTES) {
    given.tableError = 'The table and its passages add up to more than 16 MB, the most one request may carry.';
    showTableStatus();
    return null;
  }
  return context;
};

const initContext = () => {
  $('variant').addEventListener('change', () => setVariant($('variant').value));
  $('mode').addEventListener('change', showContextFields);
  $('table-text').addEventListener('input', readTable);
  $('table-file').addEventListener('change', async () => {
    const file = $('table-file').files[0];
    if (!file) return;
    if (file.size > MAX_CONTEXT_BYTES) {
      given.table = null;
      given.tableError = `${file.name} is larger than 16 MB, the most one request may carry.`;
      return showTableStatus();
    }
    $('table-text').value = await file.text();
    readTable();
  });
  $('passages-file').addEventListener('change', async () => {
    const file = $('passages-file').files[0];
    given.passages = {};
    given.passagesNote = '';
    if (file) {
      try {
        given.passages = parsePassagesText(await file.text());
        given.passagesNote = ` (${file.name}: ${plural(Object.keys(given.passages).length, 'passage')}; only those a cell links to are sent)`;
      } catch (err) {
        given.passagesNote = ` ${err.message}`;
      }
    }
    showTableStatus();
  });
  $('pages-file').addEventListener('change', async () => {
    const status = $('pages-status');
    given.pages = [];
    status.classList.remove('field-error');
    try {
      given.pages = await pagesFromFiles($('pages-file').files);
    } catch (err) {
      status.classList.add('field-error');
      status.textContent = err.message;
      return;
    }
    status.textContent = given.pages.length
      ? `${plural(given.pages.length, 'page')}: ${given.pages.map((p) => p.url).join(', ')}.`
      : 'No pages chosen: rag mode reads the top Wikipedia pages for the question instead.';
  });
  showContextFields();
};

export const initAsk = (h0) => {
  health = h0;
  fillSelect($('variant'), health.variants ?? [], 'mintaka');
  fillSelect($('mode'), health.modes ?? [], variantMode($('variant').value));
  initContext();
  for (const [q, variant] of EXAMPLES) {
    $('example-list').append(
      h('li', {}, h('button', {
        type: 'button',
        class: 'example',
        onclick: () => {
          $('question').value = q;
          if ((health.variants ?? []).includes(variant)) setVariant(variant);
          showQuestionError('');
          $('question').focus();
        },
      }, q)),
    );
  }
  if (health.unreachable) {
    $('examples').after(errorBox('network', `Cannot reach the server at ${location.origin}.`, 'Check that it is running (npm run dev), then reload this page.'));
  } else if (!health.llm?.ready) {
    $('examples').after(errorBox('llm_unavailable', 'No model is configured, so questions cannot be answered yet.', health.llm?.message ?? 'Start the server with a model (see the README, "Two commands"). The tools and the workbench work without one.'));
  }
  $('question').addEventListener('input', () => $('question-error').hidden || showQuestionError(''));
  $('cancel-button').addEventListener('click', cancel);
  $('ask-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const question = $('question').value.trim();
    if (!question) {
      showQuestionError('Type a question first, or pick one of the examples below.');
      return $('question').focus();
    }
    const mode = $('mode').value;
    const context = contextFor(mode);
    if (context === null) return;
    showQuestionError('');
    resetView(question);
    $('examples').after($('run-view'));
    active = follow({ start: { question, variant: $('variant').value, mode, ...(context ? { context } : {}) } });
  });
  // Ctrl/Cmd+Enter asks from the question box; plain Enter keeps adding lines.
  $('question').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) $('ask-form').requestSubmit();
  });
};
