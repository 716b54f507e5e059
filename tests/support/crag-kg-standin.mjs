#!/usr/bin/env node
// A stand-in for the CRAG mock-KG API (the benchmark's FastAPI server): the same 38 POST endpoints, JSON bodies in,
// `{"result": …}` out in the shapes that server answers, a 422 `{"detail": [...]}` for a body of the wrong shape and a
// 404 `{"detail": "Not Found"}` for an unknown path. Its data is a handful of made-up-but-plausible records per domain,
// enough for tests and manual runs; nothing is copied from the benchmark's data.
//
//   node tests/support/crag-kg-standin.mjs --port 9531
//   const kg = await startCragKgStandIn();   // { url, close, faults(), requests() }
//
// Control (for tests, which may run in several files at once: everything is scoped by a `match` string that the
// request's JSON body must contain, so one file's faults and windows never touch another's requests):
//   POST /__faults   {"match": "Busy Corp", "status": 429, "retryAfter": 1, "count": 1}  the next `count` matching
//                    requests are answered `status` (with Retry-After seconds when given)
//                    {"match": "Endless Entity", "endless": true}  matching requests get headers, then a body that
//                    never ends (64 KB pieces until the client hangs up)
//   GET  /__requests?match=...   [{path, body, at, insideRetryAfter}] of the matching requests; insideRetryAfter marks
//                    one that arrived while an earlier Retry-After for its match still ran (a client that ignores it)
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

// ---- data: a few records per domain, in the server's shapes -----------------------------------------------------

const award = (year, category, name, film, winner) => ({ year_ceremony: year, ceremony: year - 1928, category, name, film, winner });

const PEOPLE = [
  { name: 'Robert Zemeckis', id: 24, acted_movies: [], directed_movies: [13, 105], birthday: '1952-05-14', oscar_awards: [award(1995, 'DIRECTING', 'Robert Zemeckis', 'Forrest Gump', true)] },
  { name: 'Tom Hanks', id: 31, acted_movies: [13, 862], directed_movies: [], birthday: '1956-07-09', oscar_awards: [award(1995, 'ACTOR IN A LEADING ROLE', 'Tom Hanks', 'Forrest Gump', true)] },
  { name: 'Greta Gerwig', id: 45400, acted_movies: [], directed_movies: [391713, 331482], birthday: '1983-08-04', oscar_awards: [] },
];

const MOVIES = [
  {
    title: 'Forrest Gump', id: 13, release_date: '1994-07-06', original_title: 'Forrest Gump', original_language: 'en', budget: 55000000, revenue: 677387716, rating: 8.5,
    genres: [{ id: 35, name: 'Comedy' }, { id: 18, name: 'Drama' }],
    oscar_awards: [award(1995, 'BEST PICTURE', 'Wendy Finerman, Steve Tisch and Steve Starkey, Producers', 'Forrest Gump', true)],
    cast: [{ name: 'Tom Hanks', id: 31, character: 'Forrest Gump', gender: 2, order: 0 }, { name: 'Robin Wright', id: 32, character: 'Jenny Curran', gender: 1, order: 1 }],
    crew: [{ name: 'Robert Zemeckis', id: 24, job: 'Director' }, { name: 'Eric Roth', id: 1032, job: 'Screenplay' }],
  },
  {
    title: 'Back to the Future', id: 105, release_date: '1985-07-03', original_title: 'Back to the Future', original_language: 'en', budget: 19000000, revenue: 381109762, rating: 8.3,
    genres: [{ id: 12, name: 'Adventure' }, { id: 878, name: 'Science Fiction' }], oscar_awards: [],
    cast: [{ name: 'Michael J. Fox', id: 521, character: 'Marty McFly', gender: 2, order: 0 }], crew: [{ name: 'Robert Zemeckis', id: 24, job: 'Director' }],
  },
];

