import { describe, expect, it } from 'vitest';
import { processPage, renderedText, renderedTextAsync } from '../../src/web';

// What a reader of a page sees (src/web/visibility.ts): the text answers are verified against, and the text the
// extraction hands the model. Each hidden case puts the word "Quendrith" where a browser would not draw it.
const SECRET = 'Quendrith';
const visible = '<p>The river flows north.</p>';

const hiddenPages: Array<[string, string]> = [
  ['display:none', `<div style="display:none">${SECRET}</div>`],
  ['display: none !important, upper case', `<div style="DISPLAY: None !important">${SECRET}</div>`],
  ['visibility:hidden', `<span style="visibility:hidden">${SECRET}</span>`],
  ['the hidden attribute', `<p hidden>${SECRET}</p>`],
  ['<template>', `<template><p>${SECRET}</p></template>`],
  ['<noscript>', `<noscript>${SECRET}</noscript>`],
  ['font-size:0', `<span style="font-size:0">${SECRET}</span>`],
  ['font-size:0.1em', `<span style="font-size: 0.1em">${SECRET}</span>`],
  ['font: 0/0 a', `<span style="font: 0/0 a">${SECRET}</span>`],
  ['opacity:0', `<span style="opacity:0">${SECRET}</span>`],
  ['color:transparent', `<span style="color: transparent">${SECRET}</span>`],
  ['rgba colour with no alpha', `<span style="color: rgba(0, 0, 0, 0)">${SECRET}</span>`],
  ['the screen-reader-only clip', `<span style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)">${SECRET}</span>`],
  ['off-screen', `<div style="position:absolute; left:-9999px">${SECRET}</div>`],
  ['text-indent off-screen', `<h1 style="text-indent:-9999px">${SECRET}</h1>`],
  ['transform: scale(0)', `<span style="transform: scale(0)">${SECRET}</span>`],
  ['a framework class (sr-only)', `<span class="sr-only">${SECRET}</span>`],
  ['Tailwind hidden', `<div class="hidden">${SECRET}</div>`],
  ['the page\'s own style rule on a class', `<style>.x1 { display: none }</style><p class="x1">${SECRET}</p>`],
  ['a style rule on an id and a compound class', `<style>#k{font-size:0} p.a.b{visibility:hidden}</style><p id="k">${SECRET}</p><p class="b a">${SECRET}</p>`],
  ['a closed dialog', `<dialog><p>${SECRET}</p></dialog>`],
  // Issue 40: the ways of hiding that still backed an answer.
  ['white on white', `<p style="color:#fff;background:#fff">${SECRET}</p>`],
  ['white text on the page\'s own white', `<p style="color: white">${SECRET}</p>`],
  ['rgb() in the background\'s colour', `<div style="background-color: rgb(250, 250, 250)"><span style="color: rgb(255,255,255)">${SECRET}</span></div>`],
  ['hsl() and #ffffff', `<section style="background:#ffffff"><b style="color:hsl(0, 0%, 100%)">${SECRET}</b></section>`],
  ['a near-equal grey on a grey background', `<div style="background:#777"><p style="color:#787878">${SECRET}</p></div>`],
  ['bgcolor and <font color>', `<table bgcolor="black"><tr><td><font color="#000">${SECRET}</font></td></tr></table>`],
  ['a colour set by the page\'s style rule', `<style>body{background:#fff} .note{color:#fefefe}</style><p class="note">${SECRET}</p>`],
  ['opacity:0.01', `<span style="opacity:0.01">${SECRET}</span>`],
  ['opacity multiplied down', `<div style="opacity:0.3"><p style="opacity:0.2">${SECRET}</p></div>`],
  ['transform: translateX(-10000px)', `<div style="transform:translateX(-10000px)">${SECRET}</div>`],
  ['transform: translate(-9999px, 0)', `<div style="transform: translate(-9999px, 0)">${SECRET}</div>`],
  ['a matrix that moves it off', `<div style="transform: matrix(1, 0, 0, 1, -5000, 0)">${SECRET}</div>`],
  ['position:relative far left', `<div style="position:relative; left:-9999px">${SECRET}</div>`],
  ['a zero-size <svg>', `<svg width="0" height="0"><text>${SECRET}</text></svg>`],
  ['a zero-size <object>', `<object width="0" height="0">${SECRET}</object>`],
  ['a descendant selector', `<style>article .k p { display: none }</style><article><div class="k"><p>${SECRET}</p></div></article>`],
  ['a child selector', `<style>main > p { font-size: 0 }</style><main><p>${SECRET}</p></main>`],
  ['an attribute selector', `<style>[data-off] { visibility: hidden } p[lang="x-q"] { opacity: 0 }</style><span data-off>${SECRET}</span><p lang="x-q">${SECRET}</p>`],
  ['an attribute selector with a prefix test', `<style>div[id^=hid] span { display:none }</style><div id="hidden-1"><span>${SECRET}</span></div>`],
  ['nested inside a hidden ancestor', `<div hidden><section><p><b>${SECRET}</b></p></section></div>`],
  // The ancestry counts a class once per time an element names it: an ancestor that closed (`class="a a"`) must not
  // make the next one uncounted.
  ['a descendant selector after an ancestor naming its class twice', `<style>.a p{display:none}</style><div class="a a"><p>One.</p></div><div class="a"><p>${SECRET}</p></div>`],
];

