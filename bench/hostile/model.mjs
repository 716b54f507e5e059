// The model cases of bench/hostile (issue 22): `npm run dev` with LLM_BASE_URL pointed at a hostile OpenAI-compatible
// stand-in, each case a parametric run (one model call) through `POST /v1/answer`, next to a normal run measured just
// before it. What it shows: a reply is abandoned at LLM_MAX_RESPONSE_BYTES (src/llm/openai.ts) and a body still
// arriving at LLM_TIMEOUT_MS, so the run fails with its own error code within seconds, memory stays flat and the
// next run works. The group runs with LLM_TIMEOUT_MS=3000 and LLM_MAX_RETRIES=1 so the slow body's worst case
// ((retries + 1) × timeout plus the backoff) fits the 15 s budget; the byte cap is the default.
import { createServer } from 'node:http';
import { measureCase } from './measure.mjs';
import { stream } from './live.mjs';

const MB = 1024 * 1024;
const COMPLETION_HEAD = '{"id":"x","object":"chat.completion","model":"hostile","choices":[{"index":0,"message":{"role":"assistant","content":"';
const COMPLETION_TAIL = '"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":10,"total_tokens":20}}';
const chunk = (content) => `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', model: 'hostile', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** A model server whose behaviour is picked by a tag in the question the request carries. */
const startHostileModel = async () => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (body.includes('#endless-json')) return stream(res, { head: COMPLETION_HEAD, unit: 'a' });
      if (body.includes('#endless-events')) return stream(res, { head: '', unit: chunk('token '), type: 'text/event-stream' });
      if (body.includes('#sixty-mb')) return stream(res, { head: COMPLETION_HEAD, unit: 'a', bytes: 60 * MB, tail: COMPLETION_TAIL });
      if (body.includes('#drip')) return stream(res, { head: COMPLETION_HEAD, unit: 'a', everyMs: 100 });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${COMPLETION_HEAD}Paris${COMPLETION_TAIL}`);
    });
  });
  await new Promise((r) => server.listen(Number(process.env.BENCH_PORTS?.split(',')[3] ?? 0), '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}/v1`;
  return {
    vars: { LLM_BASE_URL: base, LLM_TIMEOUT_MS: '3000', LLM_MAX_RETRIES: '1' },
    close: () => new Promise((r) => (server.closeAllConnections?.(), server.close(r))),
  };
};

export const modelCases = [
  { name: 'model: JSON body that never ends', tag: '#endless-json' },
  { name: 'model: event stream that never ends', tag: '#endless-events' },
  { name: 'model: one complete 60 MB completion', tag: '#sixty-mb' },
  { name: 'model: body that keeps arriving slowly (1 byte / 100 ms)', tag: '#drip' },
];

const ask = async (url, question) => {
  const res = await fetch(`${url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, mode: 'parametric' }) });
  const run = await res.json().catch(() => ({}));
  return run.error ? `${run.status} ${run.error.code}: ${run.error.message}` : `${run.status ?? res.status}: ${run.answer ?? ''}`;
};

/** bench/hostile group: needs its own dev server (the hostile model), whose variables `setup` returns. */
export const modelGroup = {
  setup: startHostileModel,
  run: async ({ url, pid }) => {
    const reference = () => ask(url, 'What is the capital of France?');
    await reference();
    const rows = [];
    for (const c of modelCases) {
      const m = await measureCase({ url, pid, reference, work: () => ask(url, `What is the capital of France? ${c.tag}`), next: async () => /succeeded: Paris/.test(await reference()) });
      rows.push({ name: c.name, ...m, output: m.result });
    }
    return rows;
  },
};
