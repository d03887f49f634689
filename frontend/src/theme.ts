// Light, dark or follow the system. The choice is saved in settings.json;
// localStorage keeps a copy so the first paint already has the right theme.
export type Theme = 'light' | 'dark' | 'system';

const KEY = 'footnote.theme';

export function loadTheme(): Theme {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

/** Applies the theme to the document (CSS keys off data-theme) and remembers it. */
export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    // Storage can be unavailable; the theme still applies for this session.
  }
}
