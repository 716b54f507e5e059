#!/usr/bin/env node
// bench/hostile (issue 14): every hostile case against one real `npm run dev` (its own state, free ports) with the
// OpenAI-compatible stub as the model. Per case: time to an answer, workerd RSS before/peak/after (VmRSS from /proc),
// the slowest /healthz while it ran, and a normal request measured just before it and just after it.
//
//   npm run bench:hostile                 # all groups
//   npm run bench:hostile -- requests     # one group: requests (pages, sandbox, bodies, auth) or sparql
//
// Groups are modules: each exports run<Group>Cases({ url, pid, stub, key }) returning rows (shape in measure.mjs).
// The dev server runs with an API key, so every request from here carries it unless a case sends its own
// Authorization header; RATE_LIMIT_PER_MINUTE is raised so the bench's own traffic is not throttled.
import { startStub } from '../../tests/support/openai-stub.mjs';
import { startDev } from '../../tests/support/dev-server.mjs';
import { printRows } from './measure.mjs';
import { runRequestCases } from './requests.mjs';
import { runSparqlCases, workerdPid } from './sparql.mjs';

const GROUPS = { requests: runRequestCases, sparql: runSparqlCases };
const wanted = process.argv.slice(2).filter((a) => GROUPS[a]);
const key = { value: `bench-${crypto.randomUUID()}`, limit: 120 };

const stub = await startStub();
const dev = await startDev({
  vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'stub', API_KEYS: key.value, RATE_LIMIT_PER_MINUTE: String(key.limit) },
});
const plainFetch = globalThis.fetch;
globalThis.fetch = (input, init = {}) => {
  if (!String(input?.url ?? input).startsWith(dev.url)) return plainFetch(input, init);
  const headers = new Headers(init.headers);
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${key.value}`);
  return plainFetch(input, { ...init, headers });
};
try {
  const pid = workerdPid();
  console.log(`bench/hostile against ${dev.url} (workerd pid ${pid ?? 'unknown: RSS not measured'}), model: OpenAI-compatible stub, ${new Date().toISOString()}`);
  const rows = [];
  for (const [name, run] of Object.entries(GROUPS)) {
    if (wanted.length && !wanted.includes(name)) continue;
    rows.push(...(await run({ url: dev.url, pid, stub, key })));
  }
  printRows(rows);
} catch (err) {
  console.error(`bench/hostile failed: ${err.stack}\n--- dev server log (tail) ---\n${dev.log().slice(-4000)}`);
  process.exitCode = 1;
} finally {
  await dev.stop();
  await stub.close();
}
