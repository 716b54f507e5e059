// Issue 22 groups of bench/hostile, each through a real `npm run dev`:
//   clients  — sockets that misbehave: a body announced and dropped half-way, a reset in the middle of an SSE stream,
//              a client that gives up while its run works. What it shows: the dev server keeps answering.
//   origins  — an open server (no API_KEYS) driven as another site's page would: every attempt is refused (403)
//              before any route runs, while the server's own requests work.
//   deadline — POST /v1/tools/{name} behind a model that answers 429 with Retry-After: 100000 (held 5 s at a time by
//              POLITENESS_MAX_BACKOFF_MS): the call ends with 504 tool_timeout at TOOL_TIMEOUT_MS (10 s here)
//              instead of waiting for the retries.
import { connect } from 'node:net';
import { measureCase } from './measure.mjs';

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

const answer = async (url, body, headers = {}) => {
  const res = await fetch(`${url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const run = await res.json().catch(() => ({}));
  return res.ok ? `${run.status}: ${JSON.stringify(run.answer)}` : `${res.status} ${run.error?.code ?? ''}`;
};
const normal = (url) => () => answer(url, { question: 'What is the capital of France?', mode: 'parametric' });
const nextWorks = (url) => async () => (await normal(url)()).startsWith('succeeded');
const alive = async (url) => ((await fetch(`${url}/healthz`)).ok ? 'server alive' : 'server NOT answering');

/** Opens a raw socket to the dev server, writes `request`, and hands the socket to `then` (which ends it). */
const rawRequest = (url, request, then) =>
  new Promise((done) => {
    const { port } = new URL(url);
    const s = connect(Number(port), '127.0.0.1', () => {
      s.write(request);
      then(s, done);
    });
    s.on('error', () => done());
    s.on('close', () => done());
  });

const postHead = (path, length, key, accept = 'application/json') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: ${accept}\r\n` +
  `${key ? `Authorization: Bearer ${key}\r\n` : ''}Content-Length: ${length}\r\n\r\n`;

const answerRequest = (key, accept) => {
  const body = JSON.stringify({ question: `What is the capital of France? ${crypto.randomUUID()}`, mode: 'parametric' });
  return postHead('/v1/answer', Buffer.byteLength(body), key, accept) + body;
};

/** Runs `count` copies of a socket case at once and reports whether the server still answers afterwards. */
const many = async (url, count, one) => {
  await Promise.all(Array.from({ length: count }, one));
  await wait(1000);
  return `${count} clients gone; ${await alive(url)}`;
};

const clientCases = (url, key) => [
  // The /healthz figure of an idle server on this machine at this moment, to read the rows below against.
  { name: 'control: idle for 2 s', work: async () => (await wait(2000), await alive(url)) },
  {
    name: 'client: Content-Length 1000, 5 bytes sent, closed after 0.5 s ×20 (issue)',
    work: () =>
      many(url, 20, () => rawRequest(url, `${postHead('/v1/answer', 1000, key)}{"q":`, (s) => setTimeout(() => s.destroy(), 500))),
  },
  {
    name: 'client: reset in the middle of an SSE stream ×10',
    work: () =>
      many(url, 10, () =>
        rawRequest(url, answerRequest(key, 'text/event-stream'), (s) => {
          let seen = '';
          s.on('data', (d) => {
            seen += d;
            if (/\nevent: /.test(seen)) s.resetAndDestroy();
          });
          setTimeout(() => s.destroyed || s.resetAndDestroy(), 10_000);
        }),
      ),
  },
  {
    name: 'client: gives up 50 ms into a run (reset before the reply) ×10',
    work: () => many(url, 10, () => rawRequest(url, answerRequest(key, 'application/json'), (s) => setTimeout(() => s.resetAndDestroy(), 50))),
  },
];

const measureAll = async ({ url, pid }, cases) => {
  await normal(url)();
  const rows = [];
  for (const c of cases) {
    const m = await measureCase({ url, pid, reference: normal(url), work: c.work, next: nextWorks(url) });
    rows.push({ name: c.name, ...m, output: m.result });
    console.error(`  ${c.name}: ${m.answerMs.toFixed(0)} ms, /healthz ≤ ${m.healthMaxMs.toFixed(0)} ms: ${String(m.result).slice(0, 100)}`);
  }
  return rows;
};

export const clientsGroup = { run: ({ url, pid, key }) => measureAll({ url, pid }, clientCases(url, key.value)) };

const EVIL = 'http://localhost:9';
const statusOf = async (res) => `${res.status} ${(await res.json().catch(() => ({}))).error?.code ?? ''}`.trim();

/** Sends `attempt` 50 times and tallies the answers, e.g. "50 × 403 cross_origin_refused". */
const tally = async (attempt) => {
  const counts = {};
  for (let i = 0; i < 50; i++) {
    const v = await attempt();
    counts[v] = (counts[v] ?? 0) + 1;
  }
  return Object.entries(counts).map(([v, n]) => `${n} × ${v}`).join(', ');
};

const originCases = (url) => {
  const foreign = { origin: EVIL, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors' };
  // The open server ignores the bench's Authorization header; these requests carry it like any other.
  return [
    { name: 'origin: another site reads GET /v1/runs ×50 (issue)', work: () => tally(async () => statusOf(await fetch(`${url}/v1/runs`, { headers: foreign }))) },
    {
      name: 'origin: another site preflights a JSON POST /v1/answer ×50 (issue)',
      work: () =>
        tally(async () =>
          statusOf(await fetch(`${url}/v1/answer`, { method: 'OPTIONS', headers: { ...foreign, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } })),
        ),
    },
    {
      name: 'origin: another site sends a text/plain POST /v1/answer ×50 (no preflight)',
      work: () =>
        tally(async () =>
          statusOf(await fetch(`${url}/v1/answer`, { method: 'POST', headers: { ...foreign, 'content-type': 'text/plain' }, body: '{"question":"q","mode":"parametric"}' })),
        ),
    },
    {
      name: 'origin: another site deletes a demonstration ×50 (issue; Sec-Fetch-Site only)',
      work: () => tally(async () => statusOf(await fetch(`${url}/v1/demonstrations/demo-x`, { method: 'DELETE', headers: { 'sec-fetch-site': 'cross-site' } }))),
    },
    {
      name: 'origin: its own page asks (Origin = the server) — control',
      work: () => answer(url, { question: 'What is the capital of France?', mode: 'parametric' }, { origin: new URL(url).origin, 'sec-fetch-site': 'same-origin' }),
    },
  ];
};

export const originsGroup = {
  setup: async () => ({ vars: { API_KEYS: '' }, close: async () => {} }),
  run: ({ url, pid }) => measureAll({ url, pid }, originCases(url)),
};

const TOOL_TIMEOUT_MS = 10_000;

const faults = (stub, body) => fetch(`${stub.url.replace(/\/v1$/, '')}/__faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const toolCall = async (url, name, input) => {
  const res = await fetch(`${url}/v1/tools/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
  const body = await res.json().catch(() => ({}));
  return res.ok ? `200 ${String(body.output).slice(0, 60)}` : `${res.status} ${body.error?.code ?? ''}: ${String(body.error?.message ?? '').slice(0, 90)}`;
};

/** The model answers 429 with Retry-After: 100000 while `work` runs, and normally again afterwards. */
const behindSlowModel = (stub, work) => async () => {
  await faults(stub, { status: 429, count: 100_000, retryAfter: 100000 });
  try {
    return await work();
  } finally {
    await faults(stub, { count: 0 });
  }
};

export const deadlineGroup = {
  // The model's Retry-After is held at most POLITENESS_MAX_BACKOFF_MS (issue 33): 5 s here, so a tool call waits out two
  // holds and ends at TOOL_TIMEOUT_MS, and the model is usable again a few seconds after the faults end.
  setup: async () => ({ vars: { TOOL_TIMEOUT_MS: String(TOOL_TIMEOUT_MS), POLITENESS_MAX_BACKOFF_MS: '5000' }, close: async () => {} }),
  run: ({ url, pid, stub }) =>
    measureAll({ url, pid }, [
      { name: `tool: generateQuery behind Retry-After: 100000 (issue; TOOL_TIMEOUT_MS ${TOOL_TIMEOUT_MS})`, work: behindSlowModel(stub, () => toolCall(url, 'generateQuery', 'Who wrote Hamlet? # Q692')) },
      { name: 'tool: read behind the same model', work: behindSlowModel(stub, () => toolCall(url, 'read', 'Douglas Adams # Where was he born?')) },
      {
        name: 'tool: 4 generateQuery calls at once behind it',
        work: behindSlowModel(stub, async () => (await Promise.all([1, 2, 3, 4].map(() => toolCall(url, 'generateQuery', 'Who wrote Hamlet? # Q692')))).map((s) => s.slice(0, 16)).join(' · ')),
      },
    ]),
};
