import type { ChatMessage } from '../../llm/types';
import type { Tool } from '../../tools/types';
import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import type { Recipe } from '../../engine/recipe';
import { AGENT_RECIPES } from './recipes';
import agentPrompt from './prompts/agent.txt';
import agentPaperGraph from './prompts/agent-paper-graph.txt';
import agentPaperText from './prompts/agent-paper-text.txt';
import agentPaper from './prompts/agent-paper.txt';
import extractPrompt from './prompts/extract.txt';
import { DECLARATION_LINES, SCOPE_TEXT, sourcesOfScope, type Scope } from './scope';
import type { Turn } from './trace';

/** Characters of trajectory the agent prompt keeps before it shortens old observations (~6k tokens). */
export const DEFAULT_TRAJECTORY_BUDGET = 24_000;
/** An old observation is cut to this many characters when the trajectory is over budget. */
const OLD_OBSERVATION_CHARS = 500;

export const toolList = (tools: readonly Tool[]): string => tools.map((t) => `- ${t.name}: ${t.description}`).join('\n');

const PAPER_PROMPTS: Record<Scope, string> = { hybrid: agentPaper, text: agentPaperText, graph: agentPaperGraph };

/**
 * The system prompt: task, tools, format (with the per-source declarations of the final turn), and for our
 * recipe the rule that observations are data. The paper recipe uses its own wording per scope.
 */
export const agentSystemPrompt = (tools: readonly Tool[], recipe: Recipe = 'ours', scope: Scope = 'hybrid'): string => {
  // The data-fence rule is kept under both recipes: it is a defence against injected text, not a change of method.
  if (AGENT_RECIPES[recipe].publishedPrompt) {
    const paper = PAPER_PROMPTS[scope].trim().replace('{{tools}}', toolList(tools)).replace('{{toolNames}}', tools.map((t) => t.name).join(', '));
    return `${paper}\n\n${DATA_FENCE_RULE}`;
  }
  const text = SCOPE_TEXT[scope];
  const declare = sourcesOfScope(scope).map((s) => `${DECLARATION_LINES[s]}\n`).join('');
  return agentPrompt
    .trim()
    .replace('{{scope}}', text.scope)
    .replace('{{tools}}', toolList(tools))
    .replace('{{declare}}\n', declare)
    .replace('{{guidance}}', text.guidance.map((g) => `- ${g}\n`).join('')) + `\n\n${DATA_FENCE_RULE}`;
};

const renderTurn = (t: Turn, observation = t.observation): string => {
  const lines: string[] = [];
  if (t.thought) lines.push(`Thought: ${t.thought}`);
  if (t.tool) lines.push(`Action: ${t.tool}`, `Action Input: ${t.input ?? ''}`);
  // Fenced, so a page or query result cannot write the agent's next Thought/Action for it.
  if (observation !== undefined) lines.push(`Observation: ${fence('OBSERVATION', observation)}`);
  if (t.final !== undefined) lines.push(`Final Answer: ${t.final}`);
  return lines.join('\n');
};

const cut = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)} [... ${text.length - max} more characters hidden to save space]` : text;

/**
 * The trajectory as protocol text. Over budget, old long observations are shortened oldest first;
 * the last turn's observation is never cut, since it is what the model must react to now.
 */
export const renderTrajectory = (turns: readonly Turn[], budget = DEFAULT_TRAJECTORY_BUDGET): string => {
  const observations = fittedObservations(turns, budget);
  return turns.map((t, i) => renderTurn(t, observations[i])).join('\n');
};

/**
 * The turns' observations within `budget` characters of trajectory, old long ones shortened oldest first; the last
 * batch of observations (the calls of the latest turn) is never cut. Both protocols show the model these.
 */
export const fittedObservations = (turns: readonly Turn[], budget = DEFAULT_TRAJECTORY_BUDGET): Array<string | undefined> => {
  const observations = turns.map((t) => t.observation);
  const total = () => turns.map((t, i) => renderTurn(t, observations[i]).length + 1).reduce((a, b) => a + b, 0);
  let latest = turns.length - 1;
  while (latest > 0 && turns[latest].joined) latest--;
  for (let i = 0; i < latest && total() > budget; i++) {
    const o = observations[i];
    if (o && o.length > OLD_OBSERVATION_CHARS) observations[i] = cut(o, OLD_OBSERVATION_CHARS);
  }
  return observations;
};

/**
 * The worked examples as they open the agent's user message. The paper numbers its three examples; ours separates
 * them and says where the real question starts. Also what a call may drop whole to fit a small context window.
 */
export const agentShots = (examples: readonly string[], recipe: Recipe = 'ours'): string => {
  const shots = examples.map((e) => e.trim());
  if (!shots.length) return '';
  return AGENT_RECIPES[recipe].publishedPrompt
    ? `Here are examples of how to use the tools:\n\n${shots.map((e, i) => `Example ${i + 1}:\n${e}`).join('\n\n')}\n\n`
    : `Worked examples of the format:\n\n${shots.join('\n\n---\n\n')}\n\n---\n\nNow the real question.\n`;
};

/** The messages of one agent call: the model continues the text after the final `Thought:`. */
export const agentMessages = (input: {
  tools: readonly Tool[];
  examples: readonly string[];
  question: string;
  turns: readonly Turn[];
  budget?: number;
  recipe?: Recipe;
  scope?: Scope;
}): ChatMessage[] => {
  const recipe = input.recipe ?? 'ours';
  const shots = agentShots(input.examples, recipe);
  const trajectory = renderTrajectory(input.turns, input.budget);
  // The question stays on its one protocol line: line breaks in it could otherwise start a turn of their own.
  const user = `${shots}Question: ${oneLine(input.question)}\n${trajectory ? `${trajectory}\n` : ''}Thought:`;
  return [
    { role: 'system', content: agentSystemPrompt(input.tools, recipe, input.scope) },
    { role: 'user', content: user },
  ];
};

/** The extract step after the iteration limit: the trajectory fenced as data. */
export const extractMessages = (question: string, turns: readonly Turn[], budget?: number): ChatMessage[] => [
  { role: 'system', content: `${extractPrompt.trim()}\n\n${DATA_FENCE_RULE}` },
  {
    role: 'user',
    // The trajectory is our own protocol text; its observations were fenced when it was rendered.
    content: `${fence('QUESTION', question)}\n\n${fence('TRAJECTORY', renderTrajectory(turns, budget), { keepProtocol: true })}\n\nAnswer:`,
  },
];