const YEARS = { 1994: { movie_list: [13, 680, 278], oscar_awards: MOVIES[0].oscar_awards } };

const ENTITIES = {
  'Lake Baikal': {
    summary_text: 'Lake Baikal is a rift lake in southern Siberia, Russia, and the deepest lake in the world.',
    summary_structured: { name: 'Lake Baikal', location: 'Siberia, Russia', max_depth: '1,642 m', surface_area: '31,722 km2' },
    raw_mediawiki: "{{Infobox body of water\n| name = Lake Baikal\n| max_depth = 1,642 m\n}}\n'''Lake Baikal''' is a rift lake in Siberia.",
  },
  'Baikal seal': { summary_text: 'The Baikal seal is a species of earless seal endemic to Lake Baikal.', summary_structured: { name: 'Baikal seal' }, raw_mediawiki: "'''Baikal seal'''" },
  'Florida City, Florida': { summary_text: 'Florida City is a city in Miami-Dade County, Florida.', summary_structured: { name: 'Florida City', population: '13,085' }, raw_mediawiki: "'''Florida City'''" },
};

const COMPANIES = { 'Apple Inc.': 'AAPL', 'Microsoft Corporation': 'MSFT', 'Busy Corp': 'BUSY' };
const TICKERS = {
  AAPL: { marketCap: 3010000000000, eps: 6.42, pe: 28.4, close: [182.63, 181.16, 181.42], dividend: 0.24, sector: 'Technology' },
  MSFT: { marketCap: 3040000000000, eps: 11.06, pe: 36.9, close: [407.54, 410.34, 413.64], dividend: 0.75, sector: 'Technology' },
};
const DAYS = ['2024-02-26', '2024-02-27', '2024-02-28'];

const ARTISTS = {
  Adele: { birth_place: 'GB', birth_date: '1988-05-05', lifespan: ['1988-05-05', null], works: ['Hello', 'Rolling in the Deep', 'Someone Like You'], grammy_years: [2009, 2012, 2017], grammys: 16 },
  'Maroon 5': { birth_place: 'US', birth_date: '1994', lifespan: ['1994', null], works: ['Sugar', 'Memories'], members: ['Adam Levine', 'Jesse Carmichael', 'James Valentine'], grammy_years: [2005, 2006], grammys: 3 },
};
const SONGS = {
  Hello: { author: 'Adele', release_country: 'GB', release_date: '2015-10-23', grammys: 3 },
  'Rolling in the Deep': { author: 'Adele', release_country: 'GB', release_date: '2010-11-29', grammys: 3 },
  Sugar: { author: 'Maroon 5', release_country: 'US', release_date: '2015-01-13', grammys: 0 },
};
const HOT100 = { '2024-02-24': [['Lovin On Me', 'Texas Hold \u2019Em'], ['Jack Harlow', 'Beyonce']] };
const GRAMMY = { artist: { 2009: ['Adele'], 2005: ['Maroon 5'] }, song: { 2012: ['Rolling in the Deep'] }, album: { 2012: ['21'] } };

/** pandas' DataFrame.to_json() (column → {row index → value}), which the server's sports endpoints return. */
const frame = (rows) => {
  const out = {};
  rows.forEach((row, i) => Object.entries(row).forEach(([k, v]) => ((out[k] ??= {})[String(i)] = v)));
  return rows.length ? out : null;
};
const SOCCER = [{ date: '2024-03-09', time: '15:00', venue: 'Home', result: 'W', GF: 2, GA: 0, opponent: 'Chelsea', Captain: 'Seamus Coleman', team: 'Everton' }];
const NBA = [{ game_id: '0022300832', game_date: '2024-03-04 00:00:00', team_name_home: 'Los Angeles Lakers', team_name_away: 'Oklahoma City Thunder', wl_home: 'W', wl_away: 'L', pts_home: 116, pts_away: 104 }];
const PLAYS = [
  { game_id: '0022300832', eventmsgtype: 12, eventmsgactiontype: 0, period: 1, wctimestring: '7:41 PM', pctimestring: '12:00', homedescription: null, neutraldescription: 'Start of 1st Period', visitordescription: null, player1_id: 0, player1_name: null },
  { game_id: '0022300832', eventmsgtype: 1, eventmsgactiontype: 1, period: 1, wctimestring: '7:42 PM', pctimestring: '11:38', homedescription: "James 26' 3PT Jump Shot", neutraldescription: null, visitordescription: null, player1_id: 2544, player1_name: 'LeBron James' },
];

