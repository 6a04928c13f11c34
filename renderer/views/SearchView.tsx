import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { useLocation, useSearch } from 'wouter';
import { SEARCH_MODES, type SearchHit, type SearchMode } from '../../shared/api';
import { matchRanges } from '../../shared/search';
import { call } from '../api';
import { ErrorNotice, plural, wordCut } from '../components/bits';
import { Highlight } from '../components/Highlight';
import { useKeys } from '../hooks';
import { useJobs, useOp } from '../query';
import { JobLine } from './ImportView';
import { OpButton } from '../access';

interface SearchState {
  q: string;
  mode: SearchMode;
  k: number;
  corpus: string;
  hyde: string;
}

function parse(search: string): SearchState {
  const p = new URLSearchParams(search);
  const mode = p.get('mode');
  const k = Number(p.get('k') ?? 10);
  return {
    q: p.get('q') ?? '',
    mode: (SEARCH_MODES as readonly string[]).includes(mode ?? '') ? (mode as SearchMode) : 'hybrid',
    k: Number.isInteger(k) && k > 0 && k <= 200 ? k : 10,
    corpus: p.get('corpus') ?? '',
    hyde: p.get('hyde') ?? '',
  };
}

function toSearch(state: SearchState): string {
  const p = new URLSearchParams();
  if (state.q) p.set('q', state.q);
  if (state.mode !== 'hybrid') p.set('mode', state.mode);
  if (state.k !== 10) p.set('k', String(state.k));
  if (state.corpus) p.set('corpus', state.corpus);
  if (state.hyde) p.set('hyde', state.hyde);
  const text = p.toString();
  return text ? `?${text}` : '';
}

const MODE_LABEL: Record<SearchMode, string> = { bm25: 'BM25', dense: 'Dense', hybrid: 'Hybrid (RRF)' };

/** ADF's retrieval states, in words. */
const STATE_MEANING: Record<'ambiguous' | 'uncertain' | 'unambiguous', string> = {
  ambiguous: 'top passages split in two groups: several interpretations likely',
  uncertain: 'top passages spread out, but in no two groups',
  unambiguous: 'top passages agree',
};

function ScoreBar({ value, max, label }: { value: number; max: number; label: string }) {
  return (
    <span className="score" title={label}>
      <span className="score-bar" style={{ width: `${Math.max(4, (value / (max || 1)) * 60)}px` }} />
      {label}
    </span>
  );
}

