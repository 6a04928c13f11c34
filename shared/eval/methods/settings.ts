import type { EvalMethod } from './index';

/**
 * The settings a run's methods work with, every default resolved before the run is stored, so
 * `eval_runs.options` and the run summary say what was used. Defaults are the papers' values:
 * MARCH's search budget (5, Table 17), top-k (10) and 512 tokens; ADF's top-k (5) and thresholds
 * per dataset; DIVA as ADF re-implemented it; CondAmbigQA's caps of five (App. D).
 */

export const ADF_PROFILES = {
  ambignq: { varianceThreshold: 0.25, separabilityThreshold: 0.1 },
  asqa: { varianceThreshold: 0.15, separabilityThreshold: 0.05 },
} as const;
export type AdfProfile = keyof typeof ADF_PROFILES | 'custom';

export interface AdfSettings {
  profile: AdfProfile;
  /** Which dataset's HyDE and synthesis prompts to use (the profile's; for custom thresholds, the source's). */
  style: keyof typeof ADF_PROFILES;
  varianceThreshold: number;
  separabilityThreshold: number;
  relevanceThreshold: number;
}

export interface EvalSettings {
  /** Passages per search; null for methods that do not search. */
  k: number | null;
  searchBudget: number;
  maxInterpretations: number;
  clarifications: number;
  /** Null: no temperature sent (the endpoint's default). */
  temperature: number | null;
  maxTokens: number;
  diva: { interpretations: number; diversifyTemperature: number; verifyTemperature: number };
  adf: AdfSettings;
  condqa: { maxConditions: number; maxCitations: number };
  geval: { mode: 'auto' | 'logprobs' | 'sampled'; samples: number; topLogprobs: number };
}

export const SEARCH_BUDGET = 5;

/** What a request may say about settings (every key optional: older stored runs lack the newer ones). */
export interface SettingsInput {
  method: EvalMethod;
  k?: number | undefined;
  searchBudget?: number | undefined;
  maxIterations?: number | undefined;
  maxInterpretations?: number | undefined;
  clarifications?: number | undefined;
  temperature?: number | null | undefined;
  maxTokens?: number | undefined;
  diva?: Partial<EvalSettings['diva']> | undefined;
  adf?: Partial<AdfSettings> | undefined;
  condqa?: Partial<EvalSettings['condqa']> | undefined;
  geval?: Partial<EvalSettings['geval']> | undefined;
}

/** ADF's profile and thresholds: explicit thresholds make it custom; else the profile asked for, else the one the source's format implies. */
export function resolveAdf(adf: Partial<AdfSettings> | undefined, sourceFormat: string | null): { adf: AdfSettings; note: string | null } {
  const relevanceThreshold = adf?.relevanceThreshold ?? 0.2;
  const style = adf?.style ?? (adf?.profile === 'asqa' || (adf?.profile !== 'ambignq' && sourceFormat === 'asqa') ? 'asqa' : 'ambignq');
  const explicit = adf?.varianceThreshold !== undefined || adf?.separabilityThreshold !== undefined;
  if (adf?.profile === 'custom' || explicit) {
    const base = ADF_PROFILES[style];
    return {
      adf: { profile: 'custom', style, varianceThreshold: adf?.varianceThreshold ?? base.varianceThreshold, separabilityThreshold: adf?.separabilityThreshold ?? base.separabilityThreshold, relevanceThreshold },
      note: null,
    };
  }
  let profile = adf?.profile;
  let note: string | null = null;
  if (!profile) {
    if (sourceFormat === 'asqa' || sourceFormat === 'ambignq') profile = sourceFormat;
    else {
      profile = 'ambignq';
      note = `ADF thresholds: no profile for ${sourceFormat ? `the format "${sourceFormat}"` : 'this source'}; the AmbigNQ values (0.25 / 0.1) were used`;
    }
  }
  return { adf: { profile, style: adf?.style ?? profile, ...ADF_PROFILES[profile], relevanceThreshold }, note };
}

/** Every setting with its default; `adf` must be resolved already (or is resolved without a source format). */
export function resolveSettings(input: SettingsInput, retrieves: boolean): EvalSettings {
  const adfDone = input.adf?.profile !== undefined && input.adf.style !== undefined && input.adf.varianceThreshold !== undefined && input.adf.separabilityThreshold !== undefined;
  return {
    k: retrieves ? (input.k ?? (input.method === 'adf' ? 5 : 10)) : null,
    searchBudget: input.searchBudget ?? input.maxIterations ?? SEARCH_BUDGET,
    maxInterpretations: input.maxInterpretations ?? 4,
    clarifications: input.clarifications ?? 2,
    temperature: input.temperature === undefined ? 0 : input.temperature,
    maxTokens: input.maxTokens ?? 512,
    diva: { interpretations: 3, diversifyTemperature: 0.7, verifyTemperature: 0, ...input.diva },
    adf: adfDone ? (input.adf as AdfSettings) : resolveAdf(input.adf, null).adf,
    condqa: { maxConditions: 5, maxCitations: 5, ...input.condqa },
    geval: { mode: 'auto', samples: 20, topLogprobs: 20, ...input.geval },
  };
}
