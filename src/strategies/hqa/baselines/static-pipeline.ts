import { traceClaims } from '../claims';
import { collectAnswers, mergeFinalAnswer } from '../merge';
import { pipelineOptions } from '../options';
import { createPipelineStrategy, derive, type Stage } from './pipeline';

const GRAPH = 'graph';

/** wikisearch → getWikidataID → generateQuery → runQuery → getLabel, always in this order, then the merge call. */
export const staticPipelineStages: Stage[] = [
  { branch: GRAPH, tool: 'wikisearch', input: derive.question, missing: '' },
  { branch: GRAPH, tool: 'getWikidataID', input: derive.firstTitle, missing: 'The search found no page, so the pipeline stops here.' },
  { branch: GRAPH, tool: 'generateQuery', input: derive.queryInput, missing: 'The page has no Wikidata item, so no query can be written.' },
  { branch: GRAPH, tool: 'runQuery', input: derive.query, missing: 'No query was written, so nothing can be run.' },
  { branch: GRAPH, tool: 'getLabel', input: derive.resultIds, missing: 'There are no ids to label.' },
];

export const staticPipelineStrategy = createPipelineStrategy({
  mode: 'static-pipeline',
  description: 'Baseline: a fixed wikisearch → getWikidataID → generateQuery → runQuery → getLabel pipeline, then the answer merge.',
  options: pipelineOptions,
  stages: staticPipelineStages,
  finish: (ctx, turns) => {
    const answers = collectAnswers(turns, ctx.request.question);
    return mergeFinalAnswer(ctx, {
      question: ctx.request.question,
      turns,
      answers,
      claims: traceClaims(answers, turns),
      style: ctx.options.answerStyle,
      abstain: ctx.options.abstain,
    });
  },
});