describe('renderedText: the text a reader sees', () => {
  it.each(hiddenPages)('leaves out text hidden by %s', (_, hidden) => {
    const text = renderedText(`<html><body>${visible}${hidden}<p>After.</p></body></html>`);
    expect(text).toContain('The river flows north.');
    expect(text).toContain('After.');
    expect(text).not.toContain(SECRET);
  });

  it('reads words split across inline tags as the word a browser draws, and block edges as breaks', () => {
    expect(renderedText('<p>The source is Quen<b>dri</b>th.</p>')).toBe('The source is Quendrith.');
    expect(renderedText('<p>Q<span>u</span><i>e<em>n</em></i>drith</p>')).toBe('Quendrith');
    expect(renderedText('<p>Quen</p><p>drith</p>')).toBe('Quen\ndrith');
    expect(renderedText('<div>Quen<div>dri</div>th</div>')).toBe('Quen\ndri\nth');
    expect(renderedText('Quen<br>drith')).toBe('Quen\ndrith');
    // A data table is the markdown the model is shown: a row per line, its cells apart.
    expect(renderedText('<table><tr><td>Home &amp; Student</td><td>No</td></tr><tr><td>Pro</td><td>Yes</td></tr></table>')).toBe(
      '| Home & Student | No |\n| --- | --- |\n| Pro | Yes |',
    );
  });

  it('counts text a reader sees although it is collapsed or hidden from screen readers only', () => {
    const text = renderedText(
      `<p aria-hidden="true">Aria ${SECRET}</p><div hidden="until-found">Found ${SECRET}</div>` +
        `<details><summary>More</summary>Details ${SECRET}</details><p class="hidden md:block">Wide ${SECRET}</p>` +
        `<p style="color:transparent;background-clip:text">Gradient ${SECRET}</p>`,
    );
    for (const w of ['Aria', 'Found', 'Details', 'Wide', 'Gradient']) expect(text).toContain(`${w} ${SECRET}`);
  });

  it('keeps ordinary coloured text, and text a child paints readable again', () => {
    const text = renderedText(
      `<div style="background:navy;color:white"><p>Navy ${SECRET}</p></div><p style="color:#333;background:#ffd">Grey ${SECRET}</p>` +
        `<div style="color:#fff"><span style="color:#000">Again ${SECRET}</span></div>` +
        `<div style="background:url(sky.png);color:#fff"><p>Image ${SECRET}</p></div><p>See the <a href="/x">Link ${SECRET}</a> page, which tells the story of the river in full.</p>` +
        `<style>.dark{background:#111}.dark p{color:#eee}</style><div class="dark"><p>Dark ${SECRET}</p></div>` +
        `<div style="opacity:0.5"><p>Half ${SECRET}</p></div><svg width="20" height="20"></svg><p>Tail ${SECRET}</p>`,
    );
    for (const w of ['Navy', 'Grey', 'Again', 'Image', 'Link', 'Dark', 'Half', 'Tail']) expect(text).toContain(`${w} ${SECRET}`);
  });

  it('matches attribute selectors against the element\'s own attributes, never names every object inherits', () => {
    const text = renderedText(
      `<style>[constructor] p{display:none} [toString="x"] b{display:none} [hasOwnProperty] i{opacity:0}</style>` +
        `<div><p>Plain ${SECRET}</p><b>Bold ${SECRET}</b><i>Slanted ${SECRET}</i></div><div constructor><p>Marked</p></div>`,
    );
    for (const w of ['Plain', 'Bold', 'Slanted']) expect(text).toContain(`${w} ${SECRET}`);
    expect(text).not.toContain('Marked');
  });

  it('bounds the work of matching the page\'s selectors on a hostile page', () => {
    // Rules whose ancestors never match, tried on every element of a deep tree: the matching budget ends it.
    const rules = Array.from({ length: 4000 }, (_, i) => `div div div div div div div .n${i % 30}{display:none}`).join('');
    const deep = `${'<div>'.repeat(200)}${'<p class="n1">x</p>'.repeat(2000)}${'</div>'.repeat(200)}`;
    const text = renderedText(`<style>${rules}</style>${visible}${deep}`);
    expect(text).toContain('The river flows north.');
  });

  it('honours a rule that shows an element again, and ignores hiding rules that apply to some screens only', () => {
    const css = '<style>.m{display:none} @media (min-width: 600px) { .m { display: block } } @media print { .p { display: none } }</style>';
    const text = renderedText(`${css}<p class="m">Menu ${SECRET}</p><p class="p">Print ${SECRET}</p>`);
    expect(text).toContain(`Menu ${SECRET}`);
    expect(text).toContain(`Print ${SECRET}`);
  });

  it('starts with the page title, decodes entities, and is the same when read in slices', async () => {
    const html = `<title>Rivers &amp; lakes</title>${'<p>Caf&eacute; on the Danube. <b>Bold</b> words.</p><div style="display:none">no</div>'.repeat(20_000)}`;
    const text = renderedText(html);
    expect(text.split('\n')[0]).toBe('Rivers & lakes');
    expect(text).toContain('Café on the Danube. Bold words.');
    expect(text).not.toMatch(/\bno\b/);
    expect(await renderedTextAsync(html)).toBe(text);
  });

  it('reads hostile style blocks in linear time and bounded memory', () => {
    const page = `<style>${'{'.repeat(400_000)}</style><style>${'.a{display:none}'.repeat(100_000)}</style><p class="a">${SECRET}</p><p>${visible}</p>`;
    const text = renderedText(page);
    expect(text).toContain('The river flows north.');
    expect(text).not.toContain(SECRET);
  });
});

describe('the extraction the model reads leaves hidden text out too', () => {
  it.each(hiddenPages)('drops text hidden by %s', (_, hidden) => {
    const page = processPage(`<html><body>${visible}${hidden}<p>After the hidden part, the river turns east.</p></body></html>`);
    expect(page.text).toContain('The river flows north.');
    expect(page.text).not.toContain(SECRET);
  });

  it('keeps a word split across inline tags whole', () => {
    expect(processPage('<p>The source is Quen<b>dri</b>th, a spring in the hills.</p>').text).toBe('The source is Quendrith, a spring in the hills.');
  });
});
