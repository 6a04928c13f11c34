/**
 * The sentence splitter ASQA's scorer runs before rougeLsum: NLTK's Punkt, its tokenizing half
 * (no training), ported rule for rule from `nltk/tokenize/punkt.py` (NLTK 3.9+, the version with
 * the ReDoS fix: candidates are found first, then the word before each is looked up). ASQA calls
 * it on lower-cased text, `'\n'.join(sent_tokenize(text.lower()))`, and `rouge_score` then splits
 * that on newlines; `asqaSentences` does both steps.
 *
 * Punkt decides with learnt parameters (abbreviations, collocations, the case each word was seen
 * in). NLTK's English parameters are data, not a package, so the built-in parameters here are an
 * abbreviation list of our own and no collocations or case statistics; on lower-cased text that
 * changes a decision only for a token ending in "." whose abbreviation status differs from the
 * English model's, or a collocation it learnt (docs/evaluation-metrics.md). `loadPunktParams`
 * (electron side) reads NLTK's own `punkt_tab/english` files where someone has them.
 */

export interface PunktParams {
  /** Abbreviations, lower-case, without their final period ("mr", "u.s"). */
  abbrevTypes: ReadonlySet<string>;
  /** Pairs of types (`first second`, the first without its period) that do not break. */
  collocations: ReadonlySet<string>;
  /** Orthographic context flags per type (NLTK's `ortho_context`); missing types count 0. */
  orthoContext: ReadonlyMap<string, number>;
  /** Frequent sentence starters (used only for capitalised words, so never on lower-cased text). */
  sentStarters: ReadonlySet<string>;
  /** Where these parameters came from, as a run records it. */
  source: string;
}

/** Our guesses at the English model's abbreviations (marked as guesses: the model's list is not shipped). */
const BUILTIN_ABBREVIATIONS = [
  'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'jr', 'sr', 'vs', 'etc', 'inc', 'co', 'ltd', 'corp', 'gen', 'col', 'lt', 'sgt', 'rev', 'mt', 'ft',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'fig', 'al', 'approx', 'dept', 'govt', 'no', 'vol',
  'u.s', 'u.k', 'u.n', 'e.g', 'i.e', 'a.m', 'p.m', 'd.c', 'u.s.a', 'ph.d',
];

export const PUNKT_BUILTIN: PunktParams = {
  abbrevTypes: new Set(BUILTIN_ABBREVIATIONS),
  collocations: new Set(),
  orthoContext: new Map(),
  sentStarters: new Set(),
  source: 'builtin',
};

// NLTK's orthographic context flags.
const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_UNK_UC = 1 << 3;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UNK_LC = 1 << 6;
const ORTHO_UC = ORTHO_BEG_UC | ORTHO_MID_UC | ORTHO_UNK_UC;
const ORTHO_LC = ORTHO_BEG_LC | ORTHO_MID_LC | ORTHO_UNK_LC;

// ---- PunktLanguageVars (English) ------------------------------------------------------------

