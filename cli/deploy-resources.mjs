// What `npm run deploy` checks beyond the vars: the Cloudflare resources an environment binds must be real. wrangler.toml
// ships every D1 `database_id` as a placeholder (all zeros), and wrangler would bundle and start uploading before
// Cloudflare refused it; this says so first, with the commands that create each resource.

const PLACEHOLDER_ID = /^0{8}-0{4}-0{4}-0{4}-0{12}$/;

/**
 * The D1 databases of a resolved wrangler config (unstable_readConfig) whose database_id is still the placeholder,
 * and the commands that create what the environment binds. Vectorize indexes and R2 buckets have no id in the file,
 * so whether they exist cannot be known without logging in; their commands are listed for a first deploy.
 */
export const placeholderReport = (config, env) => {
  const section = env ? `[[env.${env}.d1_databases]]` : '[[d1_databases]]';
  const envFlag = env ? ` --env ${env}` : '';
  const placeholders = (config.d1_databases ?? []).filter((d) => PLACEHOLDER_ID.test(d.database_id ?? ''));
  const commands = [
    ...placeholders.map((d) => `npx wrangler d1 create ${d.database_name}   # then put the printed database_id into ${section} (binding ${d.binding}) in wrangler.toml`),
    ...(config.vectorize ?? []).map((v) => `npx wrangler vectorize create ${v.index_name} --dimensions 768 --metric cosine   # if it does not exist yet`),
    ...(config.r2_buckets ?? []).map((b) => `npx wrangler r2 bucket create ${b.bucket_name}   # if it does not exist yet`),
    ...(placeholders.length ? [`npx wrangler d1 migrations apply DB${envFlag} --remote   # optional: tables are also created on first use`] : []),
  ];
  return { placeholders: placeholders.map((d) => `${d.binding} → D1 database "${d.database_name}" has the placeholder database_id ${d.database_id}`), commands };
};

/** The report as lines for the terminal; empty when nothing is a placeholder. */
export const placeholderLines = (report, { what, dryRun }) =>
  report.placeholders.length
    ? [
        `${what}: ${dryRun ? 'this configuration cannot be deployed yet' : 'not deploying'}: ${report.placeholders.join('; ')}.`,
        'Create the resources (after `npx wrangler login`):',
        ...report.commands.map((c) => `  ${c}`),
        ...(dryRun ? ['The dry run goes on: it uploads nothing.'] : []),
      ]
    : [];
