// What `npm run deploy` checks beyond the vars: the Cloudflare resources an environment binds must be real, and every
// var that needs a binding must find it. wrangler.toml ships every D1 `database_id` as a placeholder (all zeros), and
// wrangler would bundle and start uploading before Cloudflare refused it; a missing binding would only fail on the
// first question. Both are said first, with the commands or the wrangler.toml lines that fix them.

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

/**
 * The Durable Objects the Worker exports (src/index.ts) and reads by these binding names. Every one is needed: a run
 * lives in its RunObject, every /v1 request passes the RateLimiter, and every live request and model call waits at a
 * PolitenessGate.
 */
export const DURABLE_OBJECTS = [
  { name: 'RUNS', className: 'RunObject', why: 'every run lives in its own RunObject' },
  { name: 'RATE_LIMITER', className: 'RateLimiter', why: 'every /v1 and /mcp request passes the per-key rate limiter' },
  { name: 'POLITENESS_GATE', className: 'PolitenessGate', why: 'every live evidence request and model call waits at a politeness gate' },
];

const table = (env, key) => (env ? `env.${env}.${key}` : key);
const aiLines = (env) => [`[${table(env, 'ai')}]`, 'binding = "AI"'];
const d1Lines = (env, config) => [
  `[[${table(env, 'd1_databases')}]]`,
  'binding = "DB"',
  `database_name = "${config.name ?? 'humaniq'}"`,
  'database_id = "<the id `npx wrangler d1 create` prints>"',
  'migrations_dir = "migrations"',
];
const doLines = (env, d) => [`[[${table(env, 'durable_objects.bindings')}]]`, `name = "${d.name}"`, `class_name = "${d.className}"`];
const migrationLines = (env, classes, tag) => [`[[${table(env, 'migrations')}]]`, `tag = "${tag}"`, `new_sqlite_classes = [${classes.map((c) => `"${c}"`).join(', ')}]`];
const vectorizeLines = (env, config) => [`[[${table(env, 'vectorize')}]]`, 'binding = "VECTORIZE"', `index_name = "${config.name ?? 'humaniq'}"`];
const r2Lines = (env, config) => [`[[${table(env, 'r2_buckets')}]]`, 'binding = "ARCHIVES"', `bucket_name = "${config.name ?? 'humaniq'}-archives"`];

/** Who needs Workers AI in these vars (the model, the embeddings, or both); empty when nobody does. */
const aiUsers = (vars) =>
  [vars.LLM_PROVIDER === 'workers-ai' && 'LLM_PROVIDER=workers-ai', vars.EMBEDDING_PROVIDER === 'workers-ai' && 'EMBEDDING_PROVIDER=workers-ai'].filter(Boolean);

/** Classes a migration list creates and has not deleted since. */
const migratedClasses = (migrations = []) => {
  const classes = new Set();
  for (const m of migrations) {
    for (const c of [...(m.new_sqlite_classes ?? []), ...(m.new_classes ?? [])]) classes.add(c);
    for (const r of m.renamed_classes ?? []) classes.delete(r.from), classes.add(r.to);
    for (const c of m.deleted_classes ?? []) classes.delete(c);
  }
  return classes;
};

/** A tag for a migration appended after these: past both their count and their highest `vN` (a rename's or a gap's). */
const nextTag = (migrations = []) => {
  const numbered = migrations.map((m) => Number(/^v(\d+)$/.exec(m.tag ?? '')?.[1] ?? 0));
  return `v${Math.max(migrations.length, ...numbered) + 1}`;
};

/**
 * Every binding these vars need that the resolved config lacks — `missing` stops even a dry run, since the Worker
 * would fail on its first request — and the optional ones it would miss, as `notes`. Each entry carries the
 * wrangler.toml lines that add it.
 * @example bindingReport(unstable_readConfig({ config: 'wrangler.toml', env: 'mintaka' }), 'mintaka', vars)
 */