/** Characters that cannot appear within words: `) " ; } ] * : @ ' ( { [` typographic quotes, `?` and `!`. */
const NON_WORD = String.raw`[)";}\]*:@'({\[\u2018\u2019\u201c\u201d\u00ab\u00bb?!]`;
const MULTI_CHAR = String.raw`(?:-{2,}|\.{2,}|(?:\.\s){2,}\.)`;
const WORD_START = String.raw`[^("\x60{\[:;&#*@)}\]\-,]`;
const WORD_TOKENIZER = new RegExp(
  `${MULTI_CHAR}|(?=${WORD_START})\\S+?(?=\\s|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|\\s|${NON_WORD}|${MULTI_CHAR}))|\\S`,
  'gu',
);
/** A sentence-end character, followed by other punctuation or by white space and a token. */
const PERIOD_CONTEXT = new RegExp(`[.?!](?=(${NON_WORD}|\\s+(\\S+)))`, 'gu');
/** Matched at the start of the next slice only (sticky), as Python's `re.match`. */
const BOUNDARY_REALIGNMENT = /["')\]}\u2018\u2019\u201c\u201d\u00ab\u00bb]+?(?:\s+|(?=--)|$)/muy;
const SENT_END_CHARS = new Set(['.', '?', '!']);
/** Python's `string.whitespace`. */
const ASCII_WHITESPACE = new Set([' ', '\t', '\n', '\r', '\x0b', '\x0c']);

// ---- PunktToken --------------------------------------------------------------------------------

const RE_ELLIPSIS = /^\.\.+$/u;
const RE_NUMERIC = /^-?[.,]?\d[\d,.-]*\.?$/u;
/** `[^\W\d]\.$` matched at the start: one letter (Python's sense: alphabetic or a non-decimal numeral, or `_`) and a period. */
const RE_INITIAL = /^[\p{L}\p{Nl}\p{No}_]\.$/u;

interface Token {
  tok: string;
  type: string;
  periodFinal: boolean;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function token(tok: string): Token {
  const lower = tok.toLowerCase();
  return { tok, type: RE_NUMERIC.test(lower) ? '##number##' : lower, periodFinal: tok.endsWith('.'), sentbreak: false, abbr: false, ellipsis: false };
}

function typeNoPeriod(t: Token): string {
  return t.type.length > 1 && t.type.endsWith('.') ? t.type.slice(0, -1) : t.type;
}

function typeNoSentperiod(t: Token): string {
  return t.sentbreak ? typeNoPeriod(t) : t.type;
}

const firstUpper = (t: Token) => /^\p{Uppercase}/u.test(t.tok);
const firstLower = (t: Token) => /^\p{Lowercase}/u.test(t.tok);

// ---- the annotation passes ---------------------------------------------------------------------

/** `_tokenize_words`: each non-blank line's word tokens. */
function wordTokens(text: string): Token[] {
  const out: Token[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    for (const m of line.matchAll(WORD_TOKENIZER)) out.push(token(m[0]));
  }
  return out;
}

/** `_first_pass_annotation`: decisions from the token's type alone. */
function firstPass(t: Token, params: PunktParams): void {
  if (SENT_END_CHARS.has(t.tok)) t.sentbreak = true;
  else if (RE_ELLIPSIS.test(t.tok)) t.ellipsis = true;
  else if (t.periodFinal && !t.tok.endsWith('..')) {
    const stem = t.tok.slice(0, -1).toLowerCase();
    if (params.abbrevTypes.has(stem) || params.abbrevTypes.has(stem.split('-').at(-1)!)) t.abbr = true;
    else t.sentbreak = true;
  }
}

/** `_ortho_heuristic`: whether the token starts a sentence (true, false or unknown). */
function orthoHeuristic(t: Token, params: PunktParams): boolean | 'unknown' {
  if (';:,.!?'.includes(t.tok) && t.tok.length === 1) return false;
  const ortho = params.orthoContext.get(typeNoSentperiod(t)) ?? 0;
  if (firstUpper(t) && ortho & ORTHO_LC && !(ortho & ORTHO_MID_UC)) return true;
  if (firstLower(t) && (ortho & ORTHO_UC || !(ortho & ORTHO_BEG_LC))) return false;
  return 'unknown';
}

/** `_second_pass_annotation`: collocations, abbreviations and ellipses before a sentence starter, initials and numbers. */
function secondPass(t1: Token, t2: Token | undefined, params: PunktParams): void {
  if (!t2 || !t1.periodFinal) return;
  const typ = typeNoPeriod(t1);
  const nextTyp = typeNoSentperiod(t2);
  const initial = RE_INITIAL.test(t1.tok);
  if (params.collocations.has(`${typ} ${nextTyp}`)) {
    t1.sentbreak = false;
    t1.abbr = true;
    return;
  }
  if ((t1.abbr || t1.ellipsis) && !initial) {
    if (orthoHeuristic(t2, params) === true) {
      t1.sentbreak = true;
      return;
    }
    if (firstUpper(t2) && params.sentStarters.has(nextTyp)) {
      t1.sentbreak = true;
      return;
    }
  }
  if (initial || typ === '##number##') {
    const starter = orthoHeuristic(t2, params);
    if (starter === false) {
      t1.sentbreak = false;
      t1.abbr = true;
      return;
    }
    if (starter === 'unknown' && initial && firstUpper(t2) && !((params.orthoContext.get(nextTyp) ?? 0) & ORTHO_LC)) {
      t1.sentbreak = false;
      t1.abbr = true;
    }
  }
}

/** `text_contains_sentbreak`: a token other than the last is a sentence break after both passes. */
function containsSentbreak(context: string, params: PunktParams): boolean {
  const tokens = wordTokens(context);
  tokens.forEach((t) => firstPass(t, params));
  for (let i = 0; i < tokens.length; i++) {
    secondPass(tokens[i]!, tokens[i + 1], params);
    if (tokens[i]!.sentbreak && i + 1 < tokens.length) return true;
  }
  return false;
}

// ---- candidates, slices and realignment ----------------------------------------------------------

interface Candidate {
  /** Index just after the sentence-end character. */
  end: number;
  /** Where the next token starts (white space followed), or null (punctuation followed). */
  nextStart: number | null;
  context: string;
}

function lastWhitespaceIndex(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (ASCII_WHITESPACE.has(text[i]!)) return i;
  return 0;
}

/** `_match_potential_end_contexts`: every candidate with the word before it and the token after, overlapping ones merged. */
function candidates(text: string): Candidate[] {
  const out: Candidate[] = [];
  let previous: { match: RegExpMatchArray; start: number; stop: number } | null = null;
  let prevStart = 0;
  let prevStop = 0;
  const emit = (p: { match: RegExpMatchArray; start: number; stop: number }) => {
    const m = p.match;
    const after = m[1]!;
    const end = m.index! + 1;
    const nextStart = m[2] !== undefined ? end + after.length - m[2].length : null;
    out.push({ end, nextStart, context: text.slice(p.start, p.stop) + m[0] + after });
  };
  for (const match of text.matchAll(PERIOD_CONTEXT)) {
    const before = text.slice(prevStop, match.index);
    let wordStart = lastWhitespaceIndex(before);
    wordStart = wordStart ? wordStart + prevStop + 1 : prevStart;
    if (previous && prevStop <= wordStart) emit(previous);
    previous = { match, start: wordStart, stop: match.index! };
    prevStart = wordStart;
    prevStop = match.index!;
  }
  if (previous) emit(previous);
  return out;
}

/** `_slices_from_text`: [start, stop) of each sentence before realignment. */
function slices(text: string, params: PunktParams): [number, number][] {
  const out: [number, number][] = [];
  let lastBreak = 0;
  for (const c of candidates(text)) {
    if (!containsSentbreak(c.context, params)) continue;
    out.push([lastBreak, c.end]);
    lastBreak = c.nextStart ?? c.end;
  }
  out.push([lastBreak, text.trimEnd().length]);
  return out;
}

/** `_realign_boundaries`: closing quotes and brackets after a break join the sentence before. */
function realign(text: string, list: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let shift = 0;
  list.forEach(([start1, stop1], i) => {
    const s1: [number, number] = [start1 + shift, stop1];
    const s2 = list[i + 1];
    if (!s2) {
      if (s1[1] > s1[0]) out.push(s1);
      return;
    }
    BOUNDARY_REALIGNMENT.lastIndex = 0;
    const m = BOUNDARY_REALIGNMENT.exec(text.slice(s2[0], s2[1]));
    if (m) {
      out.push([s1[0], s2[0] + m[0].trimEnd().length]);
      shift = m[0].length;
    } else {
      shift = 0;
      if (s1[1] > s1[0]) out.push(s1);
    }
  });
  return out;
}

/** Punkt's sentences of a text (NLTK `PunktSentenceTokenizer.tokenize` with these parameters). */
export function punktSentences(text: string, params: PunktParams = PUNKT_BUILTIN): string[] {
  return realign(text, slices(text, params)).map(([start, stop]) => text.slice(start, stop));
}

/**
 * The sentences rougeLsum sees in ASQA's scorer: Punkt on the lower-cased text, joined with
 * newlines, split again on newlines by `rouge_score`, empty strings dropped.
 */
export function asqaSentences(text: string, params: PunktParams = PUNKT_BUILTIN): string[] {
  return punktSentences(text.toLowerCase(), params)
    .join('\n')
    .split('\n')
    .filter((s) => s.length > 0);
}

/**
 * Parameters from NLTK's `punkt_tab/<language>/` files, given their contents: `abbrev_types.txt`
 * (a type per line), `collocations.tab` (two tab-separated types per line), `ortho_context.tab`
 * (type, tab, flags) and `sent_starters.txt` (a type per line).
 */
export function punktParamsFromTab(files: { abbrevTypes: string; collocations: string; orthoContext: string; sentStarters: string }, source: string): PunktParams {
  const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);
  return {
    abbrevTypes: new Set(lines(files.abbrevTypes)),
    collocations: new Set(lines(files.collocations).map((l) => l.split('\t').join(' '))),
    orthoContext: new Map(lines(files.orthoContext).map((l) => { const [type, flags] = l.split('\t'); return [type!, Number(flags)] as [string, number]; })),
    sentStarters: new Set(lines(files.sentStarters)),
    source,
  };
}
