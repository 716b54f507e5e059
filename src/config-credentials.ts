import { sendsInClear } from './net/in-clear';

/**
 * Which configured endpoints carry a credential, and which of those would carry it in clear. Parsed with the rest of
 * the configuration (src/config.ts refuses to start with one) and asked again by the deploy check (cli/deploy.mjs),
 * which cannot see secrets set with `wrangler secret put` and so asks about every endpoint that could carry one.
 */

const WIKIMEDIA_HOST = /(^|\.)(wikipedia|wikidata|wikimedia|mediawiki)\.org$/;

/** Whether a host is one of Wikimedia's own services (not a mirror): WIKIMEDIA_ACCESS_TOKEN goes to its API hosts. */
export const isWikimediaHost = (host: string) => WIKIMEDIA_HOST.test(host);

interface CredentialConfig {
  LLM_BASE_URL?: string;
  LLM_API_KEY?: string;
  WIKIPEDIA_API_URL: string;
  WIKIDATA_API_URL: string;
  WIKIMEDIA_ACCESS_TOKEN?: string;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_HEADERS?: string;
}

export interface CredentialInClear {
  /** The variable to fix (the endpoint's). */
  variable: string;
  message: string;
}

const https = (url: string) => url.replace(/^[a-z][a-z0-9+.-]*:/i, 'https:');

/**
 * Every endpoint that would carry a credential over plain HTTP (loopback excepted). Wikimedia's own API hosts are
 * where WIKIMEDIA_ACCESS_TOKEN goes, and they serve https only, so plain http to them is refused with or without a
 * token; the model server (LLM_API_KEY, for chats and embeddings) and the trace collector (OTEL_EXPORTER_OTLP_HEADERS)
 * only when their credential is set — or, with `secretsUnseen` (the deploy check), when it could be.
 * @example credentialsInClear({ WIKIPEDIA_API_URL: 'http://en.wikipedia.org/w/api.php', WIKIDATA_API_URL: 'https://www.wikidata.org/w/api.php' })[0].variable // 'WIKIPEDIA_API_URL'
 */
export const credentialsInClear = (c: CredentialConfig, { secretsUnseen = false } = {}): CredentialInClear[] => {
  const found: CredentialInClear[] = [];
  for (const variable of ['WIKIPEDIA_API_URL', 'WIKIDATA_API_URL'] as const) {
    const url = c[variable];
    if (!isWikimediaHost(new URL(url).host) || !sendsInClear(url)) continue;
    found.push({
      variable,
      message: `${url} is plain HTTP to a Wikimedia host, where WIKIMEDIA_ACCESS_TOKEN is sent as a bearer token (and Wikimedia answers only over https): write ${https(url)}`,
    });
  }
  const guarded = [
    { variable: 'LLM_BASE_URL', url: c.LLM_BASE_URL, secret: 'LLM_API_KEY', set: !!c.LLM_API_KEY },
    { variable: 'OTEL_EXPORTER_OTLP_ENDPOINT', url: c.OTEL_EXPORTER_OTLP_ENDPOINT, secret: 'OTEL_EXPORTER_OTLP_HEADERS', set: !!c.OTEL_EXPORTER_OTLP_HEADERS },
  ];
  for (const { variable, url, secret, set } of guarded) {
    if (!url || !(set || secretsUnseen) || !sendsInClear(url)) continue;
    const why = set ? `${secret} is set and would travel in clear` : `${secret}, if it is set as a secret (not visible here), would travel in clear`;
    found.push({ variable, message: `${url} is plain HTTP: ${why}. Use ${https(url)} (a loopback address such as http://127.0.0.1 is allowed for local servers)` });
  }
  return found;
};
