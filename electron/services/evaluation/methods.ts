import type { EvalMethod } from '../../../shared/eval/methods';
import { citedKeys, cleanAnswers, conditionalLongAnswer, describeHistory, fragmentsAsPassages, numberedPassages } from '../../../shared/eval/methods/format';
import { adaptiveK, kMeans, queryState } from '../../../shared/retrieval/geometry';
import { centroid, cosine, dispersion, silhouette } from '../../../shared/vectors';
import type { MethodInterpretation, MethodOutput, RetrievedPassage } from '../../../shared/eval/types';
import { reciprocalRankFusion } from '../../../shared/retrieval/fusion';
import { findCorpusByName } from '../../../db/queries/corpora';
import { getVectors } from '../../../db/queries/embeddings';
import { defaultModelFor, embedderFor } from '../retrieval/models';
import { ItemFailure, type ItemRun } from './context';

/**
 * The QA methods, each a function of one item. They call the model only through `run.ask` and
 * search only through `run.search`, so every call and search is cached, accounted and traced.
 */

const output = (o: Partial<MethodOutput> & Pick<MethodOutput, 'longAnswer' | 'shortAnswers'>): MethodOutput => ({
  citations: [],
  interpretations: [],
  retrieved: [],
  ...o,
  shortAnswers: cleanAnswers(o.shortAnswers),
});

/** Passages pooled over several searches, each once, in first-seen order. */
function pool(lists: readonly RetrievedPassage[][]): RetrievedPassage[] {
  const seen = new Map<string, RetrievedPassage>();
  for (const list of lists) for (const p of list) if (!seen.has(p.key)) seen.set(p.key, p);
  return [...seen.values()].map((p, i) => ({ ...p, rank: i + 1 }));
}

async function noRetrieval(run: ItemRun): Promise<MethodOutput> {
  const a = await run.mustAsk('eval_direct', { question: run.question });
  return output({ longAnswer: a.long_answer, shortAnswers: a.short_answers });
}

async function cot(run: ItemRun): Promise<MethodOutput> {
  const a = await run.mustAsk('eval_cot', { question: run.question }, { kind: 'thought' });
  return output({ longAnswer: a.long_answer, shortAnswers: a.short_answers });
}

async function rag(run: ItemRun, reasoning: boolean): Promise<MethodOutput> {
  const passages = await run.search(run.question);
  const values = { question: run.question, passages: numberedPassages(passages) };
  const a = reasoning ? await run.mustAsk('eval_cot_rag', values, { kind: 'thought' }) : await run.mustAsk('eval_rag', values);
  return output({ longAnswer: a.long_answer, shortAnswers: a.short_answers, citations: citedKeys(a.citations, passages), retrieved: passages });
}

/** DIVA: diversify, retrieve per interpretation, verify each passage, adapt (useful evidence, else the model's own knowledge). */
async function diva(run: ItemRun): Promise<MethodOutput> {
  const diversified = await run.mustAsk('eval_diva_diversify', { question: run.question, max_interpretations: run.env.maxInterpretations }, { kind: 'plan', label: 'diversify' });
  const questions = cleanAnswers(diversified.interpretations).slice(0, run.env.maxInterpretations);
  const numbered: RetrievedPassage[] = [];
  const blocks: string[] = [];
  const interpretations: MethodInterpretation[] = [];
  for (const [n, question] of questions.entries()) {
    const found = await run.search(question, { label: `search for interpretation ${n + 1}` });
    const verdict = await run.ask('eval_diva_verify', { interpretation: question, passages: numberedPassages(found) }, { kind: 'observation', label: `verify interpretation ${n + 1}` });
    // An unusable verdict keeps every passage as partially useful rather than failing the item.
    const labels = new Map((verdict?.labels ?? []).map((l) => [l.passage, l.label]));
    const kept = found.filter((_, i) => (labels.get(i + 1) ?? (verdict ? 'useless' : 'partially_useful')) !== 'useless');
    const useful = found.filter((_, i) => labels.get(i + 1) === 'useful');
    const chosen = useful.length ? useful : kept;
    const lines = chosen.map((p) => {
      numbered.push(p);
      return `[${numbered.length}] ${p.title ? `${p.title}: ` : ''}${p.text.slice(0, 1200)}`;
    });
    blocks.push(
      `Interpretation ${n + 1}: ${question}\n${useful.length ? 'Useful passages:' : kept.length ? 'Partially useful passages only:' : 'No useful passage: answer from your own knowledge.'}\n${lines.join('\n')}`,
    );
    interpretations.push({ question, condition: null, answer: null, citations: [], retrieved: found });
  }
  const a = await run.mustAsk('eval_diva_answer', { question: run.question, interpretations: blocks.join('\n\n') }, { label: 'adapt and answer' });
  a.interpretations.forEach((answered, i) => {
    const target = interpretations[i];
    if (target) {
      target.answer = answered.answer || null;
      target.citations = citedKeys(answered.citations, numbered);
    }
  });
  return output({
    longAnswer: a.long_answer,
    shortAnswers: a.short_answers,
    citations: citedKeys(
      a.interpretations.flatMap((i) => i.citations),
      numbered,
    ),
    interpretations,
  });
}