// ---- lookups ------------------------------------------------------------------------------------------------------

const words = (s) => String(s).toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
/** Names sharing a word with the query, best overlap first, at most 10 (the server ranks by BM25 or fuzzy match). */
const matching = (names, query) => {
  const q = new Set(words(query));
  return names
    .map((n) => [n, words(n).filter((w) => q.has(w)).length])
    .filter(([, score]) => score > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([n]) => n);
};
const byName = (records, field, query) => matching(records.map((r) => r[field]), query).map((n) => records.find((r) => r[field] === n));
const exact = (table, key) => Object.entries(table).find(([k]) => k.toLowerCase() === String(key).trim().toLowerCase())?.[1];
const onDate = (rows, date, team) =>
  frame(rows.filter((r) => (r.date ?? r.game_date).startsWith(date) && (!team || [r.team, r.team_name_home, r.team_name_away].includes(team))));
const prices = (ticker, minutes) => {
  const t = TICKERS[ticker];
  if (!t) return null;
  const stamp = (day) => `${day} ${minutes ? '09:30' : '00:00'}:00 EST`;
  return Object.fromEntries(DAYS.map((d, i) => [stamp(d), { Open: t.close[i] - 1, High: t.close[i] + 1, Low: t.close[i] - 2, Close: t.close[i], Volume: 50_000_000 + i }]));
};

// ---- the endpoints: argument shape, and the answer -----------------------------------------------------------------

const S = 'string';
const I = 'integer';
const q = (type, answer) => ({ fields: { query: type }, answer: (b) => answer(b.query) });

