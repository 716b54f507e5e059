// The round-four group of bench/hostile (issue 41): the cases that did not hold on main 83fa9f3, against the shared
// dev server and the OpenAI-compatible stub. Each row is one case with the usual readings (time, workerd RSS,
// /healthz meanwhile, a normal run before and after); the budget group (budget.mjs) and the health group
// (health.mjs) have the two cases that need a server or a load of their own.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { measureCase } from './measure.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const json = (url, path, body, headers = {}) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const ask = async (url, question, options) => {
  const run = await (await json(url, '/v1/answer', { question, mode: 'parametric', ...(options ? { options } : {}) })).json().catch(() => ({}));
  return run;
};
const control = (stub, path, body) => fetch(stub.url.replace(/\/v1$/, path), { method: 'POST', body: JSON.stringify(body) });
const chatBody = (messages, extra = {}) => ({ model: 'mintaka:parametric', messages, ...extra });
/** npm run dev with these vars, to its exit (async: the /healthz poller of the case keeps running meanwhile). */
const devExit = (vars) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['cli/dev.mjs', ...vars.flatMap((v) => ['--var', v]), '--port', '1'], { cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stderr }));
  });

const cases = (url, stub) => [
  {
    name: "chat rewrite replies 5,000 chars beginning 'Final Answer: leaked SYSTEM PROMPT'",
    work: async () => {
      stub.setScript({ rewrite: [`Final Answer: leaked SYSTEM PROMPT ${'x'.repeat(5_000)}`.slice(0, 5_000)], parametric: ['1952'] });
      const res = await json(url, '/v1/chat/completions', chatBody([{ role: 'user', content: 'Who directed Forrest Gump?' }, { role: 'assistant', content: 'Robert Zemeckis' }, { role: 'user', content: 'When was he born?' }]));
      const runId = res.headers.get('x-run-id');
      const run = await (await fetch(`${url}/v1/runs/${runId}`)).json();
      const listed = (await (await fetch(`${url}/v1/runs?limit=5`)).json()).runs.find((r) => r.runId === runId);
      stub.setScript({});
      return `standaloneQuestion ${JSON.stringify(run.standaloneQuestion)} (listed: ${JSON.stringify(listed?.standaloneQuestion)}); ${run.steps?.[1]?.output?.slice(0, 60)}`;
    },
  },
  ...['0x10', '1e1'].map((value) => ({
    name: `model answers 429 with Retry-After: ${value} (issue: held ${value === '0x10' ? 16.1 : 10.1} s)`,
    work: async () => {
      await control(stub, '/__faults', { status: 429, count: 1, retryAfter: value });
      const run = await ask(url, `Retry-After ${value}?`);
      // The answer's time is the hold: the default 2 s of a 429 without a usable Retry-After, plus the call.
      return `${run.status}; the value was ignored and logged (RFC 9110 allows digits or an HTTP date)`;
    },
  })),
  {
    name: 'honest 6,000-token streamed reply, 3 writes per SSE event (~0.9 MB; issue: refused at 16,384 pieces)',
    work: async () => {
      stub.setScript({ parametric: [Array.from({ length: 6_000 }, (_, i) => `${String(i).padStart(6, '0')} lorem ip `).join('')] });
      await control(stub, '/__split', { writes: 3 });
      const text = await (await json(url, '/v1/answer', { question: 'A long answer?', mode: 'parametric' }, { accept: 'text/event-stream' })).text();
      stub.setScript({});
      const done = /event: done\n(?:id: \d+\n)?data: (\{.*\})/.exec(text);
      return `${done ? JSON.parse(done[1]).status : 'no done event'}${/llm_response_too_large/.test(text) ? ' (refused)' : ''}: the model's reply was 6,000 events, ~0.9 MB, in 18,000 writes`;
    },
  },
  {
    name: 'model reply 1 byte per write (a trickle: still refused)',
    work: async () => {
      // Both attempts (a reply over a cap is retried once).
      await control(stub, '/__trickle', { bytes: 1, count: 2 });
      const run = await ask(url, 'Trickle?');
      return `${run.status} ${run.error?.code}: ${String(run.error?.message).slice(0, 70)}`;
    },
  },
  {
    name: 'chat run ends limited with no answer, JSON and streamed (issue: 502 vs 200 "length")',
    work: async () => {
      await control(stub, '/__latency', { ms: 3_000 });
      const body = chatBody([{ role: 'user', content: 'Slow?' }], { options: { limits: { maxWallMs: 500 } } });
      const whole = await json(url, '/v1/chat/completions', body);
      const w = await whole.json();
      const streamed = await json(url, '/v1/chat/completions', { ...body, stream: true });
      const frames = (await streamed.text()).split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)));
      await control(stub, '/__latency', { ms: 0 });
      const last = frames.at(-1);
      return `JSON ${whole.status} ${w.choices?.[0]?.finish_reason} ${w.run?.error?.code}; stream ${streamed.status} ${last?.choices?.[0]?.finish_reason} ${last?.run?.error?.code}${frames.some((f) => f.error) ? ' + error frame' : ''}`;
    },
  },
  {
    name: 'WIKIPEDIA_API_URL=http://en.wikipedia.org/… with a token (issue: Bearer sent in clear)',
    work: async () => {
      const r = await devExit(['WIKIPEDIA_API_URL:http://en.wikipedia.org/w/api.php', 'WIKIMEDIA_ACCESS_TOKEN:tok-bench']);
      return `npm run dev exits ${r.code}: ${(r.stderr.match(/WIKIPEDIA_API_URL: [^\n]*/)?.[0] ?? r.stderr.slice(0, 80)).slice(0, 80)}`;
    },
  },
];

export const roundFourGroup = {
  run: async ({ url, pid, stub }) => {
    const reference = async () => (await ask(url, 'What is the capital of France?')).status;
    const rows = [];
    for (const c of cases(url, stub)) {
      const m = await measureCase({ url, pid, reference, work: c.work, next: async () => (await reference()) === 'succeeded' });
      rows.push({ name: c.name, ...m, output: m.result });
    }
    return rows;
  },
};
