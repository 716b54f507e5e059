/** Calls to the Worker's API. Errors come back as ApiError with the API's own code and message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const KEY_STORAGE = 'humaniq.apiKey';
export const apiKey = () => localStorage.getItem(KEY_STORAGE) ?? '';
export const setApiKey = (key) => (key ? localStorage.setItem(KEY_STORAGE, key) : localStorage.removeItem(KEY_STORAGE));

export const authHeaders = () => (apiKey() ? { authorization: `Bearer ${apiKey()}` } : {});

/** Turns a non-2xx response into an ApiError, reading `{error: {code, message}}` when the body has it. */
export const errorFrom = async (res) => {
  let code = `http_${res.status}`;
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = await res.json();
    if (body?.error) ({ code = code, message = message } = body.error);
  } catch {
    // Not JSON (a proxy's page, say): the status line is all we have.
  }
  return new ApiError(res.status, code, message);
};

export const api = async (method, path, body) => {
  const res = await fetch(path, {
    method,
    headers: { ...authHeaders(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw await errorFrom(res);
  if (res.status === 204) return null;
  return (res.headers.get('content-type') ?? '').includes('json') ? res.json() : res.text();
};

/** What a person can do about an error code, shown under the API's own message. */
export const ERROR_HINTS = {
  llm_unavailable: 'Configure a model (see the message above), restart the server, and ask again.',
  unauthorized: 'Set an API key under "Connection settings".',
  rate_limited: 'Too many requests: wait a minute and try again.',
  payload_too_large: 'Shorten the question or the supplied context.',
  limit: 'The run hit a per-run limit; the answer shown (if any) is partial. Ask a narrower question or raise MAX_STEPS / MAX_LLM_CALLS.',
  network: 'The connection to the server failed. Check that the server is running, then try again.',
  cancelled: 'Nothing failed: the run was stopped with "Cancel run" (or DELETE /v1/runs/{id}). Ask again to start a new run.',
};
