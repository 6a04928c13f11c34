import type { Command } from './components/CommandPalette';

/**
 * Palette commands for the maintainer's releases and the researcher's evaluation, kept beside the
 * screens they open rather than in the shell (App.tsx spreads them into its list).
 */
export function workflowCommands(navigate: (to: string) => void): Command[] {
  return [
    { id: 'releases', title: 'Go to releases', run: () => navigate('/releases') },
    { id: 'new-release', title: 'New release…', run: () => navigate('/releases/new') },
    { id: 'evaluation', title: 'Go to evaluation runs', run: () => navigate('/evaluation') },
    { id: 'compare-runs', title: 'Compare two evaluation runs…', run: () => navigate('/evaluation/compare') },
  ];
}
