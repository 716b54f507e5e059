/**
 * One polite live region for the whole app. Only status changes (run started, finished, cancelled) and the answer
 * are announced; the streamed steps are not, so a screen reader is not flooded while a run works.
 */
export const announce = (text) => {
  const el = document.getElementById('announcer');
  if (!el) return;
  // Clearing first makes the same text (e.g. two runs in a row that both finish) announced again.
  el.textContent = '';
  setTimeout(() => (el.textContent = text), 50);
};
