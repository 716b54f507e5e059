import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import type { Recipe } from '../../engine/recipe';
import type { ChatMessage } from '../../llm/types';
import parametricPaperPrompt from './prompts/parametric-paper.txt';
import parametricPrompt from './prompts/parametric.txt';

/** Where the two recipes of the agent loop differ (docs/FIDELITY.md); the loop reads these and is the same for both. */
export interface AgentRecipe {
  /** Agent calls before the loop stops. */
  maxIterations: number;
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
}

export const AGENT_RECIPES: Record<Recipe, AgentRecipe> = {
  // LangChain's AgentExecutor, which the authors ran, stops after 15 iterations with no answer. The paper's tools only
  // ask the model not to repeat an input, and run it again when it does. Its closed-book prompt asks for the answer
  // and nothing else.
  paper: {
    maxIterations: 15,
    reuseRepeatedActions: false,
    extractAtLimit: false,
    answersFromTrace: false,
    singleSourceAnswer: 'declared',
    closedBook: (question) => [{ role: 'user', content: `${parametricPaperPrompt.trim()}\nQuestion: ${oneLine(question)}\nAnswer:` }],
  },
  // Ours may say "I don't know" closed-book, and the question reaches the model fenced as data.
  ours: {
    maxIterations: 10,
    reuseRepeatedActions: true,
    extractAtLimit: true,
    answersFromTrace: true,
    singleSourceAnswer: 'final',
    closedBook: (question) => [
      { role: 'system', content: `${parametricPrompt.trim()}\n\n${DATA_FENCE_RULE}` },
      { role: 'user', content: fence('QUESTION', question) },
    ],
  },
};
