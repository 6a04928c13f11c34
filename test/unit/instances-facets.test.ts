import { beforeAll, describe, expect, it } from 'vitest';
import { instanceFacetCounts, instanceFacetSteps, type FacetCounts } from '../../db/queries/instances-facets';
import { conditions, type FacetName, where } from '../../db/queries/instances-filters';
import { all, sql, type WritableDB } from '../../db/sql';
import { DOMAIN_SLUGS } from '../../shared/domain';
import { instanceFacets, instancePage } from '../../electron/services/browse';
import { InstanceFilter, InstanceQuery } from '../../shared/api';
import { toFtsQuery } from '../../shared/search';
import { memoryDb } from '../helpers/db';
import { fillInstances, rng } from '../helpers/synthetic';

/**
 * The counts beside the instance table under a search, summed from one pass over the matches
 * grouped by the five facet columns, against two independent answers: the rows themselves counted
 * in the test, and the six queries the counts were taken with before (one per facet, each under
 * the other filters, and the total).
 */

interface Row { id: number; dataset_id: number; ambiguity_type: string; status: string; hops: number | null; domain: string | null }

let db: WritableDB;
let rows: Row[];
const texts = new Map<number, string>();

beforeAll(() => {
  db = memoryDb();
  fillInstances(db, 3_000, 5, false, (id, question, interpretations) => texts.set(id, `${question} ${interpretations}`));
  // Topics on two thirds of the instances (the rest have none), through the table's own triggers.
  const random = rng(3);
  const setDomain = db.prepare('UPDATE instances SET domain = ? WHERE id = ?');
  db.transaction(() => {
    for (let id = 1; id <= 3_000; id++) if (random() < 0.66) setDomain.run(DOMAIN_SLUGS[Math.floor(random() * 4)]!, id);
  })();
  rows = all<Row>(db, sql`SELECT id, dataset_id, ambiguity_type, status, hops, domain FROM instances ORDER BY id`);
});

function matches(search: string): Set<number> {
  const fts = toFtsQuery(search, { prefixLast: true });
  if (fts === null) return new Set(rows.map((r) => r.id));
  return new Set(all<{ rowid: number }>(db, sql`SELECT rowid FROM instances_fts WHERE instances_fts MATCH ${fts}`).map((r) => r.rowid));
}

/** The counts worked out from the rows in the test. */
function counted(filter: InstanceFilter): FacetCounts {
  const found = matches(filter.search);
  const keeps: Record<FacetName, (r: Row) => boolean> = {
    datasets: (r) => !filter.datasets.length || filter.datasets.includes(r.dataset_id),
    types: (r) => !filter.types.length || (filter.types as string[]).includes(r.ambiguity_type),
    statuses: (r) => !filter.statuses.length || (filter.statuses as string[]).includes(r.status),
    hops: (r) => !filter.hops.length || (r.hops === null ? filter.hops.includes(0) : filter.hops.includes(r.hops)),
    domains: (r) => !filter.domains.length || (filter.domains as string[]).includes(r.domain ?? 'none'),
  };
  const names = Object.keys(keeps) as FacetName[];
  const kept = (r: Row, except?: FacetName) => found.has(r.id) && names.every((n) => n === except || keeps[n](r));
  const tally = <V>(facet: FacetName, value: (r: Row) => V) => {
    const sums = new Map<V, number>();
    for (const r of rows) if (kept(r, facet)) sums.set(value(r), (sums.get(value(r)) ?? 0) + 1);
    const order = (v: V) => (v === null || v === 'none' ? '' : typeof v === 'number' ? String(v).padStart(6, '0') : String(v));
    return [...sums].map(([v, count]) => ({ value: v, count })).sort((a, b) => (order(a.value) < order(b.value) ? -1 : 1));
  };
  return {
    total: rows.filter((r) => kept(r)).length,
    datasets: tally('datasets', (r) => r.dataset_id),
    types: tally('types', (r) => r.ambiguity_type) as FacetCounts['types'],
    statuses: tally('statuses', (r) => r.status) as FacetCounts['statuses'],
    hops: tally('hops', (r) => r.hops),
    domains: tally('domains', (r) => r.domain ?? 'none') as FacetCounts['domains'],
  };
}