const ENDPOINTS = {
  'open/search_entity_by_name': q(S, (x) => matching(Object.keys(ENTITIES), x)),
  'open/get_entity': q(S, (x) => ENTITIES[x] ?? null),
  'movie/get_person_info': q(S, (x) => byName(PEOPLE, 'name', x)),
  'movie/get_movie_info': q(S, (x) => byName(MOVIES, 'title', x)),
  'movie/get_year_info': q(S, (x) => YEARS[x] ?? null),
  'movie/get_movie_info_by_id': q(I, (x) => MOVIES.find((m) => m.id === x) ?? null),
  'movie/get_person_info_by_id': q(I, (x) => PEOPLE.find((p) => p.id === x) ?? null),
  'finance/get_company_name': q(S, (x) => matching(Object.keys(COMPANIES), x)),
  'finance/get_ticker_by_name': q(S, (x) => exact(COMPANIES, x) ?? null),
  'finance/get_price_history': q(S, (x) => prices(x, false)),
  'finance/get_detailed_price_history': q(S, (x) => prices(x, true)),
  'finance/get_dividends_history': q(S, (x) => (TICKERS[x] ? { [`${DAYS[0]} 00:00:00 EST`]: TICKERS[x].dividend } : null)),
  'finance/get_market_capitalization': q(S, (x) => TICKERS[x]?.marketCap ?? null),
  'finance/get_eps': q(S, (x) => TICKERS[x]?.eps ?? null),
  'finance/get_pe_ratio': q(S, (x) => TICKERS[x]?.pe ?? null),
  'finance/get_info': q(S, (x) => (TICKERS[x] ? { symbol: x, sector: TICKERS[x].sector, marketCap: TICKERS[x].marketCap } : null)),
  'music/search_artist_entity_by_name': q(S, (x) => matching(Object.keys(ARTISTS), x)),
  'music/search_song_entity_by_name': q(S, (x) => matching(Object.keys(SONGS), x)),
  'music/get_billboard_rank_date': {
    fields: { rank: I, date: `${S}?` },
    answer: ({ rank, date }) => {
      const charts = date ? [HOT100[date]].filter(Boolean) : Object.values(HOT100);
      return [charts.flatMap((c) => c[0].slice(rank - 1, rank)), charts.flatMap((c) => c[1].slice(rank - 1, rank))];
    },
  },
  'music/get_billboard_attributes': {
    fields: { date: S, attribute: S, song_name: S },
    answer: ({ date, attribute, song_name }) => {
      const rank = (HOT100[date]?.[0] ?? []).indexOf(song_name) + 1;
      if (!rank) return null;
      return String({ rank, rank_last_week: rank + 1, weeks_in_chart: 12, top_position: 1 }[attribute] ?? null);
    },
  },
  'music/grammy_get_best_artist_by_year': q(I, (x) => GRAMMY.artist[x] ?? []),
  'music/grammy_get_award_count_by_artist': q(S, (x) => exact(ARTISTS, x)?.grammys ?? 0),
  'music/grammy_get_award_count_by_song': q(S, (x) => exact(SONGS, x)?.grammys ?? 0),
  'music/grammy_get_best_song_by_year': q(I, (x) => GRAMMY.song[x] ?? []),
  'music/grammy_get_award_date_by_artist': q(S, (x) => exact(ARTISTS, x)?.grammy_years ?? []),
  'music/grammy_get_best_album_by_year': q(I, (x) => GRAMMY.album[x] ?? []),
  'music/grammy_get_all_awarded_artists': { fields: {}, answer: () => Object.values(GRAMMY.artist).flat() },
  'music/get_artist_birth_place': q(S, (x) => exact(ARTISTS, x)?.birth_place ?? null),
  'music/get_artist_birth_date': q(S, (x) => exact(ARTISTS, x)?.birth_date ?? null),
  'music/get_members': q(S, (x) => exact(ARTISTS, x)?.members ?? []),
  'music/get_lifespan': q(S, (x) => exact(ARTISTS, x)?.lifespan ?? [null, null]),
  'music/get_song_author': q(S, (x) => exact(SONGS, x)?.author ?? null),
  'music/get_song_release_country': q(S, (x) => exact(SONGS, x)?.release_country ?? null),
  'music/get_song_release_date': q(S, (x) => exact(SONGS, x)?.release_date ?? null),
  'music/get_artist_all_works': q(S, (x) => exact(ARTISTS, x)?.works ?? []),
  'sports/soccer/get_games_on_date': { fields: { date: S, team_name: `${S}?` }, answer: ({ date, team_name }) => onDate(SOCCER, date, team_name) },
  'sports/nba/get_games_on_date': { fields: { date: S, team_name: `${S}?` }, answer: ({ date, team_name }) => onDate(NBA, date, team_name) },
  'sports/nba/get_play_by_play_data_by_game_ids': { fields: { game_ids: 'string[]' }, answer: ({ game_ids }) => frame(PLAYS.filter((p) => game_ids.includes(p.game_id))) },
};

export const ENDPOINT_PATHS = Object.keys(ENDPOINTS);