/** ReAct: thought → action (search | answer) → observation, at most maxIterations turns; the last turn must answer. */
async function react(run: ItemRun): Promise<MethodOutput> {
  const max = run.env.maxIterations;
  const history: { thought: string; action: string; observation: string }[] = [];
  const used = new Set<string>();
  const found: RetrievedPassage[][] = [];
  for (let turn = 1; turn <= max; turn++) {
    const step = await run.ask('eval_react', { question: run.question, context: describeHistory(history), max_steps: max, steps_left: max - turn + 1 }, { kind: 'thought', label: `turn ${turn}` });
    if (!step) {
      history.push({ thought: '', action: '(unusable)', observation: 'That reply could not be used; reply with the JSON object asked for.' });
      run.step('observation', `turn ${turn}`, { text: 'unusable action' });
      continue;
    }
    if (step.action === 'answer' && step.long_answer.trim()) {
      run.step('action', `turn ${turn}: answer`, { answer: step.long_answer });
      return output({ longAnswer: step.long_answer, shortAnswers: step.short_answers, retrieved: pool(found) });
    }
    const query = step.query.trim();
    let observation: string;
    if (step.action !== 'search' || !query) observation = 'That action was incomplete (a search needs a query; an answer needs its text).';
    else if (used.has(query.toLowerCase())) observation = `You already searched for "${query}"; use a different query or answer.`;
    else {
      used.add(query.toLowerCase());
      const hits = await run.search(query, { label: `turn ${turn}: search` });
      found.push(hits);
      observation = numberedPassages(hits);
    }
    run.step('observation', `turn ${turn}`, { text: observation.slice(0, 4000) });
    history.push({ thought: step.thought, action: step.action === 'search' ? `search "${query}"` : step.action, observation });
  }
  // The budget is spent without an answer: one last call that must answer from what was gathered.
  run.note(`no answer within ${max} turns: a final answer was forced`);
  const forced = await run.mustAsk(
    'eval_react',
    { question: run.question, context: `${describeHistory(history)}\n\nNo turns are left: answer now.`, max_steps: max, steps_left: 0 },
    { kind: 'action', label: 'forced answer' },
  );
  if (!forced.long_answer.trim()) throw new ItemFailure(`no answer after ${max} turns and a forced final turn (the model kept choosing "${forced.action}")`);
  return output({ longAnswer: forced.long_answer, shortAnswers: forced.short_answers, retrieved: pool(found) });
}

type ClarionVariant = 'full' | 'no-clarification' | 'no-planning';

/**
 * CLARION (MARCH §4). Planning agent: detect, type, clarify. Acting agent: per interpretation a
 * bounded search / plan / answer loop (plan adds a missed interpretation to the set), then one
 * merged long answer. Ablations: without clarification the analysis is kept but the original
 * question is the only interpretation; without clarification and detection there is no planning.
 */
