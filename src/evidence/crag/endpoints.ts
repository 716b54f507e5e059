import * as z from 'zod';

/**
 * The CRAG mock-KG API: 38 POST endpoints (paths and argument shapes as the benchmark's server defines
 * them; descriptions are ours). Every body is JSON; most take `{query}`; every answer is `{"result": …}`.
 */
export type KgDomain = 'open' | 'movie' | 'finance' | 'music' | 'sports';

export interface KgEndpoint {
  path: string;
  domain: KgDomain;
  description: string;
  /** The argument object, as the model must write it. */
  args: z.ZodType<Record<string, unknown>>;
  /** A one-line signature for the prompt. */
  signature: string;
}

const text = z.string().trim().min(1).max(200);
const queryText = z.object({ query: text }).strict();
const queryInt = z.object({ query: z.coerce.number().int().min(0).max(100_000_000) }).strict();
const queryYear = z.object({ query: z.coerce.number().int().min(1900).max(2100) }).strict();
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'date must be YYYY-MM-DD');
const looseDate = z.string().regex(/^\d{4}(-\d{2}(-\d{2})?)?$/, 'date must be YYYY, YYYY-MM or YYYY-MM-DD');
const games = z.object({ date: looseDate, team_name: text.optional() }).strict();

const ep = (path: string, description: string, args: z.ZodType<Record<string, unknown>>, signature: string): KgEndpoint => ({
  path,
  domain: path.split('/')[0] as KgDomain,
  description,
  args,
  signature,
});
const q = '{"query": string}';
const qi = '{"query": integer}';

