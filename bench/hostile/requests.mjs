// The page, sandbox and request-limit cases of bench/hostile (issue 14), each through the public API of a real
// `npm run dev` with the OpenAI-compatible stub as the model, next to a normal request measured just before it.
import { measureCase } from './measure.mjs';

const FOUR_MB = 4 * 1024 * 1024;
/** `unit` repeated to just under the 4 MB page limit (bytes: every unit here is ASCII). */
const page = (unit) => unit.repeat(Math.floor((FOUR_MB - 1) / unit.length));
const flat = '<p>The Danube is the second-longest river in Europe. It flows through ten countries.</p>\n';

export const pageCases = [
  { name: 'page: flat 4 MB of paragraphs (reference)', html: page(flat) },
  { name: 'page: <div>×838,000 (issue)', html: page('<div>') },
  { name: 'page: <ul><li>x ×466,000 (issue)', html: page('<ul><li>x') },
  { name: 'page: <table><tr><td> ×279,000 (issue)', html: page('<table><tr><td>') },
  { name: 'page: misnested <b><i> (issue)', html: page('<b><i>x</b></i>') },
  { name: 'page: unclosed <b><i>x', html: page('<b><i>x') },
];

const HOSTILE_PROGRAM = 'function solve(t){ const a=[]; for(;;) a.push(new Array(1e6).fill(1)); }';
export const fence = (code) => `Here is the program.\n\`\`\`javascript\n${code}\n\`\`\`\n`;
export const table = {
  title: 'Winners',
  columns: ['Year', 'Winner'],
  rows: [[{ text: '2019' }, { text: 'Kari Vold' }], [{ text: '2020' }, { text: 'Jonas Meyer' }]],
};

const json = (url, path, body, headers = {}) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** POST /v1/answer without SSE: answers once the run has ended. */
export const answer = async (url, body) => {
  let res;
  let retried = '';
  try {
    res = await json(url, '/v1/answer', body);
  } catch (err) {
    // After an upload the Worker stopped reading, wrangler dev's proxy resets the next connection (a local dev
    // quirk, not the Worker: workerd and /healthz stay up). Try once more and say so in the row.
    if (String(err?.message) !== 'fetch failed') throw err;
    await new Promise((r) => setTimeout(r, 500));
    res = await json(url, '/v1/answer', body);
    retried = ' [retried once after a dev-proxy connection reset]';
  }
  const run = await res.json().catch(() => ({}));
  if (!res.ok) return `${res.status} ${run.error?.code ?? ''}${retried}`;
  const notes = (run.steps ?? []).flatMap((s) => String(s.data?.output ?? '').split('\n').filter((l) => l.startsWith('note:')));
  return `${run.status}: ${JSON.stringify(run.answer)}${run.error ? ` (${run.error.code}: ${run.error.message})` : ''}${notes.length ? ` — ${notes[0].slice(0, 120)}` : ''}${retried}`;
};

/** Status and error code of a refusal; a body that is not JSON (a proxy's text) is shown as text. */
const verdict = async (res) => {
  const text = await res.text();
  try {
    return `${res.status} ${JSON.parse(text).error?.code ?? ''}`;
  } catch {
    return `${res.status} ${text.slice(0, 80)}`;
  }
};

export const normal = (url) => () => answer(url, { question: 'What is the capital of France?', mode: 'parametric' });
export const nextWorks = (url) => async () => (await normal(url)()).startsWith('succeeded');

const RAG_SCRIPT = {
  attribute: ['Dynamism: static\nDomain: open'],
  reasoning: ['<reasoning>The page says ten.</reasoning>\n<answer>ten</answer>\n<false_premise>no</false_premise>'],
  code: [fence(HOSTILE_PROGRAM)],
  refine: [fence(HOSTILE_PROGRAM)],
};

