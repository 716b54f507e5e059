import type { WorkMeter } from './instantiate';
import type { SandboxError } from './types';

/** Our own setup and teardown (context, prelude, dispose) are bounded by our code and run on a full counter. */
export const FULL_TANK = 0x7fffffff;

/** The error for an attempt whose engine trapped because its work budget ran out, or undefined if it had not. */
export const workExhausted = (work: WorkMeter, budget: number): SandboxError | undefined => {
  let left: number;
  try {
    left = work.left();
  } catch {
    return undefined;
  }
  if (left >= 0) return undefined;
  return {
    kind: 'cpu_budget',
    message: `cpu budget exceeded: the code used its ${budget.toLocaleString('en-US')} work units (every loop turn counts, inside built-ins too); use less work or smaller inputs`,
  };
};