function Hit({ hit, terms, maxScore, mode }: { hit: SearchHit; terms: string; maxScore: number; mode: SearchMode }) {
  const [open, setOpen] = useState(false);
  const marks = matchRanges(hit.passage.text, terms, { prefix: false }).map((r) => ({ ...r, className: '' }));
  const text = hit.passage.text;
  const first = marks[0]?.start ?? 0;
  // Start a little before the first match and end near 420 characters on, both between words.
  const space = first > 120 ? text.lastIndexOf(' ', first - 120) : -1;
  const start = open || space < 0 ? 0 : space + 1;
  const end = open ? text.length : wordCut(text, start + 420, start + 300);
  const shown = text.slice(start, end);
  return (
    <article className="passage search-hit" data-testid="search-hit">
      <div className="passage-head">
        <span className="rank">#{hit.rank}</span>
        <span className="title">
          <Highlight text={hit.passage.title || 'untitled'} marks={matchRanges(hit.passage.title, terms, { prefix: false }).map((r) => ({ ...r, className: '' }))} />
        </span>
        <span className="src">{hit.passage.corpus}{hit.passage.sourceId ? ` · ${hit.passage.sourceId}` : ''}</span>
      </div>
      <div className="passage-text">
        {start > 0 ? '… ' : ''}
        <Highlight text={shown} marks={marks.filter((m) => m.start >= start && m.end <= end).map((m) => ({ ...m, start: m.start - start, end: m.end - start }))} />
        {end < text.length ? ' … ' : ' '}
        {open || start > 0 || end < text.length ? (
          <button type="button" className="more" onClick={() => setOpen(!open)}>
            {open ? 'less' : 'show all'}
          </button>
        ) : null}
      </div>
      <div className="meta small" data-testid="score-breakdown">
        <ScoreBar value={hit.score} max={maxScore} label={`${mode === 'hybrid' ? 'RRF' : mode === 'dense' ? 'cosine' : 'BM25'} ${hit.score.toFixed(mode === 'hybrid' ? 4 : 3)}`} />
        {hit.bm25 ? <span className="chip">BM25 #{hit.bm25.rank} · {hit.bm25.score.toFixed(2)}</span> : mode !== 'dense' ? <span className="chip muted">not in BM25 top</span> : null}
        {hit.dense ? <span className="chip">dense #{hit.dense.rank} · {hit.dense.score.toFixed(3)}</span> : mode !== 'bm25' ? <span className="chip muted">not in dense top</span> : null}
      </div>
    </article>
  );
}

function Corpora() {
  const corpora = useOp('corpus:list', {});
  const jobs = useJobs();
  const embedding = jobs.filter((j) => j.kind === 'embed' && j.state === 'running');
  return (
    <section className="corpora" aria-label="Corpora">
      <h3>Corpora</h3>
      {(corpora.data ?? []).map((c) => (
        <div key={c.id} className="small">
          <strong>{c.name}</strong> · {plural(c.passages, 'passage')}
          {c.models.length ? (
            c.models.map((m) => (
              <div key={m.name} className="muted">
                {plural(m.vectors, 'vector')} · {m.lexical ? 'offline (lexical)' : m.name} · {m.dimensions}d
              </div>
            ))
          ) : (
            <div>
              <span className="muted">no vectors </span>
              <OpButton operation="corpus:embed" className="button small" onClick={() => void call('corpus:embed', { corpus: c.name })}>
                Embed offline
              </OpButton>
            </div>
          )}
        </div>
      ))}
      {embedding.map((job) => (
        <JobLine key={job.id} job={job} />
      ))}
    </section>
  );
}

/** The ambiguity cues of the question searched for (computed on request: they cost several searches). */
function CuesPanel({ query, corpus, shown, onShow }: { query: string; corpus: string; shown: boolean; onShow: () => void }) {
  const cues = useOp('retrieval:cues', shown && query.trim() ? { query, ...(corpus ? { corpus } : {}) } : null);
  return (
    <aside className="card cues" aria-label="Ambiguity cues">
      <h2>Ambiguity cues</h2>
      {!shown ? (
        <button type="button" className="button small" onClick={onShow} disabled={!query.trim()}>
          Compute for this question
        </button>
      ) : null}
      <ErrorNotice error={cues.error} />
      {cues.data ? (
        <dl className="kv" data-testid="cues">
          <dt title="Passages matching every content word of the literal query">total hits H(q)</dt>
          <dd>{cues.data.constraint.totalHits.toLocaleString('en-US')}</dd>
          <dt title="How far the top passages' words are from the corpus's">KL divergence</dt>
          <dd>{cues.data.constraint.klDivergence === null ? 'undefined (no passages)' : cues.data.constraint.klDivergence.toFixed(3)}</dd>
          <dt title="Largest fold increase in hits after dropping one number, date or quoted span">relax-delta ratio</dt>
          <dd>
            {cues.data.constraint.relaxDeltaRatio.toFixed(2)}
            {cues.data.constraint.constraints.length ? (
              <div className="small muted">
                {cues.data.constraint.constraints.map((c) => `without ${c.text}: ${plural(c.hits_without, 'hit')}`).join(' · ')}
              </div>
            ) : (
              <div className="small muted">no number, date or quoted span to drop</div>
            )}
          </dd>
          {cues.data.geometry ? (
            <>
              <dt title="Spread of the top passages' vectors around their centroid (ADF)">dispersion σ²</dt>
              <dd>
                {cues.data.geometry.dispersion.toFixed(3)} <span className="small muted">(high from τ {cues.data.geometry.thresholds.variance})</span>
              </dd>
              <dt title="Mean silhouette of a 2-means split of the top passages (ADF)">separation</dt>
              <dd>
                {cues.data.geometry.separation === null ? (
                  'undefined (fewer than 3 passages)'
                ) : (
                  <>
                    {cues.data.geometry.separation.toFixed(3)} <span className="small muted">(two groups from τ {cues.data.geometry.thresholds.separation})</span>
                  </>
                )}
              </dd>
              <dt>retrieval state</dt>
              <dd>
                <strong className={cues.data.geometry.state === 'unambiguous' ? 'flag-ok' : 'flag-warn'}>{cues.data.geometry.state}</strong>
                <div className="small muted">{STATE_MEANING[cues.data.geometry.state]}</div>
              </dd>
            </>
          ) : (
            <>
              <dt>geometry</dt>
              <dd className="muted">needs vectors: embed the corpus</dd>
            </>
          )}
        </dl>
      ) : cues.isFetching ? (
        <div className="muted small">computing…</div>
      ) : null}
      <p className="small muted">
        Low hits, high KL divergence and a high relax ratio together point to an over-specific question (constraint ambiguity); a separable
        retrieval set points to several interpretations.
      </p>
      <Corpora />
    </aside>
  );
}

/** The query, the ranking, the corpus, how many, and an optional HyDE passage. */
function SearchForm({
  draft,
  setDraft,
  submit,
  input,
  hydeOpen,
}: {
  draft: SearchState;
  setDraft: (state: SearchState) => void;
  submit: (state: SearchState) => void;
  input: RefObject<HTMLInputElement | null>;
  /** Open when the URL has a HyDE passage. */
  hydeOpen: boolean;
}) {
  const corpora = useOp('corpus:list', {});
  return (
    <>
      <form
        className="search-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit(draft);
        }}
      >
        <div className="search" style={{ maxWidth: 'none' }}>
          <input
            ref={input}
            className="input"
            aria-label="Query"
            placeholder="Ask a question or type keywords  ( / )"
            value={draft.q}
            onChange={(e) => setDraft({ ...draft, q: e.target.value })}
          />
        </div>
        <div className="segmented" role="radiogroup" aria-label="Ranking">
          {SEARCH_MODES.map((mode) => (
            <button
              key={mode}
              type="button"
              role="radio"
              aria-checked={draft.mode === mode}
              className={draft.mode === mode ? 'active' : ''}
              onClick={() => submit({ ...draft, mode })}
            >
              {MODE_LABEL[mode]}
            </button>
          ))}
        </div>
        <select className="input" aria-label="Corpus" value={draft.corpus} onChange={(e) => submit({ ...draft, corpus: e.target.value })}>
          <option value="">all corpora</option>
          {(corpora.data ?? []).map((c) => (
            <option key={c.id} value={c.name}>
              {c.name} ({c.passages.toLocaleString('en-US')})
            </option>
          ))}
        </select>
        <label className="check small">
          top
          <input className="input" style={{ width: 56 }} type="number" min={1} max={200} value={draft.k} onChange={(e) => setDraft({ ...draft, k: Number(e.target.value) || 10 })} />
        </label>
        <button type="submit" className="button primary">
          Search
        </button>
      </form>
      <details open={hydeOpen}>
        <summary className="small muted">HyDE: search the vectors with a hypothetical answer passage instead of the question</summary>
        <textarea
          className="input"
          style={{ width: '100%', height: 64, marginTop: 6, padding: 8 }}
          aria-label="Hypothetical passage"
          value={draft.hyde}
          onChange={(e) => setDraft({ ...draft, hyde: e.target.value })}
          placeholder="A short passage that would answer the question; BM25 still uses the question."
        />
      </details>
    </>
  );
}

