// The sandbox-cpu cases of bench/hostile (issue 22, item 1): model-written code whose cost hides in a built-in (a
// long-needle search, JSON.stringify, a sort, a backtracking regular expression), which QuickJS's interrupt handler
// never saw. Each goes through the public API of a real `npm run dev`, the OpenAI-compatible stub returning the code
// for purpose `code` and `refine` (program mode: three attempts, the first and two refinements) or the `EXPR:` line
// for purpose `calculator` (rag mode), next to a normal request measured just before it.
import { cpuOf, measureCase } from './measure.mjs';
import { answer, fence, nextWorks, normal, table } from './requests.mjs';

const LONG = "const s='a'.repeat(2000000)+'b'; const n='a'.repeat(2000)+'c';";
export const programCases = [
  { name: 'indexOf, 2 MB haystack, 2 KB needle (issue)', code: `function solve(t){ ${LONG} return s.indexOf(n); }` },
  {
    name: 'two indexOf on 4 MB (issue)',
    code: "function solve(t){ const s='a'.repeat(4000000)+'b'; const n='a'.repeat(2000)+'c'; return s.indexOf(n) + s.indexOf(n + 'd'); }",
  },
  { name: 'includes with a long needle', code: `function solve(t){ ${LONG} return s.includes(n) ? 'yes' : 'no'; }` },
  { name: 'split with a long needle', code: `function solve(t){ ${LONG} return s.split(n).length; }` },
  { name: 'replaceAll with a long needle', code: `function solve(t){ ${LONG} return s.replaceAll(n, 'x').length; }` },
  {
    name: '50 × JSON.stringify of 100,000 numbers (issue)',
    code: 'function solve(t){ const a=Array.from({length:100000},(_, i)=>i); let n=0; for(let i=0;i<50;i++) n+=JSON.stringify(a).length; return n; }',
  },
  { name: 'catastrophic regex /^(a+)+$/', code: "function solve(t){ return /^(a+)+$/.test('a'.repeat(40)+'b') ? 'yes' : 'no'; }" },
  { name: 'default sort of 150,000 numbers', code: 'function solve(t){ const a=Array.from({length:150000},(_, i)=>(i*7919)%150001); return a.sort()[0]; }' },
  { name: 'a loop that swallows errors around indexOf', code: `function solve(t){ ${LONG} for(;;){ try { s.indexOf(n); } catch (e) {} } }` },
];

const CALCULATOR = "(s=>s.indexOf(s.slice(0,2e3)+'b'))('a'.repeat(1.5e6))";

const ragBody = {
  question: 'How many countries does the Danube flow through?',
  variant: 'crag',
  mode: 'rag',
  options: { dynamicPolicy: 'answer' },
  context: { pages: [{ url: 'https://example.com/danube', html: '<p>The Danube flows through ten countries.</p>' }] },
};
const RAG_REPLIES = {
  attribute: ['Dynamism: static\nDomain: open'],
  reasoning: ['<reasoning>The page says ten.</reasoning>\n<answer>ten</answer>\n<false_premise>no</false_premise>'],
};


export const runSandboxCpuCases = async ({ url, pid, stub }) => {
  const rows = [];
  const row = async (name, work, attempts = 3) => {
    let cpu = NaN;
    const m = await measureCase({
      url,
      pid,
      reference: normal(url),
      work: async () => {
        const before = cpuOf(pid);
        const out = await work();
        cpu = cpuOf(pid) - before;
        return out;
      },
      next: nextWorks(url),
    });
    // The CPU workerd spent during the case (the runs, their model calls, the /healthz polls), per sandbox attempt.
    const perAttempt = `workerd CPU ${cpu.toFixed(2)} s, ${(cpu / attempts).toFixed(2)} s per attempt`;
    rows.push({ name, ...m, output: `${perAttempt}; ${String(m.result).replace(/no program produced an answer after /, '')}` });
    console.error(`  ${name}: ${m.answerMs.toFixed(0)} ms, RSS ${Math.round(m.rssBefore / 2 ** 20)}→${Math.round(m.rssPeak / 2 ** 20)}→${Math.round(m.rssAfter / 2 ** 20)} MB, /healthz ≤ ${m.healthMaxMs.toFixed(0)} ms: ${String(m.result).slice(0, 100)}`);
  };
  await normal(url)();
  const program = { question: 'Who won in 2019?', variant: 'hybridqa', mode: 'program', context: { table } };
  const plain = { code: [fence("function solve(t){ return t.rows[0]['Winner'].text; }")] };
  // Warm-up, not measured: the isolate's first QuickJS instance compiles the engine (once per isolate).
  stub.setScript(plain);
  await answer(url, program);
  for (const c of programCases) {
    stub.setScript({ code: [fence(c.code)], refine: [fence(c.code)] });
    await row(`program: ${c.name}`, () => answer(url, program));
  }
  stub.setScript({ code: [fence(programCases[0].code)], refine: [fence(programCases[0].code)] });
  await row('program: indexOf (issue), 4 runs at once', async () => (await Promise.all([1, 2, 3, 4].map(() => answer(url, program)))).join(' · ').slice(0, 200), 12);
  stub.setScript({ ...RAG_REPLIES, calculator: [`EXPR: ${CALCULATOR}`] });
  await row('calculator: 80-character EXPR (issue)', () => answer(url, ragBody), 1);
  // Afterwards a normal program still answers.
  stub.setScript(plain);
  await row('program: a normal program afterwards', () => answer(url, program), 1);
  return rows;
};
