import type { KnowledgeApi } from '../../../evidence/crag/types';
import { checkCall, type KgCall } from './client';
import type { KgEntities } from './entities';

// The paper's final KG module: the model only names entities; these rules decide which endpoints to call. Lookups
// that need an id first (a ticker for a company name, an exact entity name for a search) resolve it with one call.

const has = (question: string, ...patterns: RegExp[]) => patterns.some((p) => p.test(question));

/** Finance endpoints a question needs, by its words; metadata when nothing more specific matches. */
const financeEndpoints = (q: string): string[] => {
  const out: string[] = [];
  if (has(q, /dividend/)) out.push('finance/get_dividends_history');
  if (has(q, /market cap/)) out.push('finance/get_market_capitalization');
  if (has(q, /\beps\b|earnings per share/)) out.push('finance/get_eps');
  if (has(q, /\bp\/?e\b|price.to.earnings|pe ratio/)) out.push('finance/get_pe_ratio');
  if (has(q, /minute|intraday|right now|currently trading/)) out.push('finance/get_detailed_price_history');
  if (has(q, /price|open|clos|high|low|volume|trad|stock|share/) && !out.length) out.push('finance/get_price_history');
  return out.length ? out : ['finance/get_info'];
};

const artistEndpoints = (q: string): string[] => {
  const out: string[] = [];
  if (has(q, /grammy|award/)) out.push('music/grammy_get_award_count_by_artist', 'music/grammy_get_award_date_by_artist');
  if (has(q, /born|birth|country|from where|hometown/)) out.push('music/get_artist_birth_place', 'music/get_artist_birth_date');
  if (has(q, /member|band/)) out.push('music/get_members');
  if (has(q, /die|dead|death|lifespan|alive/)) out.push('music/get_lifespan');
  if (has(q, /album|song|works|released|discograph|record/)) out.push('music/get_artist_all_works');
  return out.length ? out : ['music/get_artist_all_works'];
};

const songEndpoints = (q: string): string[] => {
  const out: string[] = [];
  if (has(q, /grammy|award/)) out.push('music/grammy_get_award_count_by_song');
  if (has(q, /wrote|writ|author|composed/)) out.push('music/get_song_author');
  if (has(q, /release|came out|when/)) out.push('music/get_song_release_date');
  if (has(q, /country|where/)) out.push('music/get_song_release_country');
  return out.length ? out : ['music/get_song_author', 'music/get_song_release_date'];
};

const yearMusicEndpoints = (q: string): string[] => {
  if (!has(q, /grammy/)) return [];
  if (has(q, /album/)) return ['music/grammy_get_best_album_by_year'];
  if (has(q, /song/)) return ['music/grammy_get_best_song_by_year'];
  return ['music/grammy_get_best_artist_by_year'];
};

export type RulePlan = Array<KgCall | { resolve: 'ticker'; company: string; then: string[] } | { resolve: 'entity'; name: string }>;

const MAX_PLANNED = 6;

/**
 * The calls for a question in a domain, from the extracted entities. Pure: no network, so it is tested on its own.
 * @example planKgCalls('finance', { company: ['Apple Inc.'] }, 'market cap of apple?')
 *   // [{ resolve: 'ticker', company: 'Apple Inc.', then: ['finance/get_market_capitalization'] }]
 */
export const planKgCalls = (domain: string | undefined, e: KgEntities, question: string): RulePlan => {
  const q = question.toLowerCase();
  const plan: RulePlan = [];
  const call = (endpoint: string, args: Record<string, unknown>) => plan.push({ endpoint, args });
  switch (domain) {
    case 'finance': {
      const endpoints = financeEndpoints(q);
      for (const t of e.ticker ?? []) for (const ep of endpoints) call(ep, { query: t.toUpperCase() });
      if (!e.ticker?.length) for (const c of e.company ?? []) plan.push({ resolve: 'ticker', company: c, then: endpoints });
      break;
    }
    case 'movie':
      for (const m of e.movie ?? []) call('movie/get_movie_info', { query: m });
      for (const p of e.person ?? []) call('movie/get_person_info', { query: p });
      if (e.year && !e.movie?.length && !e.person?.length) call('movie/get_year_info', { query: e.year });
      break;
    case 'music':
      for (const a of e.artist ?? []) for (const ep of artistEndpoints(q)) call(ep, { query: a });
      for (const s of e.song ?? []) for (const ep of songEndpoints(q)) call(ep, { query: s });
      if (e.year) for (const ep of yearMusicEndpoints(q)) call(ep, { query: Number(e.year) });
      break;
    case 'sports': {
      const sport = e.sport ?? (has(q, /nba|basketball|lakers|celtics|warriors|points|rebounds/) ? 'nba' : 'soccer');
      const date = e.date ?? e.year;
      if (date) for (const team of e.team?.length ? e.team : [undefined]) call(`sports/${sport}/get_games_on_date`, { date, ...(team ? { team_name: team } : {}) });
      break;
    }
    default:
      for (const name of e.entity ?? []) plan.push({ resolve: 'entity', name });
  }
  return plan.slice(0, MAX_PLANNED);
};

export interface KgResult {
  endpoint: string;
  args: Record<string, unknown>;
  result: string;
  error?: string;
}

const firstString = (json: string): string | undefined => {
  try {
    const v = JSON.parse(json) as unknown;
    const first = Array.isArray(v) ? v[0] : v;
    return typeof first === 'string' && first.trim() ? first.trim() : undefined;
  } catch {
    return undefined;
  }
};

export interface PlanLimits {
  /** Requests sent at most, resolutions included. */
  maxRequests: number;
  /** No new request starts after this long (the clock moves across I/O, so this holds in workerd). */
  budgetMs: number;
  signal?: AbortSignal;
}

/**
 * Runs a plan against the CRAG API: every call is validated against its endpoint schema before it is sent; the
 * calls go one after another (a resolution feeds the next), within a request count and a time budget.
 */
export const runPlan = async (kg: KnowledgeApi, plan: RulePlan, limits: Partial<PlanLimits> = {}): Promise<KgResult[]> => {
  const { maxRequests = 8, budgetMs = 20_000, signal } = limits;
  const started = Date.now();
  const results: KgResult[] = [];
  let sent = 0;
  const send = async (call: KgCall): Promise<string | undefined> => {
    const checked = checkCall(call);
    if (!checked.ok) {
      results.push({ ...call, result: '', error: `not sent: ${checked.error}` });
      return undefined;
    }
    if (sent >= maxRequests || signal?.aborted) return undefined;
    if (Date.now() - started > budgetMs) {
      results.push({ ...checked.call, result: '', error: `not sent: the KG step used its ${budgetMs} ms` });
      return undefined;
    }
    sent++;
    try {
      const result = await kg.call(checked.call);
      results.push({ ...checked.call, result });
      return result;
    } catch (err) {
      results.push({ ...checked.call, result: '', error: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  };
  for (const step of plan) {
    if ('endpoint' in step) await send(step);
    else if (step.resolve === 'ticker') {
      const ticker = firstString((await send({ endpoint: 'finance/get_ticker_by_name', args: { query: step.company } })) ?? '');
      if (ticker) for (const ep of step.then) await send({ endpoint: ep, args: { query: ticker } });
    } else {
      const name = firstString((await send({ endpoint: 'open/search_entity_by_name', args: { query: step.name } })) ?? '');
      if (name) await send({ endpoint: 'open/get_entity', args: { query: name } });
    }
  }
  return results;
};
