/**
 * Splits an article into passages of about `targetWords` words on sentence boundaries (the
 * ~100-word units DPR-style corpora use). A sentence longer than the limit is cut between
 * words. Offsets are character positions in the article, so every passage can be traced back.
 */

export interface Chunk {
  start: number;
  end: number;
  text: string;
}

const SENTENCE_END = /[.!?]["')\]]*\s+(?=["'([]?[\p{Lu}\p{N}])|\n{2,}/gu;

function sentenceSpans(text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let start = 0;
  for (const match of text.matchAll(SENTENCE_END)) {
    const end = match.index + match[0].trimEnd().length;
    if (end > start) spans.push({ start, end });
    start = match.index + match[0].length;
  }
  if (start < text.length) spans.push({ start, end: text.length });
  return spans.filter((s) => text.slice(s.start, s.end).trim() !== '');
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export function chunkText(text: string, targetWords = 100): Chunk[] {
  const max = Math.round(targetWords * 1.3);
  const pieces: { start: number; end: number; words: number }[] = [];
  for (const sentence of sentenceSpans(text)) {
    const body = text.slice(sentence.start, sentence.end);
    const count = wordCount(body);
    if (count <= max) {
      pieces.push({ ...sentence, words: count });
      continue;
    }
    // A very long sentence: cut it between words.
    const tokens = [...body.matchAll(/\S+/g)];
    for (let i = 0; i < tokens.length; i += targetWords) {
      const first = tokens[i]!;
      const last = tokens[Math.min(tokens.length, i + targetWords) - 1]!;
      pieces.push({ start: sentence.start + first.index, end: sentence.start + last.index + last[0].length, words: Math.min(targetWords, tokens.length - i) });
    }
  }
  const chunks: Chunk[] = [];
  let current: { start: number; end: number; words: number } | null = null;
  for (const piece of pieces) {
    if (current && current.words + piece.words > max) {
      chunks.push({ start: current.start, end: current.end, text: text.slice(current.start, current.end) });
      current = null;
    }
    current = current ? { start: current.start, end: piece.end, words: current.words + piece.words } : { ...piece };
    if (current.words >= targetWords) {
      chunks.push({ start: current.start, end: current.end, text: text.slice(current.start, current.end) });
      current = null;
    }
  }
  if (current) {
    // A short tail joins the previous passage when that keeps it under the limit.
    const previous = chunks.at(-1);
    if (previous && current.words < targetWords / 3 && wordCount(previous.text) + current.words <= max) {
      chunks[chunks.length - 1] = { start: previous.start, end: current.end, text: text.slice(previous.start, current.end) };
    } else {
      chunks.push({ start: current.start, end: current.end, text: text.slice(current.start, current.end) });
    }
  }
  return chunks;
}
