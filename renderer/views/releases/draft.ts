import type { Input, ReleaseDetail, ReleasePreview } from '../../../shared/api';
import type { AmbiguityType, InstanceStatus } from '../../../shared/domain';
import { parseSemver } from '../../../shared/release/semver';
import { parseSplitSpec } from '../../../shared/release/splits';

/**
 * The release form as one value: what the create dialog edits, what "new version of X" fills from
 * the last release (selection, campaign, splits, thresholds, licence and texts carried over, the
 * minor version raised), the draft the preview and publish send, and the one reason Publish is
 * blocked, if any, for the dialog's footer.
 */

export interface ReleaseForm {
  name: string;
  version: string;
  datasets: string[];
  types: AmbiguityType[];
  statuses: InstanceStatus[];
  campaignId: number | null;
  onlyValid: boolean;
  splitMode: 'fractions' | 'source';
  splitText: string;
  seed: string;
  minKappa: string;
  minAc1: string;
  minYesRate: string;
  minJudgments: string;
  noUnresolved: boolean;
  licence: string;
  description: string;
  authors: string;
  /** The folder typed or chosen (desktop only); null follows the default, releases/NAME-VERSION. */
  out: string | null;
  /** A reason to publish although the gate or the licence check refuses. */
  force: string;
}

export const NEW_RELEASE: ReleaseForm = {
  name: '',
  version: '1.0.0',
  datasets: [],
  types: [],
  statuses: ['ready'],
  campaignId: null,
  onlyValid: false,
  splitMode: 'fractions',
  splitText: 'train=0.8,test=0.2',
  seed: '1',
  minKappa: '',
  minAc1: '',
  minYesRate: '',
  minJudgments: '',
  noUnresolved: false,
  licence: '',
  description: '',
  authors: '',
  out: null,
  force: '',
};

/** The next minor version: 1.0.0 → 1.1.0 (a pre-release tag is dropped). */
export function nextVersion(version: string): string {
  const v = parseSemver(version);
  return v ? `${v.major}.${v.minor + 1}.0` : '1.0.0';
}

const text = (n: number | null) => (n === null ? '' : String(n));

/** "New version of X": the last release's choices, with the next minor version. */
export function formFromRelease(release: ReleaseDetail, versionsTaken: readonly string[] = []): ReleaseForm {
  let version = nextVersion(release.version);
  while (versionsTaken.includes(version)) version = nextVersion(version);
  const split = release.split;
  const metadata = release.metadata as { licence?: { requested?: string | null }; description?: string; authors?: string };
  return {
    ...NEW_RELEASE,
    name: release.name,
    version,
    datasets: release.selection.datasets,
    types: release.selection.types,
    statuses: release.selection.statuses,
    campaignId: release.selection.campaignId,
    onlyValid: release.selection.onlyValid,
    splitMode: split.mode,
    splitText: split.mode === 'fractions' ? Object.entries(split.fractions).map(([s, f]) => `${s}=${f}`).join(',') : NEW_RELEASE.splitText,
    seed: split.mode === 'fractions' ? String(split.seed) : NEW_RELEASE.seed,
    minKappa: text(release.thresholds.minKappa),
    minAc1: text(release.thresholds.minAc1),
    minYesRate: text(release.thresholds.minYesRate),
    minJudgments: text(release.thresholds.minJudgments),
    noUnresolved: release.thresholds.noUnresolved,
    licence: metadata.licence?.requested ?? '',
    description: metadata.description ?? '',
    authors: metadata.authors ?? '',
  };
}

function numberOrNull(value: string): number | null {
  if (!value.trim()) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** The draft the preview and publish send, or the problem that keeps the form from being one. */
export function draftOf(form: ReleaseForm): { draft: Input<'release:preview'> | null; problem: string | null } {
  if (!form.name.trim()) return { draft: null, problem: 'Name the release.' };
  let fractions: Record<string, number> = {};
  if (form.splitMode === 'fractions') {
    try {
      fractions = parseSplitSpec(form.splitText);
    } catch (e) {
      return { draft: null, problem: `Splits: ${(e as Error).message}` };
    }
  }
  const draft: Input<'release:preview'> = {
    name: form.name.trim(),
    version: form.version.trim(),
    selection: { datasets: form.datasets, types: form.types, statuses: form.statuses, campaignId: form.campaignId, onlyValid: form.campaignId !== null && form.onlyValid },
    split: form.splitMode === 'source' ? { mode: 'source' } : { mode: 'fractions', fractions, seed: Number(form.seed) || 0 },
    gate: {
      minKappa: numberOrNull(form.minKappa),
      minAc1: numberOrNull(form.minAc1),
      minYesRate: numberOrNull(form.minYesRate),
      minJudgments: numberOrNull(form.minJudgments),
      noUnresolved: form.noUnresolved,
    },
    licence: form.licence.trim() || null,
    description: form.description,
    authors: form.authors,
  };
  return { draft, problem: null };
}

/** What refuses the release, for the footer; `overridable` when a reason to publish anyway lifts it. */
export function refusal(preview: ReleasePreview): { message: string; overridable: boolean } | null {
  if (preview.problems.length) return { message: preview.problems[0]!, overridable: false };
  const failed = preview.gate.checks.filter((c) => !c.passed);
  if (failed.length) {
    const names = failed.slice(0, 3).map((c) => (c.value === null ? `${c.name} (not measured)` : `${c.name} ${c.value}`));
    return { message: `The gate refuses: ${names.join(', ')}${failed.length > 3 ? ` and ${failed.length - 3} more` : ''}.`, overridable: true };
  }
  if (!preview.licence.compatible) return { message: `Licence: ${preview.licence.problems.join(' ')}`, overridable: true };
  return null;
}
