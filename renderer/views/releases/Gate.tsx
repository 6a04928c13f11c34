import type { GateResult } from '../../../shared/api';
import { coverageWords } from '../../../shared/release/gate';

/**
 * The gate as people read it: its verdict ("passed", "refused", "not checked" when there was
 * nothing to check, or "forced" with the reason), its coverage (judged of selected), and each check
 * with threshold, measured value and why a value is missing.
 */

export function GateVerdict({ gate }: { gate: Pick<GateResult, 'verdict' | 'forced'> }) {
  const word = gate.forced ? 'forced' : gate.verdict;
  return (
    <span className={`gate-verdict ${word.replace(' ', '-')}`} title={gate.forced ?? undefined} data-testid="gate-verdict">
      {word}
    </span>
  );
}

export function GateReport({ gate, testId }: { gate: GateResult; testId: string }) {
  const coverage = gate.coverage;
  const partial = coverage !== null && coverage.judged < coverage.selected;
  return (
    <div data-testid={testId}>
      <div className="gate-head">
        <strong>Gate</strong>
        <GateVerdict gate={gate} />
        <span className={partial ? 'flag-warn small' : 'muted small'} data-testid={`${testId}-coverage`}>
          {coverage ? `Coverage: ${coverageWords(coverage)}` : 'No campaign linked: agreement is not measured.'}
        </span>
      </div>
      {gate.forced ? <div className="small flag-bad">Published anyway: {gate.forced}</div> : null}
      {gate.checks.length ? (
        <table className="plain compact numbers">
          <thead>
            <tr>
              <th>Check</th>
              <th className="num">Threshold</th>
              <th className="num">Measured</th>
              <th>Result</th>
            </tr>
          </thead>
          <tbody>
            {gate.checks.map((c) => (
              <tr key={c.name}>
                <td>{c.name}</td>
                <td className="num">{c.name === 'unresolved disagreements' ? '= 0' : `≥ ${c.threshold}`}</td>
                <td className="num">{c.value === null ? '—' : c.value}</td>
                <td className={c.passed ? 'flag-ok' : 'flag-bad'}>
                  {c.passed ? 'pass' : 'fail'}
                  {c.note ? <span className="muted small"> · {c.note}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted small">No thresholds set: the gate checked nothing, so it neither passes nor refuses.</p>
      )}
    </div>
  );
}
