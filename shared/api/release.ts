import { z } from 'zod';
import { AMBIGUITY_TYPES, INSTANCE_STATUSES, type AmbiguityType } from '../domain';
import { isSemver } from '../release/semver';
import { splitProblem } from '../release/splits';
import { byId, none, op, serverPath, startsJob } from './core';

/** Releases: frozen, versioned snapshots of instances with splits, a card, files and a gate. */

export const ReleaseSelection = z
  .object({
    /** Dataset names; every dataset when empty. */
    datasets: z.array(z.string().min(1)).default([]),
    types: z.array(z.enum(AMBIGUITY_TYPES)).default([]),
    statuses: z.array(z.enum(INSTANCE_STATUSES)).default([]),
    /** The validation campaign whose agreement goes into the card and the gate. */
    campaignId: z.number().int().positive().nullable().default(null),
    /** Keep only instances with a positive verdict in the campaign (majority or adjudicated). */
    onlyValid: z.boolean().default(false),
  })
  .strict()
  .refine((s) => !s.onlyValid || s.campaignId !== null, { message: 'onlyValid needs a campaign', path: ['onlyValid'] });
export type ReleaseSelection = z.output<typeof ReleaseSelection>;

export const SplitSpec = z.union([
  z
    .object({
      mode: z.literal('fractions'),
      fractions: z.record(z.string(), z.number()).default({ train: 0.8, test: 0.2 }),
      seed: z.number().int().min(0).max(2 ** 31 - 1).default(1),
    })
    .strict()
    .superRefine((s, ctx) => {
      const problem = splitProblem(s.fractions);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['fractions'] });
    }),
  z.object({ mode: z.literal('source') }).strict(),
]);
export type SplitSpec = z.output<typeof SplitSpec>;

const unit = z.number().min(-1).max(1);
export const GateThresholds = z
  .object({
    /** Minimum Fleiss' kappa, for every yes/no criterion of the campaign. */
    minKappa: unit.nullable().default(null),
    /** Minimum Gwet's AC1, for every yes/no criterion. */
    minAc1: unit.nullable().default(null),
    /** Minimum YES rate (majority or adjudicated), for every yes/no criterion. */
    minYesRate: z.number().min(0).max(1).nullable().default(null),
    /** Minimum annotators who judged each campaign item in the release. */
    minJudgments: z.number().int().min(0).nullable().default(null),
    /** No open conflicts and no tied votes left without an adjudication. */
    noUnresolved: z.boolean().default(false),
  })
  .strict();
export type GateThresholds = z.output<typeof GateThresholds>;

export const ReleaseDraft = z
  .object({
    name: z.string().trim().min(1).max(120).regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'letters, digits, space, dot, _ and - (starting with a letter or digit)'),
    version: z.string().refine(isSemver, 'a semantic version: MAJOR.MINOR.PATCH, e.g. 1.0.0'),
    selection: ReleaseSelection.default({ datasets: [], types: [], statuses: [], campaignId: null, onlyValid: false }),
    split: SplitSpec.default({ mode: 'fractions', fractions: { train: 0.8, test: 0.2 }, seed: 1 }),
    gate: GateThresholds.default({ minKappa: null, minAc1: null, minYesRate: null, minJudgments: null, noUnresolved: false }),
    /** SPDX id of the release's licence; chosen from the sources when left out. */
    licence: z.string().trim().min(1).max(100).nullable().default(null),
    description: z.string().max(20_000).default(''),
    /** Who to cite (a BibTeX author list or a name); the citation block is generated. */
    authors: z.string().max(1000).default(''),
  })
  .strict();
export type ReleaseDraft = z.output<typeof ReleaseDraft>;

export const ReleaseCreateRequest = ReleaseDraft.extend({
  /** The output folder: it must not exist, or be empty; by default `releases/<name>-<version>` beside the database. */
  out: serverPath().optional(),
  /** Publish although the gate or the licence check refuses; the card says so, with the reason. */
  force: z.string().trim().min(1, 'give a reason').max(2000).nullable().default(null),
}).strict();
export type ReleaseCreateRequest = z.output<typeof ReleaseCreateRequest>;

export interface GateCheck {
  name: string;
  threshold: number | null;
  value: number | null;
  passed: boolean;
  /** Why the value is missing or partial ("no campaign linked", "26 selected instances have no judgment"). */
  note: string | null;
}

/** `not checked`: no thresholds were set, so the gate looked at nothing (it never says "passed" then). */
export type GateVerdict = 'passed' | 'refused' | 'not checked';

/** How much of the release the linked campaign judged (glossary: coverage). */
export interface GateCoverage {
  campaignId: number;
  /** Selected instances with at least one judgment in the campaign. */
  judged: number;
  selected: number;
}