export const KG_ENDPOINTS: KgEndpoint[] = [
  ep('open/search_entity_by_name', 'entity names matching a text (up to 10)', queryText, q),
  ep('open/get_entity', 'summary and infobox of one named entity', queryText, q),
  ep('movie/get_person_info', 'people (actors, directors) matching a name, with films, birthday, Oscars', queryText, q),
  ep('movie/get_movie_info', 'films matching a title, with date, budget, revenue, rating, cast, crew, Oscars', queryText, q),
  ep('movie/get_year_info', 'films and Oscar awards of a year (1990-2021)', z.object({ query: z.string().regex(/^\d{4}$/) }).strict(), '{"query": "YYYY"}'),
  ep('movie/get_movie_info_by_id', 'one film by its numeric id', queryInt, qi),
  ep('movie/get_person_info_by_id', 'one person by numeric id', queryInt, qi),
  ep('finance/get_company_name', 'company names matching a text', queryText, q),
  ep('finance/get_ticker_by_name', 'ticker symbol of an exact company name', queryText, q),
  ep('finance/get_price_history', 'one year of daily prices and volume for a ticker', queryText, '{"query": ticker}'),
  ep('finance/get_detailed_price_history', 'last 5 days of per-minute prices for a ticker', queryText, '{"query": ticker}'),
  ep('finance/get_dividends_history', 'dividend history of a ticker', queryText, '{"query": ticker}'),
  ep('finance/get_market_capitalization', 'market capitalization of a ticker', queryText, '{"query": ticker}'),
  ep('finance/get_eps', 'earnings per share of a ticker', queryText, '{"query": ticker}'),
  ep('finance/get_pe_ratio', 'price-to-earnings ratio of a ticker', queryText, '{"query": ticker}'),
  ep('finance/get_info', 'metadata of a ticker', queryText, '{"query": ticker}'),
  ep('music/search_artist_entity_by_name', 'artist names matching a text', queryText, q),
  ep('music/search_song_entity_by_name', 'song names matching a text', queryText, q),
  ep('music/get_billboard_rank_date', 'song and artist at a Billboard Hot 100 rank (on a date, or on all dates)',
    z.object({ rank: z.coerce.number().int().min(1).max(100), date: isoDate.optional() }).strict(), '{"rank": 1-100, "date"?: "YYYY-MM-DD"}'),
  ep('music/get_billboard_attributes', "a song's chart attribute on a date",
    z.object({ date: isoDate, attribute: z.enum(['rank_last_week', 'weeks_in_chart', 'top_position', 'rank']), song_name: text }).strict(),
    '{"date": "YYYY-MM-DD", "attribute": "rank_last_week"|"weeks_in_chart"|"top_position"|"rank", "song_name": string}'),
  ep('music/grammy_get_best_artist_by_year', 'Grammy Best New Artist of a year (1958-2019)', queryYear, qi),
  ep('music/grammy_get_award_count_by_artist', 'number of Grammys an artist won', queryText, q),
  ep('music/grammy_get_award_count_by_song', 'number of Grammys a song won', queryText, q),
  ep('music/grammy_get_best_song_by_year', 'Grammy Song of the Year of a year', queryYear, qi),
  ep('music/grammy_get_award_date_by_artist', 'years in which an artist won Grammys', queryText, q),
  ep('music/grammy_get_best_album_by_year', 'Grammy Album of the Year of a year', queryYear, qi),
  ep('music/grammy_get_all_awarded_artists', 'every Best New Artist winner', z.object({}).strict(), '{}'),
  ep('music/get_artist_birth_place', "an artist's birth country (ISO code)", queryText, q),
  ep('music/get_artist_birth_date', "an artist's birth date or a band's start date", queryText, q),
  ep('music/get_members', "a band's members", queryText, q),
  ep('music/get_lifespan', "an artist's birth and death dates", queryText, q),
  ep('music/get_song_author', 'author of a song', queryText, q),
  ep('music/get_song_release_country', 'release country of a song (ISO code)', queryText, q),
  ep('music/get_song_release_date', 'release date of a song', queryText, q),
  ep('music/get_artist_all_works', "all works of an artist", queryText, q),
  ep('sports/soccer/get_games_on_date', 'soccer games on a date (optionally of one team)', games, '{"date": "YYYY[-MM[-DD]]", "team_name"?: string}'),
  ep('sports/nba/get_games_on_date', 'NBA games on a date (optionally of one team)', games, '{"date": "YYYY[-MM[-DD]]", "team_name"?: string}'),
  ep('sports/nba/get_play_by_play_data_by_game_ids', 'play-by-play rows of NBA games',
    z.object({ game_ids: z.array(z.string().regex(/^\d{6,12}$/)).min(1).max(5) }).strict(), '{"game_ids": [string]}'),
];

export const endpointByPath = new Map(KG_ENDPOINTS.map((e) => [e.path, e]));

/** One call of the API: an endpoint path (`finance/get_eps`) and its JSON body. */
export interface KgCall {
  endpoint: string;
  args: Record<string, unknown>;
}

export type Checked = { ok: true; call: KgCall } | { ok: false; error: string };

const callShape = z.object({ endpoint: z.string(), args: z.record(z.string(), z.unknown()).default({}) });

/**
 * Validates one call against its endpoint's schema, and returns it with its arguments as the endpoint takes them
 * (`"42"` → 42 where an integer is due). The strategy checks a model's calls with it before anything is sent, and the
 * client again, so nothing but the 38 endpoints with well-formed bodies ever leaves.
 */
export const checkCall = (raw: unknown): Checked => {
  const shape = callShape.safeParse(raw);
  if (!shape.success) return { ok: false, error: 'a call must be {"endpoint": string, "args": object}' };
  const path = shape.data.endpoint.replace(/^\/+/, '');
  const endpoint = endpointByPath.get(path);
  if (!endpoint) return { ok: false, error: `unknown endpoint "${path.slice(0, 80)}"` };
  const args = endpoint.args.safeParse(shape.data.args);
  if (!args.success) {
    return { ok: false, error: `${path}: ${args.error.issues.map((i) => `${i.path.join('.') || 'args'} ${i.message}`).join('; ')}` };
  }
  return { ok: true, call: { endpoint: path, args: args.data } };
};