/** The counts as they were taken before: one query per facet under the other filters, and the total. */
function perFacetQueries(filter: InstanceFilter): FacetCounts {
  const facet = <V>(column: string, name: FacetName) =>
    all<{ value: V; count: number }>(db, sql`SELECT i.${sql.id(column)} AS value, count(*) AS count FROM instances i ${where(conditions(filter, name))} GROUP BY value ORDER BY value`);
  return {
    total: all<{ n: number }>(db, sql`SELECT count(*) AS n FROM instances i ${where(conditions(filter))}`)[0]!.n,
    datasets: facet('dataset_id', 'datasets'),
    types: facet('ambiguity_type', 'types'),
    statuses: facet('status', 'statuses'),
    hops: facet('hops', 'hops'),
    domains: facet<string | null>('domain', 'domains').map((d) => ({ ...d, value: (d.value ?? 'none') as FacetCounts['domains'][number]['value'] })),
  };
}

function randomFilter(random: () => number): InstanceFilter {
  const some = <T>(values: readonly T[]) => values.filter(() => random() < 0.3);
  const text = texts.get(1 + Math.floor(random() * 3_000))!.split(' ');
  const word = text[1 + Math.floor(random() * (text.length - 1))]!.replace(/\W/g, '');
  const search = [word, word.slice(0, 1 + Math.floor(random() * 3)), `${word} ${text[2]!.slice(0, 2)}`, 'what', 'zzzz'][Math.floor(random() * 5)]!;
  return InstanceFilter.parse({
    search,
    datasets: some([1, 2]),
    types: some(['semantic', 'syntactic', 'constraint']),
    statuses: some(['building', 'ready', 'removed']),
    hops: some([0, 2, 3, 4]),
    domains: some([...DOMAIN_SLUGS.slice(0, 4), 'none']),
  });
}

describe('facet counts under a search', () => {
  it('equal the rows counted in the test and the per-facet queries, for random filters', () => {
    const random = rng(17);
    let broad = 0;
    for (let i = 0; i < 60; i++) {
      const filter = randomFilter(random);
      const got = instanceFacetCounts(db, filter);
      expect(got, JSON.stringify(filter)).toEqual(counted(filter));
      expect(got, JSON.stringify(filter)).toEqual(perFacetQueries(filter));
      if (matches(filter.search).size > 1_000 && got.total > 0) broad++;
    }
    expect(broad).toBeGreaterThan(3);
  });

  it('are the same taken in many small steps as in one', () => {
    const filter = InstanceFilter.parse({ search: 'what', statuses: ['ready'] });
    const steps = instanceFacetSteps(db, filter, 64);
    let taken = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) taken++;
    expect(taken).toBeGreaterThan(3);
    expect(step.value).toEqual(instanceFacetCounts(db, filter));
    expect(step.value.total).toBe(rows.filter((r) => r.status === 'ready').length);
  });

  it('are empty on an empty table, and a search matching nothing counts nothing', () => {
    const empty = memoryDb();
    expect(instanceFacetCounts(empty, InstanceFilter.parse({ search: 'what' }))).toEqual({ total: 0, datasets: [], types: [], statuses: [], hops: [], domains: [] });
    expect(instanceFacetCounts(db, InstanceFilter.parse({ search: 'zzzzqq' })).total).toBe(0);
  });
});

describe('facet counts in the services', () => {
  it('let another request run between their steps under a broad search', async () => {
    const big = memoryDb();
    fillInstances(big, 20_000, 8);
    const order: string[] = [];
    const facets = instanceFacets(big, InstanceFilter.parse({ search: 'what' })).then((f) => {
      order.push('facets');
      return f;
    });
    // A page asked for after the counts started (on a later turn of the event loop, as a request
    // from the network would come) answers before they end.
    const page = new Promise<void>((resolve) =>
      setTimeout(() => {
        instancePage(big, InstanceQuery.parse({ limit: 10 }));
        order.push('page');
        resolve();
      }, 0),
    );
    const [counted] = await Promise.all([facets, page]);
    expect(counted.total).toBe(20_000);
    expect(order).toEqual(['page', 'facets']);
  });
});
