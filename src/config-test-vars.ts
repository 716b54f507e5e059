/**
 * Vars a workerd test lays over the Worker's own while it runs (its runs record against a stand-in: live evidence, the
 * CRAG KG stand-in's URL). Read only when the Worker's own vars say TEST_MODE=true, which no deploy sets; tests share
 * the isolate with the Worker and its Durable Objects, so they install them here, as they install the scripted model
 * (src/llm/scripted.ts). The vars go through the same config schema as the Worker's.
 * @example installTestVars({ EVIDENCE: 'live' }); … ; installTestVars(); // back to the Worker's own
 */
let installed: Readonly<Record<string, string>> | undefined;

export const installTestVars = (vars?: Record<string, string>): void => {
  installed = vars && { ...vars };
};

/** The vars config reads: the Worker's own, with a test's over them in a test build. */
export const withTestVars = (env: Record<string, unknown>): Record<string, unknown> =>
  installed && env.TEST_MODE === 'true' ? { ...env, ...installed } : env;
