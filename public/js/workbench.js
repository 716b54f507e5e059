import { api } from './api.js';
import { preferredMode, fillSelect } from './ask.js';
import { errorBox } from './cards.js';
import { clear, h, plural, stripControl } from './dom.js';
import { followRun } from './run-stream.js';

const $ = (id) => document.getElementById(id);
const TOOLS = ['wikisearch', 'read', 'getWikidataID', 'generateQuery', 'runQuery', 'getLabel'];
const TOOL_HINTS = {
  wikisearch: 'a page title or search words',
  read: 'page title, then what to find',
  getWikidataID: 'an entity name',
  generateQuery: 'what the SPARQL query should find',
  runQuery: 'a SPARQL query',
  getLabel: 'a Wikidata id such as Q90',
};
let stepSeq = 0;

const say = (text, isError = false) => {
  const m = $('wb-message');
  m.textContent = text;
  m.classList.toggle('bad', isError);
};

const inputText = (v) => (typeof v === 'string' ? v : JSON.stringify(v));

/** One editable step: thought, tool, input, a button that runs the tool for real, observation, rating. */
const stepRow = (step = {}) => {
  const n = ++stepSeq;
  const f = (name) => `step${n}-${name}`;
  const tool = h('select', { id: f('tool'), class: 'step-tool' });
  const tools = step.action && !TOOLS.includes(step.action) ? [...TOOLS, step.action] : TOOLS;
  for (const t of tools) tool.append(h('option', { value: t }, TOOLS.includes(t) ? t : `${t} (not an agent tool)`));
  tool.value = step.action ?? 'wikisearch';
  const input = h('input', { id: f('input'), class: 'step-input', type: 'text', placeholder: TOOL_HINTS[tool.value] });
  input.value = step.actionInput ?? '';
  tool.addEventListener('change', () => (input.placeholder = TOOL_HINTS[tool.value] ?? ''));
  const thought = h('textarea', { id: f('thought'), class: 'step-thought', rows: 2, placeholder: 'What do you need to find out next, and which tool will tell you?' });
  thought.value = step.thought ?? '';
  const observation = h('textarea', { id: f('observation'), class: 'step-observation', rows: 4, placeholder: 'Press "Run tool" to fill this in, or type what the tool returned.' });
  observation.value = step.observation ?? '';
  const rating = h('select', { id: f('rating'), class: 'step-rating' }, h('option', { value: '' }, 'not rated'), [1, 2, 3, 4, 5].map((r) => h('option', { value: r }, `${r}`)));
  rating.value = step.rating ? String(step.rating) : '';
  const note = h('p', { class: 'muted step-note', 'aria-live': 'polite' }, step.observation ? '' : 'Write the thought, pick a tool and its input, then press "Run tool" and rate what came back.');
  const run = h('button', { type: 'button', class: 'step-run' }, 'Run tool');
  run.addEventListener('click', async () => {
    if (!input.value.trim()) return input.focus();
    run.disabled = true;
    note.textContent = `Running ${tool.value}…`;
    try {
      const res = await api('POST', `/v1/tools/${encodeURIComponent(tool.value)}`, { input: input.value });
      observation.value = res.output;
      note.textContent = `${res.error ? 'Tool error' : 'Observation'} in ${res.ms} ms. Rate it below.`;
    } catch (err) {
      // Without a model, read and generateQuery cannot run: the person writes what they would have returned.
      note.textContent = err.code === 'llm_unavailable' ? `${err.message} — type the observation yourself.` : `Failed: ${err.message}`;
      observation.focus();
    } finally {
      run.disabled = false;
    }
  });
  const remove = h('button', { type: 'button', class: 'step-remove' }, 'Remove step');
  const li = h(
    'li',
    { class: 'step' },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Step'),
      h('label', { for: f('thought') }, 'Thought'),
      thought,
      h('div', { class: 'row' }, h('label', { for: f('tool') }, 'Tool'), tool),
      h('label', { for: f('input') }, 'Action input'),
      h('div', { class: 'row grow' }, input, run),
      h('label', { for: f('observation') }, 'Observation'),
      observation,
      note,
      h('div', { class: 'row' }, h('label', { for: f('rating') }, 'Rate the observation (1 = useless, 5 = exactly what was needed)'), rating, remove),
    ),
  );
  remove.addEventListener('click', () => {
    li.remove();
    renumber();
    $('wb-add-step').focus();
  });
  return li;
};