export function SearchView() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const state = useMemo(() => parse(search), [search]);
  const [draft, setDraft] = useState(state);
  const [showCues, setShowCues] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setDraft(state), [state]);
  const request = state.q.trim() || state.hyde.trim()
    ? { query: state.q, mode: state.mode, k: state.k, ...(state.corpus ? { corpus: state.corpus } : {}), ...(state.hyde ? { hyde: state.hyde } : {}) }
    : null;
  const result = useOp('retrieval:search', request);
  const submit = (next: SearchState) => navigate(`/search${toSearch(next)}`);
  useKeys((event) => {
    if (event.key === '/' && document.activeElement !== input.current) {
      event.preventDefault();
      input.current?.focus();
    }
  });
  const data = result.data;
  const maxScore = Math.max(0, ...(data?.hits ?? []).map((h) => h.score));
  const terms = (data?.terms ?? []).join(' ');

  return (
    <div className="page">
      <div className="page-inner">
        <SearchForm draft={draft} setDraft={setDraft} submit={submit} input={input} hydeOpen={Boolean(state.hyde)} />
        <ErrorNotice error={result.error} />
        {data ? (
          <div className="search-layout">
            <section className="search-results" aria-label="Results">
              <div className="meta small">
                <span data-testid="search-summary">
                  {plural(data.hits.length, 'passage')} · {MODE_LABEL[data.mode]} · {data.milliseconds.toFixed(1)} ms
                </span>
                {data.model ? (
                  <span title="The model whose vectors the dense ranking used">
                    dense model: <span className="mono">{data.model}</span>
                    {data.lexicalModel ? <span className="chip warn-chip">lexical (word and word-piece overlap, not meaning)</span> : null}
                  </span>
                ) : null}
                {data.terms.length ? <span>BM25 words: {data.terms.join(', ')}</span> : null}
              </div>
              {data.notes.map((note) => (
                <div key={note} className="notice warn small">
                  {note}
                </div>
              ))}
              {data.hits.length === 0 ? <div className="empty">No passage matches.</div> : null}
              {data.hits.map((hit) => (
                <Hit key={hit.passage.id} hit={hit} terms={terms} maxScore={maxScore} mode={data.mode} />
              ))}
            </section>
            <CuesPanel query={state.q} corpus={state.corpus} shown={showCues} onShow={() => setShowCues(true)} />
          </div>
        ) : !request ? (
          <div className="search-start">
            <div className="empty">Search the passage corpora: BM25 (FTS5), dense vectors (sqlite-vec), or both fused.</div>
            <Corpora />
          </div>
        ) : null}
      </div>
    </div>
  );
}