export interface GateResult {
  /** True when nothing refuses the release (also when there was nothing to check). */
  passed: boolean;
  verdict: GateVerdict;
  checks: GateCheck[];
  /** Null when no campaign is linked. */
  coverage: GateCoverage | null;
  /** The reason given to publish anyway, when the release was published although a check failed. */
  forced: string | null;
}

export interface ReleaseFile {
  path: string;
  sha256: string;
  /** Instances in a data file; null for the card, release.json and the checksums. */
  rows: number | null;
}

/** What `release:create` returns (and `awb release create --json` prints). `id` is null when refused. */
export interface ReleaseSummary {
  id: number | null;
  name: string;
  version: string;
  dir: string;
  counts: Record<string, number>;
  files: ReleaseFile[];
  gate: GateResult;
}

export interface ReleasePreview {
  counts: Record<string, number>;
  total: number;
  perType: Partial<Record<AmbiguityType, number>>;
  gate: GateResult;
  licence: { licence: string; shareAlike: boolean; compatible: boolean; problems: string[]; unknown: string[] };
  /** Problems that refuse the release whatever the gate says (nothing selected, version taken, ...). */
  problems: string[];
  card: string;
}

export interface ReleaseListRow {
  id: number;
  name: string;
  version: string;
  instances: number;
  counts: Record<string, number>;
  licence: string;
  gatePassed: boolean;
  gateVerdict: GateVerdict;
  gateCoverage: GateCoverage | null;
  forced: string | null;
  dir: string;
  createdAt: string;
}

export interface ReleaseDetail extends ReleaseListRow {
  selection: ReleaseSelection;
  split: SplitSpec;
  thresholds: GateThresholds;
  gate: GateResult;
  files: ReleaseFile[];
  appVersion: string;
  schemaVersion: number;
  card: string;
  /** The release.json written with the files. */
  metadata: Record<string, unknown>;
}

export interface VerifyCheck {
  name: string;
  ok: boolean;
  message: string;
}

export interface VerifyReport {
  dir: string;
  ok: boolean;
  checks: VerifyCheck[];
}

/**
 * How an instance differs between two releases. `moved`: it sits in another split (glossary:
 * split move), whatever else changed, and comes first, because an instance that moved from test to
 * train is a contamination risk for whoever compares scores across the versions.
 */
export const DIFF_KINDS = ['moved', 'added', 'removed', 'changed'] as const;
export type DiffKind = (typeof DIFF_KINDS)[number];

/** One field of a record, before and after, as JSON text (cut to a few hundred characters). */
export interface FieldChange {
  field: string;
  before: string | null;
  after: string | null;
}

export interface ReleaseDiffRow {
  key: string;
  change: DiffKind;
  /** The fields of the record that differ (`instance.interpretations`, `base_question.question`, ...); a move adds none. */
  fields: string[];
  splitA: string | null;
  splitB: string | null;
  /** The question as frozen in the later release (the earlier one for a removed instance). */
  question: string;
  /** The instance in this database, when it still exists. */
  instanceId: number | null;
  /** Field-level before and after, for a record whose content changed (at most 20). */
  changes: FieldChange[];
}

export interface SplitMove {
  from: string;
  to: string;
  count: number;
}

/** One split, before and after: what left it, what came into it. */
export interface SplitDiffRow {
  split: string;
  before: number;
  after: number;
  added: number;
  removed: number;
  movedIn: number;
  movedOut: number;
  changed: number;
  unchanged: number;
}

export interface ReleaseDiff {
  a: { id: number; name: string; version: string };
  b: { id: number; name: string; version: string };
  /** Each instance counts once: moved (another split), added, removed, changed (same split, other content) or unchanged. */
  moved: number;
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  /** Split moves by pair of splits, most first. */
  moves: SplitMove[];
  perSplit: SplitDiffRow[];
  /** The differences of the kinds asked for, moves first, then added, removed and changed, each in key order (up to `limit`). */
  rows: ReleaseDiffRow[];
  truncated: boolean;
}

export const releaseOperations = {
  'release:preview': op<ReleasePreview>()(ReleaseDraft),
  'release:create': startsJob<ReleaseSummary>()('release', ReleaseCreateRequest),
  'release:list': op<ReleaseListRow[]>()(none),
  'release:get': op<ReleaseDetail>()(byId),
  'release:card': op<{ markdown: string }>()(byId),
  'release:verify': op<VerifyReport>()(z.object({ dir: serverPath() }).strict()),
  'release:diff': op<ReleaseDiff>()(
    z
      .object({
        a: z.number().int().positive(),
        b: z.number().int().positive(),
        /** The kinds of difference to list (all when empty); the counts always cover every kind. */
        kinds: z.array(z.enum(DIFF_KINDS)).default([]),
        limit: z.number().int().min(1).max(100_000).default(1000),
      })
      .strict(),
  ),
  /** The release folder as a zip, for browser mode's download. */
  'release:zip': op<{ fileName: string; base64: string; bytes: number }>()(byId),
} as const;
