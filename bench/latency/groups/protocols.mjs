// bench/latency group `protocols` (issue 39): model turns and wall time per question under the text protocol and the
// native one, back to back in the same run, on scripted trajectories of one-entity questions (one lookup a turn either
// way) and two-entity questions (the text protocol reads the two pages in two turns; native asks for both reads in one
// turn and they run together). Every model call, the reads' included, takes the stub's fixed latency; the bundled
// snapshot is the evidence. The figure that matters is relative: native against text in the same run.
const LATENCY_MS = Number(process.env.BENCH_MODEL_MS ?? 300);
const RUNS = Number(process.env.BENCH_PROTOCOL_RUNS ?? 3);

const read = (title, question) => ({ name: 'read', arguments: { title, question } });
const textRead = (thought, title, question) => ` ${thought}\nAction: read\nAction Input: ${title} # ${question}`;

/** Per question: the entities it needs, the text trajectory, the native one, and the answer. */
const QUESTIONS = [
  {
    question: 'Who directed Inception?',
    entities: 1,
    answer: 'Christopher Nolan',
    text: [' I need the film page.\nAction: wikisearch\nAction Input: Inception', textRead('Read who directed it.', 'Inception', 'Who directed Inception?')],
    native: [
      { tool_calls: [{ name: 'wikisearch', arguments: { query: 'Inception' } }], content: 'I need the film page.' },
      { tool_calls: [read('Inception', 'Who directed Inception?')], content: 'Read who directed it.' },
    ],
  },
  {
    question: 'When was George Orwell born?',
    entities: 1,
    answer: '25 June 1903',
    text: [textRead('His page says when he was born.', 'George Orwell', 'When was he born?')],
    native: [{ tool_calls: [read('George Orwell', 'When was he born?')], content: 'His page says when he was born.' }],
  },
  {
    question: 'Which city has more inhabitants, Berlin or Madrid?',
    entities: 2,
    answer: 'Berlin',
    text: [textRead('First Berlin.', 'Berlin', 'How many inhabitants?'), textRead('Now Madrid.', 'Madrid', 'How many inhabitants?')],
    native: [{ tool_calls: [read('Berlin', 'How many inhabitants?'), read('Madrid', 'How many inhabitants?')], content: 'Both cities at once.' }],
  },
  {
    question: "Which film is longer, Titanic or Schindler's List?",
    entities: 2,
    answer: "Schindler's List",
    text: [textRead('First Titanic.', 'Titanic (1997 film)', 'How long is it?'), textRead("Now Schindler's List.", "Schindler's List", 'How long is it?')],
    native: [{ tool_calls: [read('Titanic (1997 film)', 'How long is it?'), read("Schindler's List", 'How long is it?')], content: 'Both films at once.' }],
  },
];

const runOnce = async (ctx, q, protocol) => {
  await ctx.stub.reset();
  const final = `Thought: The pages say so.\nFinal Answer: ${q.answer}`;
  await ctx.stub.script({ agent: [...q[protocol], final], read: ['The page answers it.'], parametric: [q.answer], final: [q.answer] });
  const { run, ms } = await ctx.answer({ question: q.question, mode: 'agent', options: { toolProtocol: protocol, fewshot: 'zero-shot' } });
  return { ms, turns: run.usage.byPurpose.agent?.calls ?? 0, calls: run.usage.llmCalls, tools: run.usage.toolCalls };
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export default {
  name: 'protocols',
  about: `model turns and wall time per question, text against native, ${LATENCY_MS} ms per model call, median of ${RUNS} runs each`,
  order: 40,
  async run(ctx) {
    await runOnce(ctx, QUESTIONS[0], 'text'); // warm-up: the first run compiles the Worker and loads the snapshot
    await ctx.stub.latency(LATENCY_MS);
    const rows = [];
    const totals = { 1: { text: [], native: [] }, 2: { text: [], native: [] } };
    for (const q of QUESTIONS) {
      const measured = {};
      // Alternating, so a slow moment of a loaded machine falls on both protocols alike.
      const runs = { text: [], native: [] };
      for (let i = 0; i < RUNS; i++) for (const protocol of ['text', 'native']) runs[protocol].push(await runOnce(ctx, q, protocol));
      for (const protocol of ['text', 'native']) {
        measured[protocol] = { ms: median(runs[protocol].map((r) => r.ms)), turns: runs[protocol][0].turns, calls: runs[protocol][0].calls, tools: runs[protocol][0].tools };
        totals[q.entities][protocol].push(measured[protocol]);
      }
      const { text, native } = measured;
      ctx.log(`  ${q.entities}-entity "${q.question}": text ${text.turns} agent turns, ${text.calls} model calls, ${text.ms.toFixed(0)} ms; native ${native.turns} turns, ${native.calls} calls, ${native.ms.toFixed(0)} ms (×${(native.ms / text.ms).toFixed(2)})`);
      rows.push({
        figure: `${q.entities}-entity "${q.question}": agent turns / wall time, text → native`,
        value: `${text.turns} → ${native.turns} turns; ${text.ms.toFixed(0)} → ${native.ms.toFixed(0)} ms (×${(native.ms / text.ms).toFixed(2)})`,
        ...(q.entities === 2 ? { target: 'fewer turns under native', met: native.turns < text.turns } : {}),
      });
    }
    for (const n of [1, 2]) {
      const sum = (list, k) => list.reduce((a, m) => a + m[k], 0);
      const { text, native } = totals[n];
      rows.push({ figure: `${n}-entity questions in all: agent turns / wall time, text → native`, value: `${sum(text, 'turns')} → ${sum(native, 'turns')} turns; ${sum(text, 'ms').toFixed(0)} → ${sum(native, 'ms').toFixed(0)} ms (×${(sum(native, 'ms') / sum(text, 'ms')).toFixed(2)})` });
    }
    return rows;
  },
};
