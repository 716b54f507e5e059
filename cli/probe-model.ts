import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openAIProvider } from '../src/llm/openai';
import { serverOf } from '../src/llm/capabilities';
import { flag, parseCli } from './args';
import { runBattery } from './probe/battery';
import { describeRecord, probeRecord } from './probe/record';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const args = parseCli(process.argv.slice(2), {
  command: 'npm run probe-model --',
  summary:
    'Asks a model a fixed battery of short tasks in the native and the text protocol, prints what it can do and saves the record as JSON ' +
    '(probes/<model>.json by default: bundled at build time, where LLM_TOOL_PROTOCOL=auto reads it; docs/CONFIGURATION.md, "Tool protocol").',
  flags: {
    'base-url': flag.text({ value: 'url', help: 'an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1' }),
    model: flag.required({ value: 'name', help: 'the model name the server serves' }),
    'api-key': flag.text({ value: 'key', help: 'the server\'s key (default LLM_API_KEY, or CLOUDFLARE_API_TOKEN with --workers-ai)' }),
    'workers-ai': flag.switch({ help: 'probe a Workers AI model through its OpenAI-compatible endpoint (needs --account-id)' }),
    'account-id': flag.text({ value: 'id', help: 'the Cloudflare account whose Workers AI is probed' }),
    repeats: flag.int({ value: 'n', min: 1, max: 20, help: 'rounds of the battery (default 3)' }),
    out: flag.text({ value: 'file', help: 'where to save the record (default probes/<model>.json)' }),
  },
  rules: [
    { broken: (a) => a['workers-ai'] && !a['account-id'], message: '--workers-ai needs --account-id' },
    { broken: (a) => !a['workers-ai'] && !a['base-url'], message: '--base-url is required (or --workers-ai)' },
  ],
  examples: [
    'npm run probe-model -- --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-7B-Instruct',
    'CLOUDFLARE_API_TOKEN=… npm run probe-model -- --workers-ai --account-id <id> --model @cf/meta/llama-3.3-70b-instruct-fp8-fast',
  ],
});

const workersAI = args['workers-ai'];
const model = args.model;
// Workers AI's OpenAI-compatible endpoint; the Worker itself calls the binding, which takes the same shapes.
const baseURL = workersAI ? `https://api.cloudflare.com/client/v4/accounts/${args['account-id']}/ai/v1` : args['base-url']!;
const apiKey = args['api-key'] ?? (workersAI ? process.env.CLOUDFLARE_API_TOKEN : process.env.LLM_API_KEY);
const repeats = args.repeats ?? 3;

const llm = openAIProvider({ baseURL, apiKey, model, timeoutMs: 120_000, maxResponseBytes: 1 << 20, maxRetries: 2 });
const attempts = await runBattery(llm, repeats, (a) => {
  process.stderr.write(`${a.task.padEnd(8)} ${a.protocol.padEnd(6)} #${a.attempt} ${a.valid ? 'valid' : 'INVALID'} ${a.ms} ms${a.note ? ` (${a.note.slice(0, 160)})` : ''}\n`);
});
const record = probeRecord(model, workersAI ? 'workers-ai' : serverOf('openai', baseURL), repeats, attempts);
const file = resolve(args.out ?? join(ROOT, 'probes', `${model.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+/, '')}.json`));
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
process.stdout.write(`${describeRecord(record)}\nsaved ${file}\n`);