export const bindingReport = (config, env, vars) => {
  const missing = [];
  const notes = [];
  const users = aiUsers(vars);
  if (users.length && config.ai?.binding !== 'AI') {
    const found = config.ai?.binding ? ` (it is bound as ${config.ai.binding}; the Worker reads AI)` : '';
    missing.push({ binding: 'AI', why: `${users.join(' and ')} ${users.length > 1 ? 'need' : 'needs'} the Workers AI binding AI${found}`, lines: aiLines(env) });
  }
  if (!(config.d1_databases ?? []).some((d) => d.binding === 'DB')) {
    missing.push({ binding: 'DB', why: 'the run index, idempotency keys, saved demonstrations and the corpus live in the D1 database DB', lines: d1Lines(env, config) });
  }
  const bound = config.durable_objects?.bindings ?? [];
  for (const d of DURABLE_OBJECTS) {
    const b = bound.find((x) => x.name === d.name);
    if (!b || b.class_name !== d.className) {
      const found = b ? ` (it names class ${b.class_name})` : '';
      missing.push({ binding: d.name, why: `${d.why}: bind ${d.name} to class ${d.className}${found}`, lines: doLines(env, d) });
    }
  }
  const migrated = migratedClasses(config.migrations);
  const unmigrated = DURABLE_OBJECTS.map((d) => d.className).filter((c) => !migrated.has(c));
  if (unmigrated.length) {
    const tag = nextTag(config.migrations);
    missing.push({ binding: unmigrated.join(', '), why: `no migration creates ${unmigrated.join(', ')} (Cloudflare refuses a Durable Object class without one)`, lines: migrationLines(env, unmigrated, tag) });
  }
  if (vars.EMBEDDING_PROVIDER && vars.EMBEDDING_PROVIDER !== 'local' && !(config.vectorize ?? []).some((v) => v.binding === 'VECTORIZE')) {
    notes.push({ binding: 'VECTORIZE', why: 'without a Vectorize index the few-shot examples are searched in D1 (it works; every question then compares against the whole library)', lines: vectorizeLines(env, config) });
  }
  if (!(config.r2_buckets ?? []).some((b) => b.binding === 'ARCHIVES')) {
    notes.push({ binding: 'ARCHIVES', why: 'without the R2 bucket ARCHIVES, evidence archives (POST /v1/archives) are kept in D1', lines: r2Lines(env, config) });
  }
  return { missing, notes };
};

/** The report as terminal lines: what is missing (refused) and what is optional, each with the lines to add. */
export const bindingLines = (report, { what, env, configFile }) => {
  const where = `${configFile}${env ? ` (environment "${env}")` : ''}`;
  const entry = (e) => [`  - ${e.binding}: ${e.why}. Add to ${configFile}:`, ...e.lines.map((l) => `      ${l}`)];
  return [
    ...(report.missing.length
      ? [`${what}: not deploying: ${where} lacks ${report.missing.length === 1 ? 'a binding' : `${report.missing.length} bindings`} the Worker needs:`, ...report.missing.flatMap(entry)]
      : []),
    ...(report.notes.length ? [`${what}: optional bindings ${where} does not have:`, ...report.notes.flatMap(entry)] : []),
  ];
};

/**
 * A live environment that sends requests to Wikimedia's own hosts must say who runs it (their User-Agent policy;
 * since 2026 a client without a contact gets the smallest per-minute budget). The contact is a var, not a secret: it
 * goes out in every User-Agent anyway, and a var is what this check can see before anything is uploaded.
 * @param parsed the Worker's parsed Config for these vars; @param hosts the Wikimedia hosts it would call
 */
export const contactLines = (parsed, hosts, { what, env, configFile, dryRun }) => {
  if (parsed.EVIDENCE !== 'live' || !hosts.length || parsed.WIKIMEDIA_CONTACT) return [];
  const envFlag = env ? ` --env ${env}` : '';
  return [
    `${what}: ${dryRun ? 'warning' : 'not deploying'}: EVIDENCE=live sends requests to ${hosts.join(', ')}, and WIKIMEDIA_CONTACT (how Wikimedia reaches whoever runs this deploy) is not set.`,
    `  Set it in ${configFile} under [${table(env, 'vars')}]:`,
    '      WIKIMEDIA_CONTACT = "ops@your-lab.example"   # an e-mail address or URL of your own',
    `  or for one deploy: npm run deploy --${envFlag} --var WIKIMEDIA_CONTACT:ops@your-lab.example`,
    '  (A var, not a secret: it is sent in every User-Agent, and this check cannot see secrets.)',
    ...(dryRun ? ['The dry run goes on: it uploads nothing; a deploy without the contact is refused.'] : []),
  ];
};

/** One line naming what this deploy will run with, from the same config wrangler reads. */
export const summaryLine = (config, env, vars, { what }) => {
  const names = (list, key) => (list ?? []).map((x) => `${x.binding} (${x[key]})`);
  const bindings = [
    ...(config.ai?.binding ? [`${config.ai.binding} (Workers AI)`] : []),
    ...names(config.d1_databases, 'database_name'),
    ...names(config.vectorize, 'index_name'),
    ...names(config.r2_buckets, 'bucket_name'),
    ...(config.durable_objects?.bindings ?? []).map((d) => `${d.name} (${d.class_name})`),
  ];
  const setting = (k, fallback) => `${k}=${vars[k] ?? fallback}`;
  return `${what}: environment ${env ?? '(top level)'} → Worker ${config.name}: ${[setting('EVIDENCE', 'static'), setting('LLM_PROVIDER', 'none'), setting('EMBEDDING_PROVIDER', 'local'), setting('DEFAULT_VARIANT', 'mintaka')].join(', ')}; bindings ${bindings.join(', ')}`;
};