/** Legends say "Step 1", "Step 2", … so a screen reader knows where it is after steps are added or removed. */
const renumber = () => {
  const steps = $('wb-steps');
  steps.querySelectorAll('li.step legend').forEach((l, i) => (l.textContent = `Step ${i + 1}`));
  steps.querySelector('li.steps-empty')?.remove();
  if (!steps.querySelector('li.step')) {
    steps.append(h('li', { class: 'steps-empty muted' }, 'No steps yet. Add one step per tool call: what you want to find out, the tool and its input, and what it returned.'));
  }
};

/** Pasted text can carry control characters that show as boxes; they are removed as the person types. */
const cleanOnInput = (e) => {
  const el = e.target;
  if (!(el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && el.type === 'text'))) return;
  const clean = stripControl(el.value);
  if (clean === el.value) return;
  const caret = el.selectionStart ?? clean.length;
  const removed = el.value.length - clean.length;
  el.value = clean;
  el.setSelectionRange(Math.max(0, caret - removed), Math.max(0, caret - removed));
};

const readForm = () => ({
  benchmark: $('wb-benchmark').value,
  question: $('wb-question').value,
  steps: [...$('wb-steps').querySelectorAll('li.step')].map((li) => ({
    thought: li.querySelector('.step-thought').value,
    action: li.querySelector('.step-tool').value,
    actionInput: li.querySelector('.step-input').value,
    observation: li.querySelector('.step-observation').value,
    rating: li.querySelector('.step-rating').value ? Number(li.querySelector('.step-rating').value) : null,
  })),
  finalThought: $('wb-final-thought').value,
  finalAnswer: $('wb-final-answer').value,
});

const loadForm = (p) => {
  $('wb-id').value = p.id ?? '';
  $('wb-editing').textContent = p.id ? `Editing saved process ${p.id.slice(0, 8)}` : 'New process';
  if (p.benchmark) $('wb-benchmark').value = p.benchmark;
  $('wb-question').value = stripControl(p.question ?? '');
  clear($('wb-steps'));
  for (const s of p.steps ?? []) $('wb-steps').append(stepRow(s));
  renumber();
  $('wb-final-thought').value = p.finalThought ?? '';
  $('wb-final-answer').value = p.finalAnswer ?? '';
};

const FIELD_WORDS = { question: 'the question', thought: 'thought', action: 'tool', actionInput: 'action input', observation: 'observation', rating: 'rating', finalThought: 'the final thought', finalAnswer: 'the final answer', benchmark: 'the benchmark' };

/** What is missing, in words, with the field to focus; null when the form can be saved. */
const missing = (form) => {
  if (!form.question.trim()) return ['Write the question before saving.', $('wb-question')];
  if (!form.steps.length) return ['Add at least one step: a thought, a tool call and what it returned.', $('wb-add-step')];
  const rows = [...$('wb-steps').querySelectorAll('li.step')];
  for (const [i, st] of form.steps.entries()) {
    for (const [key, cls] of [['thought', '.step-thought'], ['actionInput', '.step-input'], ['observation', '.step-observation']]) {
      if (!String(st[key] ?? '').trim()) return [`Step ${i + 1} has no ${FIELD_WORDS[key]} yet.`, rows[i].querySelector(cls)];
    }
  }
  if (!form.finalThought.trim()) return ['Write the final thought: how the steps lead to the answer.', $('wb-final-thought')];
  if (!form.finalAnswer.trim()) return ['Write the final answer before saving.', $('wb-final-answer')];
  return null;
};

