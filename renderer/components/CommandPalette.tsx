import { useMemo, useState } from 'react';
import { Overlay } from './Overlay';

export interface Command {
  id: string;
  title: string;
  hint?: string;
  run: () => void;
}

/** Ctrl+K: every action by name. Typing filters; ↑/↓ choose; Enter runs. `#123` opens an instance. */
export function CommandPalette({ commands, onClose, onOpenInstance }: { commands: Command[]; onClose: () => void; onOpenInstance: (id: number) => void }) {
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const list = useMemo(() => {
    const id = /^#?(\d+)$/.exec(text.trim());
    const words = text.toLowerCase().split(/\s+/).filter(Boolean);
    const matching = commands.filter((c) => words.every((w) => c.title.toLowerCase().includes(w)));
    return id ? [{ id: 'open-instance', title: `Open instance #${id[1]}`, run: () => onOpenInstance(Number(id[1])) }, ...matching] : matching;
  }, [text, commands, onOpenInstance]);
  const runAt = (index: number) => {
    const command = list[index];
    if (!command) return;
    onClose();
    command.run();
  };
  return (
    <Overlay onClose={onClose} label="Command palette">
      <div className="palette">
        <input
          autoFocus
          aria-label="Command"
          placeholder="Type a command, or #123 to open an instance"
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            setActive(0);
          }}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') setActive((a) => Math.min(list.length - 1, a + 1));
            else if (e.key === 'ArrowUp') setActive((a) => Math.max(0, a - 1));
            else if (e.key === 'Enter') runAt(active);
            else return;
            e.preventDefault();
          }}
        />
        <ul role="listbox">
          {list.map((c, i) => (
            <li key={c.id} role="option" aria-selected={i === active} className={i === active ? 'active' : ''} onMouseEnter={() => setActive(i)} onClick={() => runAt(i)}>
              {c.title}
              {c.hint ? <span className="hint">{c.hint}</span> : null}
            </li>
          ))}
          {list.length === 0 ? <li className="muted">No command matches.</li> : null}
        </ul>
      </div>
    </Overlay>
  );
}

const SHORTCUTS: [string, string][] = [
  ['Ctrl K', 'command palette'],
  ['?', 'this sheet'],
  ['/', 'search the table'],
  ['j  ↓', 'next row / next instance'],
  ['k  ↑', 'previous row / previous instance'],
  ['Enter', 'open the selected row'],
  ['Esc', 'back to the list, clear the search'],
  ['PgUp PgDn Home End', 'move by a screen, to the ends'],
  ['b', 'from an instance: open its base question'],
  ['a  t', 'on an instance or base question: choose its answerability, its topic'],
  ['g i  g b  g s', 'go to instances, base questions, passage search'],
  ['g c  g p  g l', 'go to campaigns, protocols, the pipeline'],
  ['Ctrl I  Ctrl E', 'import, export'],
];

export function ShortcutSheet({ onClose, title = 'Keyboard shortcuts', shortcuts = SHORTCUTS }: { onClose: () => void; title?: string; shortcuts?: readonly [string, string][] }) {
  return (
    <Overlay onClose={onClose} label={title}>
      <header>
        <h2>{title}</h2>
        <kbd>Esc</kbd>
      </header>
      <div className="body shortcuts">
        {shortcuts.map(([keys, what]) => (
          <div key={keys} style={{ display: 'contents' }}>
            <span>
              {keys.split(/\s{2}/).map((k) => (
                <kbd key={k} style={{ marginRight: 4 }}>{k}</kbd>
              ))}
            </span>
            <span>{what}</span>
          </div>
        ))}
      </div>
    </Overlay>
  );
}
