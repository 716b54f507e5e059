// bench/latency group `answer` (issue 25): time to answer in agent mode with a model of fixed latency, for the paper
// recipe and ours, on a question where Wikipedia and Wikidata agree and one where they disagree, next to the
// sequential path of the paper recipe: its model calls one after another (the closed-book call runs beside the first
// agent call in both recipes, so it is not on the path), each taking the model's latency. Ours skips the merge call
// when the sources verified in the evidence agree; when they disagree it makes every call the paper makes.
//
// The run: wikisearch → getWikidataID → runQuery, then the final turn (four agent calls), then the merge for the
// paper: five calls on the path, the shape the issue measured. The bundled snapshot is the evidence.
const LATENCY_MS = Number(process.env.BENCH_MODEL_MS ?? 500);
const RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 5);
const QUESTION = 'In which city was the director of Forrest Gump born?';

const agentTurns = (query, wikidataAnswer) => [
  ' I need the director of Forrest Gump and where he was born.\nAction: wikisearch\nAction Input: Robert Zemeckis',
  ' The snippet says Robert Zemeckis was born in Chicago. I will check Wikidata.\nAction: getWikidataID\nAction Input: Robert Zemeckis',
  ` Q187364. Now his place of birth.\nAction: runQuery\nAction Input: ${query}`,
  ` Wikidata answered.\nFinal Answer: Chicago\nWikipedia Answer: Chicago\nWikidata Answer: ${wikidataAnswer}`,
];

export const SCENARIOS = {
  // The snippet and the query result both say Chicago.
  agree: { agent: agentTurns('SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }', 'Chicago') },
  // The query asks for the wrong property (citizenship), so Wikidata's verified answer differs from Wikipedia's.
  disagree: { agent: agentTurns('SELECT ?country WHERE { wd:Q187364 wdt:P27 ?country . }', 'United States of America') },
};

/** One run of a scenario under a recipe: wall time, the model calls it made, and what the run said. */
const runOnce = async (ctx, scenario, recipe) => {
  await ctx.stub.reset();
  await ctx.stub.script({ ...SCENARIOS[scenario], parametric: ['Chicago'], final: ['Chicago'] });
  const t0 = Date.now();
  const { run, ms } = await ctx.answer({ question: QUESTION, mode: 'agent', options: { recipe, fewshot: 'zero-shot' } });
  const t1 = Date.now();
  const requests = await ctx.stub.requests();
  const purposes = requests.map((r) => r.purpose);
  return { ms, purposes, confidence: run.confidence, gaps: engineGaps(requests, t0, t1) };
};

/**
 * Where the time outside the path's model calls went (the stub's clock and this one are the same machine's): before
 * the first call, between each call's answer and the next call, and after the last answer.
 */
const engineGaps = (requests, t0, t1) => {
  const path = requests.filter((r) => r.purpose !== 'parametric' && r.repliedAt);
  if (!path.length) return undefined;
  const between = path.slice(1).map((r, i) => r.receivedAt - path[i].repliedAt);
  return { before: path[0].receivedAt - t0, between, after: t1 - path[path.length - 1].repliedAt };
};

const gapText = (g) => (g ? `before the first call ${g.before} ms, between calls ${g.between.join(' / ')} ms, after the last ${g.after} ms` : 'n/a');

export default {
  name: 'answer',
  about: `time to answer, agent mode, ${LATENCY_MS} ms per model call, median of ${RUNS} runs`,
  order: 10,
  async run(ctx) {
    await runOnce(ctx, 'agree', 'ours'); // warm-up: the first run compiles the Worker and loads the snapshot
    await ctx.stub.latency(LATENCY_MS);
    const rows = [];
    for (const scenario of Object.keys(SCENARIOS)) {
      const measured = {};
      for (const recipe of ['paper', 'ours']) {
        const runs = [];
        for (let i = 0; i < RUNS; i++) runs.push(await runOnce(ctx, scenario, recipe));
        const calls = runs[0].purposes.filter((p) => p !== 'parametric').length;
        const mid = [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
        measured[recipe] = { ms: mid.ms, calls, confidence: runs[0].confidence, purposes: runs[0].purposes, gaps: mid.gaps };
      }
      const pathMs = measured.paper.calls * LATENCY_MS;
      ctx.log(`  ${scenario}: confidence ${measured.ours.confidence}; sequential path of the paper recipe ${measured.paper.calls} calls × ${LATENCY_MS} ms = ${pathMs} ms`);
      for (const recipe of ['paper', 'ours']) {
        const m = measured[recipe];
        ctx.log(`    ${recipe.padEnd(5)} ${m.ms.toFixed(0)} ms, ${m.calls} calls on the path (${m.purposes.join(', ')}): ×${(m.ms / pathMs).toFixed(2)} of the path`);
        ctx.log(`          outside the model: ${gapText(m.gaps)}`);
      }
      const ratio = measured.ours.ms / pathMs;
      const target = scenario === 'agree' ? 0.8 : 1.05;
      rows.push(
        { figure: `${scenario}: paper recipe, time to answer / sequential path`, value: `${measured.paper.ms.toFixed(0)} / ${pathMs} ms = ×${(measured.paper.ms / pathMs).toFixed(2)}` },
        { figure: `${scenario}: ours, time to answer / sequential path`, value: `${measured.ours.ms.toFixed(0)} / ${pathMs} ms = ×${ratio.toFixed(2)}`, target: `≤ ×${target}`, met: ratio <= target },
        // The same engine overhead on both sides: what the recipe change alone gains, whatever the machine's load.
        { figure: `${scenario}: ours / paper recipe, same run`, value: `×${(measured.ours.ms / measured.paper.ms).toFixed(2)}` },
      );
    }
    return rows;
  },
};
