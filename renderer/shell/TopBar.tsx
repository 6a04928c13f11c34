import type { ReactNode } from 'react';
import type { Theme } from '../hooks';

const NEXT_THEME: Record<Theme, Theme> = { system: 'dark', dark: 'light', light: 'system' };
const THEME_ICON: Record<Theme, string> = { system: '◐', dark: '☾', light: '☀' };

/** The bar across the top: the name, what sits in the middle (the palette button), the key sheet and the theme. */
export function TopBar({ theme, setTheme, onSheet, children }: { theme: Theme; setTheme: (theme: Theme) => void; onSheet?: () => void; children?: ReactNode }) {
  return (
    <header className="topbar">
      <div className="brand">
        <span className="brand-mark">A</span> Ambiguity Workbench
      </div>
      <div className="spacer" />
      {children}
      <div className="spacer" />
      {onSheet ? (
        <button type="button" className="button ghost" onClick={onSheet} title="Keyboard shortcuts (?)">
          <kbd>?</kbd>
        </button>
      ) : null}
      <button
        type="button"
        className="button ghost"
        data-testid="theme-toggle"
        onClick={() => setTheme(NEXT_THEME[theme])}
        title={`Theme: ${theme} (click to change)`}
        aria-label={`Theme: ${theme}`}
      >
        {THEME_ICON[theme]} {theme}
      </button>
    </header>
  );
}
