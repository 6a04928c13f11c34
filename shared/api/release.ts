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
  /** The output folder: it must not exist, or be empty. */
  out: serverPath(),
  /** Publish although the gate or the licence check refuses; the card says so, with the reason. */
  force: z.string().trim().min(1, 'give a reason').max(2000).nullable().default(null),
}).strict();
export type ReleaseCreateRequest = z.output<typeof ReleaseCreateRequest>;

export interface GateCheck {
  name: string;
  threshold: number | null;
  value: number | null;
  passed: boolean;
}

export interface GateResult {
  passed: boolean;
  checks: GateCheck[];
  /** The reason given with --force, when the release was published although a check failed. */
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

export interface ReleaseDiffRow {
  key: string;
  change: 'added' | 'removed' | 'changed';
  /** For a changed instance: `split` when it moved, and the fields of its record that differ (`instance.interpretations`, ...). */
  fields: string[];
  splitA: string | null;
  splitB: string | null;
}

export interface ReleaseDiff {
  a: { id: number; name: string; version: string };
  b: { id: number; name: string; version: string };
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
  /** Added, removed and changed instances by key (up to `limit`). */
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
    z.object({ a: z.number().int().positive(), b: z.number().int().positive(), limit: z.number().int().min(1).max(100_000).default(1000) }).strict(),
  ),
  /** The release folder as a zip, for browser mode's download. */
  'release:zip': op<{ fileName: string; base64: string; bytes: number }>()(byId),
} as const;
