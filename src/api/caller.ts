/**
 * What the auth step learnt about the caller (`key:<hash>` or `ip:<address>`); the rate limiter buckets by it and
 * the run routes scope by it. Its own module so that auth, which charges failed attempts to the limiter, and the
 * limiter, which reads the caller, depend on it rather than on each other.
 */
export type CallerVariables = { caller: string };
