/**
 * `h('p', {class: 'x'}, 'text', child)`: builds elements. Strings become text nodes, never markup,
 * because answers, observations and page text come from models and web pages (prompt injection, XSS).
 */
export const h = (tag, attrs = {}, ...children) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return el;
};

/** Only http(s) links are made clickable: a model-written `javascript:` URL stays plain text. */
export const safeHref = (url) => {
  if (typeof url !== 'string' || !url.trim()) return null;
  try {
    const u = new URL(String(url), location.href);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
};

export const clear = (el) => {
  while (el.firstChild) el.firstChild.remove();
};

/** "1 step", "2 steps". */
export const plural = (n, word, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/** Control characters (but tab and newline) removed: pasted text can carry them, and they show as boxes. */
export const stripControl = (s) => String(s ?? '').replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B\u2028\u2029\uFEFF]/g, '');
