import { JUDGING_SECTIONS, type JudgingSection } from '../instance/InstanceBody';

/** The instance side's sections, one key each: what is judged first, the evidence further down. */
export function SectionNav({ onJump }: { onJump: (section: JudgingSection) => void }) {
  return (
    <nav className="section-nav" aria-label="Sections" data-testid="section-nav">
      <span className="muted small">Jump to</span>
      {JUDGING_SECTIONS.map((s) => (
        <button key={s.id} type="button" className="button small ghost" onClick={() => onJump(s.id)}>
          <kbd>{s.key}</kbd> {s.label}
        </button>
      ))}
    </nav>
  );
}
