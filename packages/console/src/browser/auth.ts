import { h } from './dom.js';

/**
 * The admin token (`http.auth.token`), kept in sessionStorage: it lives as long as the tab and is
 * sent only as `Authorization: Bearer` on writes and record reads.
 */
const KEY = 'gregor.adminToken';
const listeners = new Set<() => void>();

export function getToken(): string | null {
  return sessionStorage.getItem(KEY);
}

export function setToken(token: string | null): void {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
  for (const l of listeners) l();
}

export function onTokenChange(listener: () => void): void {
  listeners.add(listener);
}

let open: Promise<boolean> | null = null;

/** Asks for the token in a modal dialog; resolves true when one was entered. One dialog at a time. */
export function askForToken(reason?: string): Promise<boolean> {
  if (open) return open;
  open = new Promise<boolean>((resolve) => {
    const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', 'data-testid': 'token-input', size: 36 });
    const dialog = h(
      'dialog',
      { 'data-testid': 'token-dialog' },
      h('h3', null, 'Admin token'),
      h('p', { class: 'muted small' }, reason ?? 'The broker\'s http.auth.token. It is kept for this tab only (sessionStorage) and sent as a Bearer token on writes and record reads.'),
      h('div', { class: 'row' }, input),
      h(
        'div',
        { class: 'row' },
        h('button', { class: 'primary', 'data-testid': 'token-save', onclick: () => finish(input.value.trim() || null) }, 'Use token'),
        h('button', { onclick: () => finish(undefined) }, 'Cancel'),
      ),
    );
    input.addEventListener('keydown', (e) => {
      if ((e as KeyboardEvent).key === 'Enter') finish(input.value.trim() || null);
    });
    dialog.addEventListener('cancel', () => finish(undefined));
    function finish(token: string | null | undefined): void {
      if (token !== undefined) setToken(token);
      dialog.close();
      dialog.remove();
      open = null;
      resolve(Boolean(token));
    }
    document.body.appendChild(dialog);
    dialog.showModal();
    input.focus();
  });
  return open;
}
