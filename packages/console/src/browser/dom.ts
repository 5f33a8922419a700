/**
 * Building DOM without innerHTML: every text goes in as a text node, so topic names, keys and record
 * values can never become markup.
 */
export type Child = Node | string | number | null | undefined | false | Child[];
type Handler = (event: Event) => void;
export type Attrs = Record<string, string | number | boolean | Handler | null | undefined>;

function append(parent: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) for (const c of child) append(parent, c);
  else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
}

function setAttrs(el: Element, attrs: Attrs | undefined): void {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (name === 'value' && 'value' in el) (el as HTMLInputElement).value = String(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
}

/** An HTML element: h('td', { class: 'num' }, 42). Attributes named on* are event listeners. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs ?? undefined);
  append(el, children);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element. */
export function s(tag: string, attrs?: Attrs | null, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag) as SVGElement;
  setAttrs(el, attrs ?? undefined);
  append(el, children);
  return el;
}

/** Replaces the children of `el`. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

export interface Column<T> {
  title: string;
  cell: (row: T) => Child;
  num?: boolean;
}

/** A data table; `rowClass` marks rows (urp, offline, selected). */
export function table<T>(testId: string, columns: Column<T>[], rows: readonly T[], opts: { rowClass?: (row: T) => string | null; empty?: string } = {}): HTMLTableElement {
  return h(
    'table',
    { class: 'data', 'data-testid': testId },
    h('thead', null, h('tr', null, columns.map((c) => h('th', c.num ? { class: 'num' } : null, c.title)))),
    h(
      'tbody',
      null,
      rows.length === 0
        ? h('tr', null, h('td', { class: 'empty', colspan: columns.length }, opts.empty ?? 'None'))
        : rows.map((r) => h('tr', { class: opts.rowClass?.(r) ?? null }, columns.map((c) => h('td', c.num ? { class: 'num' } : null, c.cell(r))))),
    ),
  );
}

export function badge(text: string, kind: 'ok' | 'warn' | 'bad' | 'info' | '' = ''): HTMLSpanElement {
  return h('span', { class: `badge ${kind}`.trim() }, text);
}

export function alertBox(kind: 'error' | 'ok' | 'info', ...children: Child[]): HTMLDivElement {
  return h('div', { class: `alert ${kind}`, role: kind === 'error' ? 'alert' : 'status', 'data-testid': `alert-${kind}` }, ...children);
}

export function card(label: string, value: Child, kind: '' | 'ok' | 'warn' | 'bad' = '', testId?: string): HTMLDivElement {
  return h('div', { class: `card ${kind}`.trim(), 'data-testid': testId ?? null }, h('div', { class: 'label' }, label), h('div', { class: 'value' }, value));
}

/** A labelled form control. */
export function field(label: string, control: HTMLElement): HTMLLabelElement {
  return h('label', null, label, control);
}
