/**
 * Dark and light: the system's choice unless the person picked one (kept in localStorage).
 * The page's colours are CSS variables keyed on `<html data-theme>`; the terminal listens.
 */
import { h } from './dom.ts';

export type ThemeChoice = 'auto' | 'dark' | 'light';

const STORAGE_KEY = 'jumpseat-theme';
const ORDER: readonly ThemeChoice[] = ['auto', 'dark', 'light'];
const systemDark = window.matchMedia('(prefers-color-scheme: dark)');
const listeners = new Set<(dark: boolean) => void>();

function stored(): ThemeChoice {
  const value = localStorage.getItem(STORAGE_KEY);
  return value === 'dark' || value === 'light' ? value : 'auto';
}

export function isDark(): boolean {
  const choice = stored();
  return choice === 'auto' ? systemDark.matches : choice === 'dark';
}

function apply(): void {
  const dark = isDark();
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  for (const listener of listeners) listener(dark);
}

export function onThemeChange(listener: (dark: boolean) => void): void {
  listeners.add(listener);
}

export function initTheme(): void {
  apply();
  systemDark.addEventListener('change', apply);
}

/** A button that cycles auto → dark → light. */
export function themeButton(): HTMLButtonElement {
  const label = (choice: ThemeChoice) => `Theme: ${choice}`;
  const button = h('button', { type: 'button', class: 'quiet', title: 'Switch colour theme' });
  button.textContent = label(stored());
  button.addEventListener('click', () => {
    const next = ORDER[(ORDER.indexOf(stored()) + 1) % ORDER.length] ?? 'auto';
    localStorage.setItem(STORAGE_KEY, next);
    button.textContent = label(next);
    apply();
  });
  return button;
}
