/**
 * What `'zod'` resolves to in Worker builds (wrangler.toml [alias]): zod itself, except for the `z` object.
 * @hono/zod-openapi imports `{ z }` and passes it to a function, which makes the bundler keep every member of zod's
 * namespace, the ~40 locale packs included: about 70 KiB gzip of a 2.2 MB budget (npm run bench:bundle). That
 * function reads only `z.ZodType`; our own code imports zod as a namespace (tests/node/bundle-hygiene.test.ts), and
 * the clean-clone dry-run test fails if another dependency starts importing `{ z }`.
 */
import { ZodType } from 'zod/v4';

export * from 'zod/v4';
export const z = { ZodType };
export default z;