export const runRequestCases = async ({ url, pid, stub, key }) => {
  stub.setScript(RAG_SCRIPT);
  const rows = [];
  const row = async (name, work, extra = {}) => {
    const m = await measureCase({ url, pid, reference: normal(url), work, next: nextWorks(url) });
    rows.push({ name, ...m, output: m.result, ...extra });
    console.error(`  ${name}: ${m.answerMs.toFixed(0)} ms, RSS ${Math.round(m.rssBefore / 2 ** 20)}→${Math.round(m.rssPeak / 2 ** 20)}→${Math.round(m.rssAfter / 2 ** 20)} MB, /healthz ≤ ${m.healthMaxMs.toFixed(0)} ms: ${String(m.result).slice(0, 100)}`);
  };
  await normal(url)();

  for (const c of pageCases) {
    const body = { question: 'How many countries does the Danube flow through?', variant: 'crag', mode: 'rag', options: { dynamicPolicy: 'answer' }, context: { pages: [{ url: 'https://example.com/hostile', html: c.html }] } };
    await row(c.name, () => answer(url, body), { page: true });
  }

  const program = { question: 'Who won in 2019?', variant: 'hybridqa', mode: 'program', context: { table } };
  await row('sandbox: push 8 MB arrays forever (issue)', () => answer(url, program));
  await row('sandbox: the same, 4 runs at once (issue)', async () => (await Promise.all([1, 2, 3, 4].map(() => answer(url, program)))).join(' · ').slice(0, 200));

  const pad = 'x'.repeat(15 * 1024 * 1024);
  await row('body: 15 MB chat/completions with "context": 1 (issue)', async () => {
    const res = await json(url, '/v1/chat/completions', `{"model":"mintaka","context":1,"messages":[{"role":"system","content":"${pad}"},{"role":"user","content":"q"}]}`);
    return verdict(res);
  });
  await row('body: 12 MB UTF-8 page in 4 M characters (issue)', async () => {
    const res = await json(url, '/v1/answer', { question: 'q', mode: 'rag', context: { pages: [{ url: 'u', html: '€'.repeat(4_000_000) }] } });
    return verdict(res);
  });
  await row('text/plain body on /v1/answer (issue)', async () => {
    const res = await fetch(`${url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ question: 'q', mode: 'parametric' }) });
    return `${await verdict(res)}; run started: ${res.headers.get('x-run-id') ? 'yes' : 'no'}`;
  });
  await row('200 requests with a wrong key (issue)', async () => {
    const counts = {};
    for (let i = 0; i < 200; i += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, (_, k) => fetch(`${url}/v1/models`, { headers: { authorization: `Bearer wrong-${i + k}` } })));
      for (const r of batch) {
        counts[r.status] = (counts[r.status] ?? 0) + 1;
        await r.arrayBuffer();
      }
    }
    return `${Object.entries(counts).map(([s, n]) => `${s}×${n}`).join(', ')} (limit ${key.limit}/min)`;
  });
  // Last: after the Worker stops reading an upload, `wrangler dev`'s proxy has answered a later POST with its own 503.
  await row('body: 17 MB streamed, no Content-Length', async () => {
    const mb = new TextEncoder().encode('x'.repeat(1024 * 1024));
    let sent = 0;
    const body = new ReadableStream({
      pull(c) {
        if (sent === 0) c.enqueue(new TextEncoder().encode('{"question":"q","context":{"passages":{"a":"'));
        if (sent++ < 17) c.enqueue(mb);
        else c.close();
      },
    });
    const res = await fetch(`${url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' }).catch((e) => ({ status: `closed (${e.cause?.code ?? e.message})`, json: async () => ({}) }));
    return `${res.status} ${(await res.json().catch(() => ({}))).error?.code ?? ''} (the client had queued ${sent} MB)`;
  });
  await row('text/plain body again, after the streamed upload', async () => {
    const res = await fetch(`${url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ question: 'q', mode: 'parametric' }) });
    return `${await verdict(res)}; run started: ${res.headers.get('x-run-id') ? 'yes' : 'no'}`;
  });
  return rows;
};
