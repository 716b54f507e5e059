// bench/latency group `prefix` (issue 25): how much of each agent prompt after the first repeats the start of the
// previous one, as the run's usage reports it (usage.promptReuse, characters as sent). That part is what vLLM's
// automatic prefix caching and OpenAI's prompt caching serve without computing it again. Agent mode, five agent
// calls (four tool calls, one of them a read whose page lands in the prompt), with the worked examples the variant
// selects and with none (zero-shot, the least fixed text), under both recipes.
const QUESTION = 'In which city was the director of Forrest Gump born?';
const SCRIPT = {
  agent: [
    ' I need the director of Forrest Gump.\nAction: wikisearch\nAction Input: Forrest Gump',
    ' Robert Zemeckis directed it. His Wikidata item.\nAction: getWikidataID\nAction Input: Robert Zemeckis',
    ' Now his place of birth.\nAction: runQuery\nAction Input: SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }',
    ' Check his page.\nAction: read\nAction Input: Robert Zemeckis # Where was he born?',
    ' Both say Chicago.\nFinal Answer: Chicago\nWikipedia Answer: Chicago\nWikidata Answer: Chicago',
  ],
  read: ['Robert Zemeckis was born in Chicago, Illinois.'],
  parametric: ['Chicago'],
  final: ['Chicago'],
};
const TARGET = 0.9;

export default {
  name: 'prefix',
  about: 'share of each agent prompt after the first that repeats the previous prompt (usage.promptReuse.agent)',
  order: 40,
  async run(ctx) {
    const rows = [];
    for (const recipe of ['ours', 'paper']) {
      for (const fewshot of ['default', 'zero-shot']) {
        await ctx.stub.reset();
        await ctx.stub.script(SCRIPT);
        const { run } = await ctx.answer({ question: QUESTION, mode: 'agent', options: { recipe, ...(fewshot === 'default' ? {} : { fewshot }) } });
        const reuse = run.usage.promptReuse?.agent;
        if (!reuse) throw new Error(`run ${run.runId} reports no promptReuse for its agent calls`);
        const label = `${recipe}, ${fewshot === 'default' ? 'worked examples' : 'zero-shot'}`;
        ctx.log(`  ${label}: ${reuse.calls} agent calls after the first, ${reuse.repeatedChars} of ${reuse.chars} characters repeat the previous prompt`);
        rows.push({
          figure: `prefix share, agent calls after the first (${label})`,
          value: `${(reuse.share * 100).toFixed(1)} %`,
          target: `≥ ${TARGET * 100} %`,
          met: reuse.share >= TARGET,
        });
      }
    }
    return rows;
  },
};
