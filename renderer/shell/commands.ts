import { useEffect, useMemo, useRef } from 'react';
import { navigate, useLocationProperty } from 'wouter/use-browser-location';
import type { OperationName } from '../../shared/api';
import { useAccess } from '../access';
import { workflowCommands } from '../commands';
import type { Command } from '../components/CommandPalette';
import { useKeys, type Theme } from '../hooks';

/** A palette command, with the operation it leads to when that is closed to some roles. */
type Entry = Command & { needs?: OperationName };

/** The palette's commands: every view and action, less those the signed-in role may not use. */
export function useCommands(setTheme: (theme: Theme) => void, openSheet: () => void): Command[] {
  const { may } = useAccess();
  return useMemo(() => {
    const all: Entry[] = [
      { id: 'instances', title: 'Go to instances', hint: 'g i', run: () => navigate('/instances') },
      { id: 'base-questions', title: 'Go to base questions', hint: 'g b', run: () => navigate('/base-questions') },
      { id: 'search', title: 'Search passages (BM25, dense, hybrid)', hint: 'g s', run: () => navigate('/search') },
      { id: 'pipeline', title: 'Pipeline: run, funnel, failures, prompts, prices', hint: 'g l', run: () => navigate('/pipeline') },
      { id: 'ask-first', title: 'Ask-first runs (URASys): accuracy per answerability label', run: () => navigate('/ask-first') },
      { id: 'rounds', title: 'Construction rounds (CondAmbigQA): acceptance, cost and time per round', run: () => navigate('/rounds') },
      { id: 'campaigns', title: 'Go to annotation campaigns', hint: 'g c', run: () => navigate('/campaigns') },
      { id: 'new-campaign', title: 'New annotation campaign…', run: () => navigate('/campaigns/new'), needs: 'campaign:create' },
      { id: 'protocols', title: 'Annotation protocols', hint: 'g p', run: () => navigate('/protocols') },
      { id: 'import', title: 'Import a file…', hint: 'Ctrl I', run: () => navigate('/import'), needs: 'dataset:import' },
      { id: 'export', title: 'Export instances…', hint: 'Ctrl E', run: () => navigate('/export'), needs: 'dataset:export' },
      { id: 'about', title: 'About, versions and data attribution', run: () => navigate('/about') },
      { id: 'theme-dark', title: 'Theme: dark', run: () => setTheme('dark') },
      { id: 'theme-light', title: 'Theme: light', run: () => setTheme('light') },
      { id: 'theme-system', title: 'Theme: follow the system', run: () => setTheme('system') },
      { id: 'shortcuts', title: 'Keyboard shortcuts', hint: '?', run: openSheet },
      { id: 'semantic', title: 'Show semantic instances', run: () => navigate('/instances?type=semantic') },
      { id: 'syntactic', title: 'Show syntactic instances', run: () => navigate('/instances?type=syntactic') },
      { id: 'constraint', title: 'Show constraint instances', run: () => navigate('/instances?type=constraint') },
      { id: 'removed', title: 'Show removed instances', run: () => navigate('/instances?status=removed') },
      ...workflowCommands(navigate).map((c): Entry => (c.id === 'new-release' ? { ...c, needs: 'release:create' } : c)),
    ];
    return all.filter((c) => !c.needs || may(c.needs).allowed).map(({ needs: _needs, ...command }) => command);
  }, [setTheme, openSheet, may]);
}

const G_PREFIX: Record<string, string> = { i: '/instances', b: '/base-questions', s: '/search', c: '/campaigns', p: '/protocols', l: '/pipeline' };

/** The judging screen and the failure view of an item own every key. */
const viewOwnsKeys = () => location.pathname.startsWith('/judge') || /^\/evaluation\/\d+\/items\/\d+/.test(location.pathname);

/**
 * The app's own keys: Ctrl K the palette, Ctrl I import, Ctrl E export, ? the key sheet, and
 * "g then a letter" to a view. (They follow whether the view owns the keys, not every move in the URL.)
 */
export function useShellKeys({ enabled, togglePalette, openSheet }: { enabled: boolean; togglePalette: () => void; openSheet: () => void }): void {
  const ownKeys = useLocationProperty(viewOwnsKeys);
  const pendingG = useRef(0);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey)) return;
      const key = event.key.toLowerCase();
      if (key === 'k') togglePalette();
      else if (key === 'i') navigate('/import');
      else if (key === 'e') navigate('/export');
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [togglePalette]);

  useKeys((event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === '?') return openSheet();
    if (event.key === 'g') {
      pendingG.current = Date.now();
      return;
    }
    if (Date.now() - pendingG.current >= 1000) return;
    pendingG.current = 0;
    const target = G_PREFIX[event.key];
    if (target) navigate(target);
  }, enabled && !ownKeys);
}