async function clarion(run: ItemRun, variant: ClarionVariant): Promise<MethodOutput> {
  let analysis = '';
  let questions = [run.question];
  if (variant !== 'no-planning') {
    const detected = await run.mustAsk('eval_clarion_detect', { question: run.question }, { kind: 'plan', label: 'detect and type' });
    analysis = detected.is_ambiguous
      ? `Ambiguity analysis: ${detected.ambiguity_type}; at issue: ${detected.ambiguous_aspects.join('; ') || '(not named)'}; ${detected.clarification_needed}`
      : 'Ambiguity analysis: the question was judged clear.';
    if (variant === 'full' && detected.is_ambiguous && detected.ambiguity_type !== 'none') {
      const clarified = await run.mustAsk(
        'eval_clarion_clarify',
        { question: run.question, analysis: JSON.stringify(detected), max_interpretations: run.env.maxInterpretations },
        { kind: 'plan', label: `clarify (${detected.ambiguity_type})` },
      );
      questions = cleanAnswers(clarified.clarified_questions).slice(0, run.env.maxInterpretations);
    }
  }
  const limit = Math.max(run.env.maxInterpretations, questions.length);
  const interpretations: MethodInterpretation[] = [];
  const numbered: RetrievedPassage[] = [];
  const max = run.env.maxIterations;
  for (let n = 0; n < questions.length; n++) {
    const question = questions[n]!;
    const history: { thought: string; action: string; observation: string }[] = [];
    const used = new Set<string>();
    const mine: RetrievedPassage[] = [];
    let answer: string | null = null;
    let cited: number[] = [];
    for (let turn = 1; turn <= max + 1 && answer === null; turn++) {
      const last = turn > max;
      const step = await run.ask(
        'eval_clarion_act',
        {
          question: run.question,
          analysis,
          interpretations: questions.map((q, i) => `${i + 1}. ${q}`).join('\n'),
          interpretation: question,
          context: `${describeHistory(history)}${last ? '\n\nNo turns are left: answer now.' : ''}`,
          max_steps: max,
          steps_left: last ? 0 : max - turn + 1,
        },
        { kind: 'thought', label: `interpretation ${n + 1}, turn ${turn}` },
      );
      if (!step) {
        history.push({ thought: '', action: '(unusable)', observation: 'That reply could not be used; reply with the JSON object asked for.' });
        continue;
      }
      let observation: string;
      if (step.action === 'answer' || last) {
        if (step.answer.trim()) {
          answer = step.answer.trim();
          cited = step.citations;
          run.step('action', `interpretation ${n + 1}: answer`, { answer });
          break;
        }
        observation = 'An answer needs its text.';
      } else if (step.action === 'plan') {
        const added = cleanAnswers(step.new_interpretations).filter((q) => !questions.some((have) => have.toLowerCase() === q.toLowerCase()));
        const room = Math.max(0, limit - questions.length);
        questions.push(...added.slice(0, room));
        observation = added.length
          ? `Interpretations now: ${questions.length}${added.length > room ? ` (${added.length - room} left out: at most ${limit})` : ''}.`
          : 'No new interpretation was given.';
      } else {
        const query = step.query.trim();
        if (!query) observation = 'A search needs a query.';
        else if (used.has(query.toLowerCase())) observation = `You already searched for "${query}"; use a different query or answer.`;
        else {
          used.add(query.toLowerCase());
          const hits = await run.search(query, { label: `interpretation ${n + 1}, turn ${turn}: search` });
          const offset = numbered.length;
          numbered.push(...hits);
          mine.push(...hits);
          observation = hits.length ? hits.map((h, i) => `[${offset + i + 1}] ${h.title ? `${h.title}: ` : ''}${h.text.slice(0, 1200)}`).join('\n') : '(no passages)';
        }
      }
      run.step('observation', `interpretation ${n + 1}, turn ${turn}`, { text: observation.slice(0, 4000) });
      history.push({ thought: step.thought, action: step.action === 'search' ? `search "${step.query}"` : step.action, observation });
    }
    if (answer === null) run.note(`interpretation ${n + 1}: no answer within ${max} turns`);
    interpretations.push({ question, condition: null, answer, citations: citedKeys(cited, numbered), retrieved: mine });
  }
  const answered = interpretations.filter((i) => i.answer);
  if (answered.length === 0) throw new ItemFailure(`the acting agent found no answer for any of ${interpretations.length} interpretation(s) within ${max} turns each`);
  const merged = await run.mustAsk(
    'eval_clarion_merge',
    { question: run.question, interpretations: interpretations.map((i, n) => `Interpretation ${n + 1}: ${i.question}\nAnswer: ${i.answer ?? '(none found)'}`).join('\n\n') },
    { label: 'merge' },
  );
  return output({
    longAnswer: merged.long_answer,
    shortAnswers: merged.short_answers.length ? merged.short_answers : answered.map((i) => i.answer!),
    citations: [...new Set(interpretations.flatMap((i) => i.citations))],
    interpretations,
  });
}

