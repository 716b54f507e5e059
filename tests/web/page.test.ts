import { describe, expect, it } from 'vitest';
import { processPage } from '../../src/web';

const article = (body: string, head = '<title>Test page</title>') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('processPage: main text without boilerplate', () => {
  const html = article(`
    <header><a href="/">Site logo text</a></header>
    <nav><ul><li><a href="/a">Menu Alpha</a></li><li><a href="/b">Menu Beta</a></li></ul></nav>
    <div id="cookie-banner">We use cookies to improve your experience.</div>
    <div class="consent_popup">Accept all tracking</div>
    <script>var secret = "script text";</script><style>.x{color:red}</style><noscript>Enable JS</noscript>
    <main>
      <h1>Rivers of Europe</h1>
      <p>The Danube is the second-longest river in Europe. It flows through ten countries.</p>
      <p hidden>Hidden paragraph text.</p>
      <p aria-hidden="true">Aria hidden text.</p>
      <p style="color: red; display : none">Display none text.</p>
      <button>Click me</button>
      <form><label>Email</label><input name="e"></form>
      <div class="related-links"><a href="/1">Related one</a> <a href="/2">Related two</a> <a href="/3">Related three</a></div>
      <div><a href="/x">Link one here</a> | <a href="/y">Link two here</a> | <a href="/z">Link three here</a> | <a href="/w">Link four</a></div>
    </main>
    <aside>Sidebar advert text</aside>
    <footer>Copyright footer text</footer>`);
  const page = processPage(html);

  it('keeps the article prose and the title', () => {
    expect(page.title).toBe('Test page');
    expect(page.text).toContain('The Danube is the second-longest river in Europe.');
    expect(page.chunks.join(' ')).toContain('It flows through ten countries.');
    // aria-hidden hides from screen readers only: a sighted reader sees it, so the one rendering keeps it.
    expect(page.text).toContain('Aria hidden text.');
  });

  it.each([
    'Site logo text', 'Menu Alpha', 'We use cookies', 'Accept all tracking', 'script text', 'color:red', 'Enable JS',
    'Hidden paragraph', 'Display none', 'Click me', 'Email', 'Related one', 'Link one here',
    'Sidebar advert', 'Copyright footer',
  ])('drops boilerplate: %s', (needle) => {
    expect(page.text).not.toContain(needle);
  });
});

describe('processPage: tables', () => {
  it('renders a data table as markdown with its th header and expands rowspan/colspan', () => {
    const page = processPage(article(`
      <table><caption>Longest rivers</caption>
        <thead><tr><th>River</th><th>Length (km)</th><th>Countries</th></tr></thead>
        <tbody>
          <tr><td>Volga</td><td>3,530</td><td rowspan="2">Russia</td></tr>
          <tr><td>Ural</td><td>2,428</td></tr>
          <tr><td colspan="2">Danube | Donau</td><td>10</td></tr>
        </tbody>
      </table>`));
    expect(page.tables).toHaveLength(1);
    const md = page.tables[0].markdown.split('\n');
    expect(md[0]).toBe('Table: Longest rivers');
    expect(md[1]).toBe('| River | Length (km) | Countries |');
    expect(md[2]).toBe('| --- | --- | --- |');
    expect(md).toContain('| Ural | 2,428 | Russia |');
    // The pipe inside a cell must not break the row.
    expect(md).toContain('| Danube / Donau | Danube / Donau | 10 |');
    // Table text stays out of the prose chunks.
    expect(page.text).not.toContain('Volga');
  });

  it('detects a header row without th when the first row reads as labels', () => {
    const page = processPage(article('<table><tr><td>Year</td><td>Winner</td></tr><tr><td>2011</td><td>Rory McIlroy</td></tr><tr><td>2012</td><td>Webb Simpson</td></tr></table>'));
    expect(page.tables[0].header).toEqual(['Year', 'Winner']);
  });

  it('drops layout tables, one-column tables and near-empty tables but keeps their text as prose', () => {
    const page = processPage(article(`
      <table><tr><td><p>Layout cell prose sentence.</p>
        <table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>
      </td><td>Side cell</td></tr></table>
      <table><tr><td>Only one column</td></tr><tr><td>Second row</td></tr></table>
      <table><tr><td></td><td> </td></tr></table>
      <table><tr><td>x</td><td>y</td></tr></table>`));
    expect(page.tables.map((t) => t.header)).toEqual([['A', 'B']]);
    expect(page.text).toContain('Layout cell prose sentence.');
    expect(page.text).toContain('Only one column');
  });

  it('caps a table at its length limit and says so', () => {
    const rows = Array.from({ length: 500 }, (_, i) => `<tr><td>Row ${i}</td><td>${i * 7}</td></tr>`).join('');
    const page = processPage(article(`<table><tr><th>Name</th><th>Value</th></tr>${rows}</table>`), { table: { maxTableChars: 600 } });
    expect(page.tables[0].markdown.length).toBeLessThanOrEqual(700);
    expect(page.tables[0].truncated).toBe(true);
    expect(page.tables[0].markdown).toMatch(/more rows/);
  });
});

describe('processPage: hostile input never throws', () => {
  it('handles empty and whitespace pages', () => {
    expect(processPage('')).toEqual({ title: '', text: '', chunks: [], tables: [], notes: [] });
    expect(processPage('   \n ').chunks).toEqual([]);
    expect(processPage(null).chunks).toEqual([]);
  });

  it('reads a truncated page up to where it stops, open table included', () => {
    const page = processPage('<html><body><p>First sentence here. Second one<table><tr><th>K</th><th>V</th></tr><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2');
    expect(page.text).toContain('First sentence here.');
    expect(page.tables[0].markdown).toContain('| b | 2 |');
  });

  it('decodes bytes using the meta charset, and survives invalid UTF-8', () => {
    const latin1 = Uint8Array.from([...'<meta charset="iso-8859-1"><p>Caf'].map((c) => c.charCodeAt(0)).concat([0xe9, 0x2e]));
    expect(processPage(latin1).text).toBe('Café.');
    const broken = new Uint8Array([0x3c, 0x70, 0x3e, 0x41, 0xff, 0xfe, 0x42, 0x2e]);
    expect(processPage(broken).text).toBe('A\uFFFD\uFFFDB.');
  });

  it('caps enormous pages instead of reading them whole', () => {
    const huge = `<p>${'word '.repeat(400_000)}</p>`;
    const page = processPage(huge, { maxHtmlChars: 100_000 });
    expect(page.text.length).toBeLessThanOrEqual(100_000);
    expect(page.chunks.length).toBeGreaterThan(0);
  });
});
