import { useEffect, type ReactNode } from 'react';

/** A modal layer: closes on Escape or a click outside. `wide` for a form beside its preview. */
export function Overlay({ onClose, children, label, wide = false }: { onClose: () => void; children: ReactNode; label: string; wide?: boolean }) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        onClose();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onClose]);
  return (
    <div className="overlay" style={wide ? { paddingTop: '4vh' } : undefined} onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div className="dialog" role="dialog" aria-modal="true" aria-label={label} style={wide ? { width: 'min(1360px, 96vw)', padding: 0 } : undefined}>
        {children}
      </div>
    </div>
  );
}
