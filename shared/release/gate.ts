import type { GateCheck, GateResult, GateThresholds } from '../api/release';

/**
 * The release gate: thresholds checked before anything is written. Each threshold becomes one
 * check per yes/no criterion of the linked campaign (or one check overall); a threshold set
 * without a campaign cannot be measured and fails.
 */

export interface GateMeasures {
  /** Null when no campaign is linked. */
  criteria: { id: string; fleissKappa: number | null; ac1: number | null; yesRate: number | null }[] | null;
  /** The fewest annotators who judged any campaign item in the release. */
  minJudgments: number | null;
  /** Open conflicts plus tied votes without an adjudication. */
  unresolved: number | null;
}

const round = (v: number | null) => (v === null ? null : Number(v.toFixed(4)));

export function evaluateGate(thresholds: GateThresholds, measures: GateMeasures, forced: string | null = null): GateResult {
  const checks: GateCheck[] = [];
  const perCriterion = (name: string, threshold: number | null, pick: (c: NonNullable<GateMeasures['criteria']>[number]) => number | null) => {
    if (threshold === null) return;
    if (!measures.criteria || !measures.criteria.length) {
      checks.push({ name, threshold, value: null, passed: false });
      return;
    }
    for (const c of measures.criteria) {
      const value = round(pick(c));
      checks.push({ name: `${name}: ${c.id}`, threshold, value, passed: value !== null && value >= threshold });
    }
  };
  perCriterion("Fleiss' kappa", thresholds.minKappa, (c) => c.fleissKappa);
  perCriterion("Gwet's AC1", thresholds.minAc1, (c) => c.ac1);
  perCriterion('YES rate', thresholds.minYesRate, (c) => c.yesRate);
  if (thresholds.minJudgments !== null) {
    const value = measures.minJudgments;
    checks.push({ name: 'judgments per instance', threshold: thresholds.minJudgments, value, passed: value !== null && value >= thresholds.minJudgments });
  }
  if (thresholds.noUnresolved) {
    const value = measures.unresolved;
    checks.push({ name: 'unresolved disagreements', threshold: 0, value, passed: value === 0 });
  }
  const passed = checks.every((c) => c.passed);
  return { passed, checks, forced: passed ? null : forced };
}

/** The gate as a plain-text table (for the CLI and the card). */
export function gateTable(gate: GateResult): string[][] {
  return gate.checks.map((c) => [c.name, c.name === 'unresolved disagreements' ? '= 0' : `≥ ${c.threshold}`, c.value === null ? '—' : String(c.value), c.passed ? 'pass' : 'FAIL']);
}
