import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DETECTABLE_TYPES, type DetectableType } from '../../shared/pipeline';

/**
 * A rejection profile for the fake model: how often each stage lets an item through, drawn per
 * item and model from a hash (so every run, and both arms of a comparison, see the same answers).
 * MARCH_PROFILE follows MARCH's funnel (paper 000, Table 2, top):
 *
 * - detection: a (question, type) is ambiguous with probability a_t, and then each detector says yes
 *   with 0.97; so all four agree on a_t · 0.97⁴, MARCH's detect-and-clarify retention per type
 *   (38.4% semantic, 34.8% syntactic, 47.1% constraint of the original pairs). On the others each
 *   detector says yes with its own false-yes rate: the paper gives none; ours are 0.35, 0.25, 0.15
 *   and 0.10 for the first to fourth detector named (an assumption; it decides which detector
 *   rejects most).
 * - answers: one interpretation of an instance has no supported answer with 1 − 0.741 (MARCH keeps
 *   74.1% of instances at answer generation).
 * - collisions: an instance's short answers are all the same with 1 − 0.196 (MARCH keeps 19.6% from
 *   answer generation to filtering; the paper does not split that loss between the long answer,
 *   shortening and collisions: all of it is put on collisions here).
 * - the filter: an instance is good with 0.53, and then each filter model says aligned with 0.98;
 *   a bad one fools them with 0.5, 0.3 and 0.2 (first to third named): unanimity keeps ≈ 51%, as
 *   MARCH's filter does (51.0%).
 */

export const FakeProfileSchema = z
  .object({
    ambiguous: z.object(Object.fromEntries(DETECTABLE_TYPES.map((t) => [t, z.number().min(0).max(1)])) as Record<DetectableType, z.ZodNumber>).strict(),
    detectorHit: z.number().min(0).max(1),
    /** P(yes | not ambiguous) by detector model name, or by position (`#1`, `#2`...) among the detectors named. */
    falseYes: z.array(z.number().min(0).max(1)).min(1),
    unsupported: z.number().min(0).max(1),
    collide: z.number().min(0).max(1),
    good: z.number().min(0).max(1),
    filterHit: z.number().min(0).max(1),
    falseAligned: z.array(z.number().min(0).max(1)).min(1),
  })
  .strict();
export type FakeProfile = z.output<typeof FakeProfileSchema>;

const ALL_AGREE = 0.97 ** 4;

export const MARCH_PROFILE: FakeProfile = {
  ambiguous: { semantic: 0.384 / ALL_AGREE, syntactic: 0.348 / ALL_AGREE, constraint: 0.471 / ALL_AGREE },
  detectorHit: 0.97,
  falseYes: [0.35, 0.25, 0.15, 0.1],
  unsupported: 1 - 0.741,
  collide: 1 - 0.196,
  good: 0.53,
  filterHit: 0.98,
  falseAligned: [0.5, 0.3, 0.2],
};

/** A uniform draw in [0, 1) fixed by its keys. */
export function draw(...keys: string[]): number {
  return createHash('sha256').update(keys.join('\u0000')).digest().readUInt32LE(0) / 2 ** 32;
}

/** A model's place among the detectors or filters it was named with: the digits at its end (det-1, fil-3), else its last letter (det-a, fil-c). */
function rank(model: string): number {
  const digits = /(\d+)$/.exec(model);
  if (digits) return Number(digits[1]) - 1;
  const letter = model.toLowerCase().at(-1) ?? 'a';
  return Math.max(0, letter.charCodeAt(0) - 'a'.charCodeAt(0));
}

const rate = (rates: readonly number[], model: string) => rates[Math.min(rank(model), rates.length - 1)]!;

export function profileDetect(p: FakeProfile, question: string, type: DetectableType, model: string): boolean {
  const ambiguous = draw('ambiguous', question, type) < p.ambiguous[type];
  return draw('detect', question, type, model) < (ambiguous ? p.detectorHit : rate(p.falseYes, model));
}

export function profileFilter(p: FakeProfile, question: string, type: string, model: string): boolean {
  const good = draw('good', question, type) < p.good;
  return draw('filter', question, type, model) < (good ? p.filterHit : rate(p.falseAligned, model));
}

/** The type a clarification prompt is for, read off its instructions. */
export function clarifiedType(system: string): DetectableType {
  if (/syntactically ambiguous/i.test(system)) return 'syntactic';
  if (/constraint ambiguity/i.test(system)) return 'constraint';
  return 'semantic';
}

/** How the profile answers one interpretation: unsupported (no answer), or which answer candidate it takes (0 for every interpretation: a collision). */
export function profileAnswer(p: FakeProfile, base: string, type: string, sense: number): 'unsupported' | number {
  if (draw('unsupported', base, type) < p.unsupported && sense === (draw('which', base, type) < 0.5 ? 0 : 1)) return 'unsupported';
  return draw('collide', base, type) < p.collide ? 0 : sense;
}
