import { api, apiKey, setApiKey } from './api.js';
import { initAsk, showAsk, showRun } from './ask.js';
import { showRuns } from './runs.js';
import { initWorkbench } from './workbench.js';

const APP = 'HumanIQ answers';
const PAGES = ['ask-page', 'runs-page', 'workbench-page'];

/** Which page a path shows, its heading, and the document title. */
const resolveRoute = (path) => {
  const run = path.match(/^\/runs\/([^/]+)\/?$/);
  if (run) return { page: 'ask-page', nav: 'runs', heading: 'ask-heading', title: 'Run', run: decodeURIComponent(run[1]) };
  if (/^\/runs\/?$/.test(path)) return { page: 'runs-page', nav: 'runs', heading: 'runs-heading', title: 'Recent runs' };
  if (path.startsWith('/workbench')) return { page: 'workbench-page', nav: 'workbench', heading: 'wb-heading', title: 'Workbench' };
  return { page: 'ask-page', nav: 'ask', heading: 'ask-heading', title: 'Ask' };
};

export const setTitle = (title) => (document.title = title ? `${title} · ${APP}` : APP);

/**
 * Client-side routes: `/` ask, `/runs` recent runs, `/runs/{id}` one run, `/workbench`. The server answers
 * index.html for each. After a navigation, focus goes to the page's heading and the title names the page, so
 * screen-reader and keyboard users know where they are.
 */
const route = ({ focus }) => {
  const r = resolveRoute(location.pathname);
  for (const id of PAGES) document.getElementById(id).hidden = id !== r.page;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.route === r.nav) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  setTitle(r.title);
  if (r.run) showRun(r.run);
  else if (r.page === 'runs-page') showRuns();
  else if (r.page === 'ask-page') showAsk();
  if (focus) document.getElementById(r.heading).focus();
};

/** Moves to a path inside the app (used by links and by the ask form once a run has an id). */
export const navigate = (path) => {
  history.pushState(null, '', path);
  route({ focus: true });
};

const loadHealth = async () => {
  const status = document.getElementById('model-status');
  try {
    const health = await api('GET', '/healthz');
    // A configured model the server does not serve is named as such, not taken for a missing one.
    status.textContent = health.llm?.ready ? `Model: ${health.llm.model}` : health.llm?.model ? `Model ${health.llm.model} is not served` : 'No model configured';
    status.title = health.llm?.ready ? '' : health.llm?.message ?? '';
    return health;
  } catch (err) {
    status.textContent = 'Server unreachable';
    status.title = err.message;
    return { variants: ['mintaka'], modes: [], llm: { ready: false }, unreachable: true };
  }
};

const start = async () => {
  const key = document.getElementById('api-key');
  key.value = apiKey();
  key.addEventListener('change', () => setApiKey(key.value.trim()));
  // Links to app pages anywhere in the document (nav, run list, "ask a new question") stay in the app.
  document.addEventListener('click', (e) => {
    const a = e.target.closest('a[data-internal], nav a');
    if (!a || e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(a.getAttribute('href'));
  });
  window.addEventListener('popstate', () => route({ focus: true }));
  const health = await loadHealth();
  initAsk(health);
  initWorkbench(health);
  route({ focus: false });
  document.body.dataset.ready = 'true';
};

start();