/** ADF (paper 002): geometry gate on the initial 2k passages, clusters → sub-questions, dual pathway (direct + HyDE), RRF, structured synthesis. */
async function adf(run: ItemRun): Promise<MethodOutput> {
  const { db, adf: thresholds, k } = run.env;
  const initial = await run.search(run.question, { k: 2 * k, label: 'initial retrieval (2k)' });
  const corpusId = run.env.corpus ? (findCorpusByName(db, run.env.corpus)?.id ?? null) : null;
  const model = defaultModelFor(db, corpusId);
  let state: 'ambiguous' | 'uncertain' | 'unambiguous' = 'unambiguous';
  let clusters: RetrievedPassage[][] = [];
  let queryVector: number[] | null = null;
  if (!model) {
    run.note('ADF gate skipped: the corpus has no vectors, so the question was answered as unambiguous');
  } else {
    const vectors = getVectors(
      db,
      model.id,
      initial.map((p) => p.id),
    );
    const withVectors = initial.filter((p) => vectors.has(p.id));
    const v = withVectors.map((p) => [...vectors.get(p.id)!]);
    if (v.length < 4) run.note(`ADF gate: only ${v.length} passages have vectors; clustering is unreliable below 4`);
    const variance = dispersion(v);
    const separability = (v.length >= 2 ? silhouette(v, kMeans(v, 2)) : null) ?? 0;
    state = queryState(variance, separability, { variance: thresholds.varianceThreshold, separation: thresholds.separabilityThreshold });
    run.step('plan', 'geometry gate', { variance, separability, state, passages: v.length, model: model.name });
    if (state !== 'unambiguous' && v.length >= 2) {
      const [embedded] = await embedderFor(db, model).embedQueries([run.question]);
      queryVector = embedded ? [...embedded] : null;
      const assignment = kMeans(v, adaptiveK(v.length));
      const groups = new Map<number, number[]>();
      assignment.forEach((c, i) => groups.set(c, [...(groups.get(c) ?? []), i]));
      for (const [c, members] of groups) {
        const similarity = queryVector ? cosine(queryVector, centroid(members.map((i) => v[i]!))) : 0;
        const kept = similarity >= thresholds.relevanceThreshold;
        run.step('plan', `cluster ${c + 1}`, { passages: members.map((i) => withVectors[i]!.key), similarity, kept });
        if (kept) clusters.push(members.map((i) => withVectors[i]!));
      }
    }
  }
  if (state === 'unambiguous' || clusters.length === 0) {
    const passages = initial.slice(0, k);
    const a = await run.mustAsk('eval_adf_synthesis', { question: run.question, interpretations: '(one)', passages: numberedPassages(passages) }, { label: 'answer (unambiguous)' });
    return output({
      longAnswer: a.long_answer,
      shortAnswers: a.short_answers,
      citations: citedKeys(
        a.interpretations.flatMap((i) => i.citations),
        passages,
      ),
      retrieved: passages,
    });
  }
  clusters = clusters.slice(0, run.env.maxInterpretations);
  const rankings: RetrievedPassage[][] = [];
  const interpretations: MethodInterpretation[] = [];
  for (const [n, cluster] of clusters.entries()) {
    const intent = await run.mustAsk('eval_adf_intent', { question: run.question, passages: numberedPassages(cluster) }, { kind: 'plan', label: `sub-question ${n + 1}` });
    const hyde = await run.ask('eval_adf_hyde', { question: intent.sub_question }, { label: `HyDE ${n + 1}` });
    const direct = await run.search(intent.sub_question, { label: `direct ${n + 1}`, mode: 'bm25', hyde: '' });
    const latent = hyde ? await run.search(intent.sub_question, { label: `latent ${n + 1}`, mode: 'dense', hyde: hyde.passage }) : [];
    rankings.push(direct, latent);
    interpretations.push({ question: intent.sub_question, condition: null, answer: null, citations: [], retrieved: pool([direct, latent]) });
  }
  const byKey = new Map(rankings.flat().map((p) => [p.key, p]));
  const fused = reciprocalRankFusion(rankings.map((r) => r.map((p) => p.key)))
    .slice(0, k)
    .map((f, i) => ({ ...byKey.get(f.id)!, rank: i + 1, score: f.score }));
  run.step('retrieve', 'RRF', { passages: fused.map((p) => ({ key: p.key, score: p.score })) });
  const a = await run.mustAsk(
    'eval_adf_synthesis',
    { question: run.question, interpretations: interpretations.map((i, n) => `${n + 1}. ${i.question}`).join('; '), passages: numberedPassages(fused) },
    { label: 'structured synthesis' },
  );
  a.interpretations.forEach((x, i) => {
    const target = interpretations[i];
    if (target) {
      target.answer = x.answer || null;
      target.citations = citedKeys(x.citations, fused);
    }
  });
  return output({
    longAnswer: a.long_answer,
    shortAnswers: a.short_answers,
    citations: citedKeys(
      a.interpretations.flatMap((i) => i.citations),
      fused,
    ),
    interpretations,
    retrieved: fused,
  });
}

