import type { GateCheck, GateCoverage, GateResult, GateThresholds, GateVerdict } from '../api/release';

/**
 * The release gate: thresholds checked before anything is written. Each threshold becomes one
 * check per yes/no criterion of the linked campaign (or one check overall); a threshold set
 * without a campaign cannot be measured and fails. The gate also reports its coverage: how many of
 * the selected instances the campaign judged at all, so "κ ≥ 0.6: pass" never hides that only a
 * third of the release was looked at. A gate with no thresholds says "not checked", never "passed".
 */

export interface GateMeasures {
  /** Null when no campaign is linked. */
  criteria: { id: string; fleissKappa: number | null; ac1: number | null; yesRate: number | null }[] | null;
  /** The fewest annotators who judged any selected instance: 0 when the campaign left one unjudged. */
  minJudgments: number | null;
  /** Open conflicts plus tied votes without an adjudication. */
  unresolved: number | null;
  /** The selected instances the campaign judged; null when no campaign is linked. */
  coverage: GateCoverage | null;
}

const round = (v: number | null) => (v === null ? null : Number(v.toFixed(4)));

const NO_CAMPAIGN = 'no campaign linked: nothing to measure';
const NO_JUDGMENTS = 'the campaign has no judgments of the selected instances';

export function evaluateGate(thresholds: GateThresholds, measures: GateMeasures, forced: string | null = null): GateResult {
  const checks: GateCheck[] = [];
  const unmeasured = measures.coverage === null ? NO_CAMPAIGN : NO_JUDGMENTS;
  const perCriterion = (name: string, threshold: number | null, pick: (c: NonNullable<GateMeasures['criteria']>[number]) => number | null) => {
    if (threshold === null) return;
    if (!measures.criteria || !measures.criteria.length) {
      checks.push({ name, threshold, value: null, passed: false, note: unmeasured });
      return;
    }
    for (const c of measures.criteria) {
      const value = round(pick(c));
      checks.push({ name: `${name}: ${c.id}`, threshold, value, passed: value !== null && value >= threshold, note: value === null ? NO_JUDGMENTS : null });
    }
  };
  perCriterion("Fleiss' kappa", thresholds.minKappa, (c) => c.fleissKappa);
  perCriterion("Gwet's AC1", thresholds.minAc1, (c) => c.ac1);
  perCriterion('YES rate', thresholds.minYesRate, (c) => c.yesRate);
  if (thresholds.minJudgments !== null) {
    const value = measures.minJudgments;
    const coverage = measures.coverage;
    const note = value === null ? unmeasured : coverage && coverage.judged < coverage.selected ? `${coverage.selected - coverage.judged} selected instances have no judgment` : null;
    checks.push({ name: 'judgments per instance', threshold: thresholds.minJudgments, value, passed: value !== null && value >= thresholds.minJudgments, note });
  }
  if (thresholds.noUnresolved) {
    const value = measures.unresolved;
    checks.push({ name: 'unresolved disagreements', threshold: 0, value, passed: value === 0, note: value === null ? unmeasured : null });
  }
  const passed = checks.every((c) => c.passed);
  return { passed, verdict: verdictOf(passed, checks), checks, coverage: measures.coverage, forced: passed ? null : forced };
}

function verdictOf(passed: boolean, checks: readonly GateCheck[]): GateVerdict {
  return checks.length === 0 ? 'not checked' : passed ? 'passed' : 'refused';
}

/**
 * A gate as stored, completed: releases made before the gate reported its verdict and coverage
 * (and their release.json) hold only `passed`, `checks` and `forced`.
 */
export function readGate(stored: unknown): GateResult {
  const gate = stored as Partial<GateResult> & Pick<GateResult, 'passed' | 'checks'>;
  const checks = (gate.checks ?? []).map((c) => ({ ...c, note: c.note ?? null }));
  return { passed: gate.passed, verdict: gate.verdict ?? verdictOf(gate.passed, checks), checks, coverage: gate.coverage ?? null, forced: gate.forced ?? null };
}

/** The gate's verdict in words, with the reason when it was published anyway. */
export function gateWords(gate: Pick<GateResult, 'verdict' | 'forced'>): string {
  if (gate.forced) return `forced: ${gate.forced}`;
  return gate.verdict;
}

/** Coverage in words: "judged 12 of 38 selected instances (32%)". */
export function coverageWords(coverage: GateCoverage): string {
  const share = coverage.selected ? ` (${Math.round((100 * coverage.judged) / coverage.selected)}%)` : '';
  return `campaign ${coverage.campaignId} judged ${coverage.judged} of ${coverage.selected} selected instances${share}`;
}

/** The gate as a plain-text table (for the CLI and the card). */
export function gateTable(gate: GateResult): string[][] {
  return gate.checks.map((c) => [
    c.name,
    c.name === 'unresolved disagreements' ? '= 0' : `≥ ${c.threshold}`,
    c.value === null ? '—' : String(c.value),
    c.passed ? 'pass' : c.note && c.value === null ? `FAIL (${c.note})` : 'FAIL',
  ]);
}
