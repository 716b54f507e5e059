import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import type { Recipe } from '../../engine/recipe';
import type { SelectionMode } from '../../fewshot';
import type { ChatMessage } from '../../llm/types';
import parametricPaperPrompt from './prompts/parametric-paper.txt';
import parametricPrompt from './prompts/parametric.txt';

/**
 * Where the two recipes of the agent family differ (docs/FIDELITY.md): the loop, the prompts, the example selection,
 * the merge and the late fusion read these, and are the same code for both.
 */
export interface AgentRecipe {
  /** Agent calls before the loop stops (the default of options.maxIterations). */
  maxIterations: number;
  /** The agent's system prompt and worked examples in the published wording (one per scope), else ours. */
  publishedPrompt: boolean;
  /** How solution processes are chosen (src/fewshot/select.ts): relevance as the cosine or exp(α·cos), and diversity-only's rule. */
  selection: { quality: 'cosine' | 'exp'; diversity: 'least-similar' | 'conditioned' };
  /** A repeated action gets its earlier result back instead of a second tool call. */
  reuseRepeatedActions: boolean;
  /** At the iteration limit, one more call answers from the trajectory; without it the loop stops with no answer. */
  extractAtLimit: boolean;
  /** A source the agent did not declare an answer for is read from its trace. */
  answersFromTrace: boolean;
  /** A single-source agent answers with its final answer (else its source's), or with the source answer it declared. */
  singleSourceAnswer: 'final' | 'declared';
  /** The closed-book question. */
  closedBook: (question: string) => ChatMessage[];
  /** A short answer's merge call reads the source answers and the agent's response paragraph, not the trajectory. */
  mergeReadsResponse: boolean;
  /** When the sources verified in the evidence agree, the answer is written without the merge call (agreed.ts). */
  skipMergeWhenAgreed: boolean;
  /** LLM late fusion: the two agents one after the other or side by side, and their examples' selection (undefined: options.fewshot). */
  lateFusion: { inTurn: boolean; selection?: SelectionMode };
}

export const AGENT_RECIPES: Record<Recipe, AgentRecipe> = {
  // LangChain's AgentExecutor, which the authors ran, stops after 15 iterations with no answer. The paper's tools only
  // ask the model not to repeat an input, and run it again when it does. Its closed-book prompt asks for the answer
  // and nothing else.
  // Its prompts are the authors' own wording; its quality is the cosine itself, and diversity-only takes the sequences
  // least similar to the first pick. Its merge reads the agent's response, it makes the merge call whatever the
  // sources say, and its late fusion runs the agents one after the other, with examples drawn at random.
  paper: {
    maxIterations: 15,
    publishedPrompt: true,
    selection: { quality: 'cosine', diversity: 'least-similar' },
    reuseRepeatedActions: false,
    extractAtLimit: false,
    answersFromTrace: false,
    singleSourceAnswer: 'declared',
    closedBook: (question) => [{ role: 'user', content: `${parametricPaperPrompt.trim()}\nQuestion: ${oneLine(question)}\nAnswer:` }],
    mergeReadsResponse: true,
    skipMergeWhenAgreed: false,
    lateFusion: { inTurn: true, selection: 'random' },
  },
  // Ours may say "I don't know" closed-book, and the question reaches the model fenced as data.
  ours: {
    maxIterations: 10,
    publishedPrompt: false,
    selection: { quality: 'exp', diversity: 'conditioned' },
    reuseRepeatedActions: true,
    extractAtLimit: true,
    answersFromTrace: true,
    singleSourceAnswer: 'final',
    closedBook: (question) => [
      { role: 'system', content: `${parametricPrompt.trim()}\n\n${DATA_FENCE_RULE}` },
      { role: 'user', content: fence('QUESTION', question) },
    ],
    mergeReadsResponse: false,
    skipMergeWhenAgreed: true,
    lateFusion: { inTurn: false },
  },
};
