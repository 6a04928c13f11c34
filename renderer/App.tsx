import { useCallback, useEffect, useRef, useState } from 'react';
import { navigate, useLocationProperty } from 'wouter/use-browser-location';
import { CommandPalette, ShortcutSheet } from './components/CommandPalette';
import { useTheme } from './hooks';
import { useOp } from './query';
import { useCommands, useShellKeys } from './shell/commands';
import { Routes } from './shell/Routes';
import { Sidebar } from './shell/Sidebar';
import { StatusBar } from './shell/StatusBar';
import { TopBar } from './shell/TopBar';
import { JudgingView } from './views/judging/JudgingView';
import { SignInGate } from './views/team/SignIn';

/** In team mode (browser), nobody sees the app before signing in. */
export function App() {
  return (
    <SignInGate>
      <Shell />
    </SignInGate>
  );
}

const isPackSession = () => location.pathname === '/judge' && new URLSearchParams(location.search).has('pack');

/**
 * Someone handed one pack file judges it in a shell of its own: the judging screen and nothing
 * else (no views of a database they do not have, no database path). The shell itself follows
 * only whether the URL is a pack's, so moving between items renders the view, not the shell.
 */
function Shell() {
  const info = useOp('app:info', {});
  const packSession = useLocationProperty(isPackSession);

  // Opened with a pack (`npm start -- FILE`): straight to judging it.
  const openedPack = useRef(false);
  useEffect(() => {
    if (!info.data?.pack || openedPack.current) return;
    openedPack.current = true;
    navigate(`/judge?pack=${encodeURIComponent(info.data.pack)}`, { replace: true });
  }, [info.data?.pack]);

  // The desktop menu navigates through the preload.
  useEffect(() => {
    const onNavigate = (event: Event) => navigate((event as CustomEvent<string>).detail);
    window.addEventListener('awb:navigate', onNavigate);
    return () => window.removeEventListener('awb:navigate', onNavigate);
  }, []);

  if (info.isPending) return null;
  return info.data?.pack || packSession ? <PackShell opened={Boolean(info.data?.pack)} /> : <Workbench />;
}

/** `opened`: the app was started on the pack; a pack opened from the workbench has a way back to it. */
function PackShell({ opened }: { opened: boolean }) {
  const [theme, setTheme] = useTheme();
  return (
    <div className="shell pack-shell" data-testid="pack-shell">
      <TopBar theme={theme} setTheme={setTheme}>
        <span className="muted">Judging from a pack file: each decision is saved beside it.</span>
        {opened ? null : (
          <button type="button" className="button small ghost" onClick={() => navigate('/campaigns')}>
            ← back to the workbench
          </button>
        )}
      </TopBar>
      <main className="main">
        <JudgingView />
      </main>
    </div>
  );
}

function Workbench() {
  const [theme, setTheme] = useTheme();
  const [palette, setPalette] = useState(false);
  const [sheet, setSheet] = useState(false);
  const openSheet = useCallback(() => setSheet(true), []);
  const togglePalette = useCallback(() => setPalette((open) => !open), []);
  const commands = useCommands(setTheme, openSheet);
  useShellKeys({ enabled: !palette && !sheet, togglePalette, openSheet });
  return (
    <div className="shell">
      <TopBar theme={theme} setTheme={setTheme} onSheet={openSheet}>
        <button type="button" className="palette-button" onClick={() => setPalette(true)} aria-label="Open the command palette">
          Search commands… <span className="spacer" /> <kbd>Ctrl K</kbd>
        </button>
      </TopBar>
      <Sidebar />
      <main className="main">
        <Routes />
      </main>
      <StatusBar />
      {palette ? <CommandPalette commands={commands} onClose={() => setPalette(false)} onOpenInstance={(id) => navigate(`/instances/${id}`)} /> : null}
      {sheet ? <ShortcutSheet onClose={() => setSheet(false)} /> : null}
    </div>
  );
}