/** A server validation message ("steps.0.thought: thought must not be empty") in the words of the form. */
export const inWords = (message) =>
  String(message)
    .split(/;\s*/)
    .map((part) => {
      const m = /^([\w.]+):\s*(.*)$/.exec(part);
      if (!m) return part;
      const path = m[1].split('.');
      const field = FIELD_WORDS[path.at(-1)] ?? path.at(-1);
      const where = path[0] === 'steps' && /^\d+$/.test(path[1] ?? '') ? `Step ${Number(path[1]) + 1}: ` : '';
      const rest = m[2].replace(new RegExp(`^${path.at(-1)}\\b`), field);
      return `${where}${rest.charAt(0).toUpperCase()}${rest.slice(1)}`;
    })
    .join(' ');

const save = async (asNew) => {
  const id = $('wb-id').value;
  const problem = missing(readForm());
  if (problem) {
    say(`Not saved: ${problem[0]}`, true);
    problem[1]?.focus();
    return;
  }
  say('Saving…');
  try {
    const saved = id && !asNew ? await api('PUT', `/v1/demonstrations/${id}`, readForm()) : await api('POST', '/v1/demonstrations', readForm());
    loadForm(saved);
    say(`Saved (${plural(saved.steps.length, 'step')}).`);
    await refreshList();
    await showExport(saved);
  } catch (err) {
    say(`Not saved: ${inWords(err.message)}`, true);
  }
};

const showExport = async (item) => {
  const text = await api('GET', `/v1/demonstrations/${item.id}/export`);
  $('export-view').hidden = false;
  $('export-text').textContent = text;
  const link = $('export-download');
  link.href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const slug = item.question.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').split('-').slice(0, 6).join('-') || 'process';
  link.download = `${slug}.txt`;
  $('export-path').textContent = `Save as fewshot/${item.benchmark}/NN-${slug}.txt`;
};

const refreshList = async () => {
  const list = $('saved-list');
  const filter = $('saved-filter').value;
  try {
    const { demonstrations } = await api('GET', `/v1/demonstrations${filter ? `?benchmark=${filter}` : ''}`);
    clear(list);
    if (!demonstrations.length) list.append(h('li', { class: 'muted' }, 'Nothing saved yet.'));
    for (const d of demonstrations) {
      const edit = h('button', { type: 'button', onclick: () => (loadForm(d), say('Loaded for editing.'), $('wb-question').focus()) }, 'Edit');
      const exp = h('button', { type: 'button', onclick: () => showExport(d).catch((e) => say(e.message, true)) }, 'Export');
      const del = h('button', {
        type: 'button',
        onclick: async () => {
          if (!confirm(`Delete "${stripControl(d.question)}"?`)) return;
          await api('DELETE', `/v1/demonstrations/${d.id}`).catch((e) => say(e.message, true));
          if ($('wb-id').value === d.id) $('wb-id').value = '';
          refreshList();
        },
      }, 'Delete');
      list.append(
        h('li', { 'data-id': d.id }, h('span', { class: 'saved-q' }, stripControl(d.question)), h('span', { class: 'muted' }, ` · ${d.benchmark} · ${plural(d.steps.length, 'step')} · ${new Date(d.updatedAt).toLocaleString()}`), h('span', { class: 'buttons' }, edit, exp, del)),
      );
    }
  } catch (err) {
    clear(list);
    list.append(h('li', {}, errorBox(err.code, err.message)));
  }
};

