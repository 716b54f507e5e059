export { agentStrategy, createAgentStrategy } from './agent';
export type { AgentState, AgentStrategyOptions } from './agent';
export { randomFewshotStrategy, structuredOnlyStrategy, unstructuredOnlyStrategy, zeroShotStrategy } from './variants';
export { createLateFusionStrategy, lateFusionStrategy } from './late-fusion';
export { normaliseAnswer, sameAnswer } from '../../text/answers';
export { parseTurn, resolveTool } from './parse-step';
