export { agentStrategy, createAgentStrategy } from './agent';
export type { AgentStrategyOptions } from './agent';
export type { AgentState } from './agent-state';
export { randomFewshotStrategy, structuredOnlyStrategy, unstructuredOnlyStrategy, zeroShotStrategy } from './variants';
export { createLateFusionStrategy, lateFusionStrategy } from './late-fusion-agents';
export { normaliseAnswer, sameAnswer } from '../../text/answers';
export { parseTurn, resolveTool } from './parse-step';