/** Verify & fix: the agent's run, grouped into steps, each one a point where the person can take over. */
const runVerify = () => {
  const question = $('wb-question').value.trim();
  if (!question) return say('Write the question first.', true), $('wb-question').focus();
  const trace = $('verify-trace');
  clear(trace);
  const steps = [];
  let pendingThought = '';
  const takeOver = (upTo, final) => {
    loadForm({
      id: '',
      benchmark: $('wb-benchmark').value,
      question,
      steps: steps.slice(0, upTo).map((s) => ({ ...s, rating: null })),
      finalThought: final ? pendingThought : '',
      finalAnswer: final?.answer ?? '',
    });
    say(final ? 'Took over the whole trace: correct it and save.' : `Took over steps 1–${upTo}: correct them, continue, and save.`);
    $('wb-question').scrollIntoView({ block: 'start' });
  };
  $('verify-status').textContent = 'Running…';
  const run = followRun({
    start: { question, variant: $('wb-benchmark').value, mode: $('verify-mode').value },
    onStatus: (t) => t && ($('verify-status').textContent = t),
    onEvent: (type, data) => {
      if (type === 'thought') pendingThought = data.text;
      else if (type === 'action') {
        steps.push({ thought: pendingThought, action: data.tool, actionInput: inputText(data.input), observation: '' });
        pendingThought = '';
        const k = steps.length;
        trace.append(
          h('li', { class: 'card card-action', 'data-step': k },
            h('h3', { class: 'card-title' }, `Step ${k}: ${data.tool}`),
            h('p', { class: 'pre' }, stripControl(steps[k - 1].thought)),
            h('pre', { class: 'input' }, steps[k - 1].actionInput),
            h('pre', { class: 'output' }),
            h('button', { type: 'button', onclick: () => takeOver(k) }, `Take over from step ${k}`)),
        );
      } else if (type === 'observation' && steps.length) {
        // A native turn's calls come as their actions, then their observations in the same order: each goes to the
        // oldest step still waiting for one (in the text protocol, that is the last step).
        const k = steps.findIndex((_, i) => !trace.querySelector(`[data-step="${i + 1}"][data-observed]`)) + 1 || steps.length;
        steps[k - 1].observation = data.output;
        const item = trace.querySelector(`[data-step="${k}"]`);
        item?.setAttribute('data-observed', '');
        if (item) item.querySelector('pre.output').textContent = data.output;
      } else if (type === 'answer') {
        trace.append(
          h('li', { class: 'card card-answer' },
            h('h3', { class: 'card-title' }, `Answer: ${data.answer}`),
            h('button', { type: 'button', onclick: () => takeOver(steps.length, data) }, 'Take over the whole trace')),
        );
      } else if (type === 'error') trace.append(h('li', {}, errorBox(data.code, data.message)));
      else if (type === 'done') $('verify-status').textContent = `Agent run ${data.status}.`;
    },
  });
  run.done.catch((err) => {
    $('verify-status').textContent = '';
    trace.append(h('li', {}, errorBox(err.code ?? 'network', err.message)));
  });
};

export const initWorkbench = (health) => {
  fillSelect($('verify-mode'), health.modes ?? [], preferredMode(health.modes ?? []));
  $('workbench-page').addEventListener('input', cleanOnInput);
  loadForm({});
  $('wb-add-step').addEventListener('click', () => {
    const li = stepRow();
    $('wb-steps').append(li);
    renumber();
    li.querySelector('textarea').focus();
  });
  $('wb-form').addEventListener('submit', (e) => {
    e.preventDefault();
    save(false);
  });
  $('wb-save-new').addEventListener('click', () => save(true));
  $('wb-clear').addEventListener('click', () => (loadForm({}), say('')));
  $('verify-run').addEventListener('click', runVerify);
  $('saved-filter').addEventListener('change', refreshList);
  $('saved-refresh').addEventListener('click', refreshList);
  $('import-button').addEventListener('click', async () => {
    try {
      const item = await api('POST', '/v1/demonstrations/import', { benchmark: $('import-benchmark').value, text: $('import-text').value });
      loadForm(item);
      say('Imported; it is now open for editing.');
      $('import-text').value = '';
      refreshList();
    } catch (err) {
      say(`Not imported: ${inWords(err.message)}`, true);
    }
  });
  refreshList();
};