type CondSetting = 'conditions' | 'no-condition' | 'oracle' | 'closed-book';

/** CondAmbigQA (paper 003): answers with citations into the instance's frozen fragment list (retrieved once when it has none). */
async function condAmbigQA(run: ItemRun, setting: CondSetting): Promise<MethodOutput> {
  let fragments: RetrievedPassage[] = [];
  if (setting !== 'closed-book') {
    fragments = fragmentsAsPassages(run.gold.fragments);
    if (fragments.length === 0) {
      run.note('the instance has no frozen fragment list: the top-k passages were retrieved and used as one');
      fragments = await run.search(run.question, { label: 'fragments' });
    }
  }
  const passages = numberedPassages(fragments);
  let answer;
  if (setting === 'conditions') answer = await run.mustAsk('eval_condqa', { question: run.question, passages });
  else if (setting === 'no-condition') answer = await run.mustAsk('eval_condqa_plain', { question: run.question, passages });
  else if (setting === 'closed-book') answer = await run.mustAsk('eval_condqa_closed', { question: run.question });
  else {
    const conditions = run.gold.interpretations.map((i) => i.condition ?? i.question).filter((c): c is string => !!c);
    if (conditions.length === 0) throw new ItemFailure('oracle conditions: the gold has no conditions for this item');
    answer = await run.mustAsk('eval_condqa_oracle', { question: run.question, passages, conditions: conditions.map((c, i) => `${i + 1}. ${c}`).join('\n') });
  }
  const pairs = answer.pairs.filter((p) => p.answer.trim());
  return output({
    longAnswer: conditionalLongAnswer(pairs) || '(no answer)',
    shortAnswers: pairs.map((p) => p.answer),
    citations: citedKeys(
      pairs.flatMap((p) => p.citations),
      fragments,
    ),
    // The no-condition setting states no conditions, whatever the model put in the field.
    interpretations: pairs.map((p) => ({ question: run.question, condition: setting === 'no-condition' ? null : p.condition || null, answer: p.answer, citations: citedKeys(p.citations, fragments), retrieved: [] })),
    retrieved: setting === 'closed-book' ? [] : fragments,
  });
}

export function runMethod(method: EvalMethod, run: ItemRun): Promise<MethodOutput> {
  switch (method) {
    case 'no-retrieval':
      return noRetrieval(run);
    case 'cot':
      return cot(run);
    case 'naive-rag':
      return rag(run, false);
    case 'cot-rag':
      return rag(run, true);
    case 'diva':
      return diva(run);
    case 'react':
      return react(run);
    case 'clarion':
      return clarion(run, 'full');
    case 'clarion-no-clarification':
      return clarion(run, 'no-clarification');
    case 'clarion-no-planning':
      return clarion(run, 'no-planning');
    case 'adf':
      return adf(run);
    case 'condqa':
      return condAmbigQA(run, 'conditions');
    case 'condqa-no-condition':
      return condAmbigQA(run, 'no-condition');
    case 'condqa-oracle':
      return condAmbigQA(run, 'oracle');
    case 'condqa-closed-book':
      return condAmbigQA(run, 'closed-book');
  }
}