/** pydantic's verdict on one field, in its words; lax mode, as FastAPI runs it: "42" passes as an integer. */
const fieldProblem = (type, value) => {
  if (value === undefined || value === null) return type.endsWith('?') ? null : { type: 'missing', msg: 'Field required' };
  const base = type.replace(/\?$/, '');
  if (base === S && typeof value !== 'string') return { type: 'string_type', msg: 'Input should be a valid string' };
  if (base === I && !(Number.isInteger(value) || (typeof value === 'string' && /^-?\d+$/.test(value.trim())))) {
    return { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' };
  }
  if (base === 'string[]' && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) return { type: 'list_type', msg: 'Input should be a valid list' };
  return null;
};

/** The answer to one request: [status, body]. */
const answer = (path, raw) => {
  const endpoint = ENDPOINTS[path];
  if (!endpoint) return [404, { detail: 'Not Found' }];
  let body;
  try {
    body = raw ? JSON.parse(raw) : {};
  } catch {
    return [422, { detail: [{ type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {} }] }];
  }
  const detail = Object.entries(endpoint.fields).flatMap(([name, type]) => {
    const problem = fieldProblem(type, body?.[name]);
    return problem ? [{ ...problem, loc: ['body', name], input: body?.[name] ?? body }] : [];
  });
  if (detail.length) return [422, { detail }];
  const args = Object.fromEntries(Object.entries(endpoint.fields).map(([name, type]) => [name, type.startsWith(I) && body[name] != null ? Number(body[name]) : body[name]]));
  return [200, { result: endpoint.answer(args) }];
};

// ---- the server -----------------------------------------------------------------------------------------------------

export const startCragKgStandIn = async ({ port = 0, host = '127.0.0.1' } = {}) => {
  const faults = [];
  const seen = [];
  const windows = new Map(); // match → the time its Retry-After ends

  const send = (res, status, body, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  /** Headers, then 64 KB pieces as fast as the client reads them, until it hangs up. */
  const endless = (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"result": "');
    const piece = 'x'.repeat(64 * 1024);
    const more = () => {
      while (!res.destroyed && res.write(piece));
      if (!res.destroyed) res.once('drain', more);
    };
    res.on('close', () => res.removeAllListeners('drain'));
    more();
  };

  const control = (req, res, url, raw) => {
    if (url.pathname === '/__faults' && req.method === 'POST') {
      const f = JSON.parse(raw || '{}');
      if (typeof f.match !== 'string' || !f.match) return send(res, 400, { detail: 'a fault needs a non-empty "match" string' });
      faults.push({ count: 1, ...f });
      return send(res, 200, { ok: true });
    }
    if (url.pathname === '/__requests') {
      const match = url.searchParams.get('match') ?? '';
      return send(res, 200, seen.filter((r) => r.body.includes(match)));
    }
    return send(res, 404, { detail: 'Not Found' });
  };

  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname.startsWith('/__')) return control(req, res, url, raw);
    const path = url.pathname.replace(/^\/+/, '');
    const now = Date.now();
    const fault = faults.find((f) => raw.includes(f.match) && (f.endless || f.count > 0));
    const key = fault?.match ?? [...windows.keys()].find((m) => raw.includes(m));
    const insideRetryAfter = key !== undefined && now < (windows.get(key) ?? 0);
    seen.push({ path, body: raw, at: now, insideRetryAfter });
    if (req.method !== 'POST') return send(res, 405, { detail: 'Method Not Allowed' });
    if (fault?.endless) return endless(res);
    if (fault) {
      fault.count -= 1;
      const headers = fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
      if (fault.retryAfter !== undefined) windows.set(fault.match, now + Number(fault.retryAfter) * 1000);
      return send(res, fault.status ?? 500, { detail: `injected ${fault.status ?? 500}` }, headers);
    }
    const [status, body] = answer(path, raw);
    return send(res, status, body);
  });
  server.keepAliveTimeout = 1_000;
  await new Promise((resolve) => server.listen(port, host, resolve));
  const url = `http://${host}:${server.address().port}`;
  return {
    url,
    requests: () => seen.slice(),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const standIn = await startCragKgStandIn({ port: Number(arg('--port') ?? 0) });
  console.log(`CRAG mock-KG stand-in at ${standIn.url} (${ENDPOINT_PATHS.length} endpoints); set CRAG_API_URL=${standIn.url}`);
}
