import {
  BASE_QUESTION_SORT_COLUMNS,
  INSTANCE_SORT_COLUMNS,
  type BaseQuestionQuery,
  type InstanceQuery,
} from '../shared/api';
import { AMBIGUITY_TYPES, ANSWERABILITY_LABELS, DOMAIN_SLUGS, INSTANCE_STATUSES, type AmbiguityType, type InstanceStatus } from '../shared/domain';

/**
 * The browse views keep their whole state in the URL (`?type=semantic&hops=2&q=ford&sort=hops&dir=desc`)
 * so every view can be bookmarked, shared and reached with back/forward. These functions turn
 * such a query string into an API query and back. The sort defaults to the table's order (`id`),
 * with a search as without: the operations' own default, so a URL and a CLI call with the same
 * filters list the same rows. Best match is `sort=relevance`.
 */

export type InstanceListState = Omit<InstanceQuery, 'offset' | 'limit'>;
export type BaseQuestionListState = Omit<BaseQuestionQuery, 'offset' | 'limit'>;

function numbers(params: URLSearchParams, key: string): number[] {
  return params
    .getAll(key)
    .flatMap((v) => v.split(','))
    .map(Number)
    .filter((n) => Number.isInteger(n) && n >= 0);
}

function oneOf<T extends string>(values: readonly T[], value: string | null, fallback: T): T {
  return value !== null && (values as readonly string[]).includes(value) ? (value as T) : fallback;
}

function listOf<T extends string>(values: readonly T[], params: URLSearchParams, key: string): T[] {
  return params
    .getAll(key)
    .flatMap((v) => v.split(','))
    .filter((v): v is T => (values as readonly string[]).includes(v));
}

export function parseInstanceParams(search: string): InstanceListState {
  const params = new URLSearchParams(search);
  const q = params.get('q') ?? '';
  return {
    datasets: numbers(params, 'dataset'),
    types: listOf<AmbiguityType>(AMBIGUITY_TYPES, params, 'type'),
    statuses: listOf<InstanceStatus>(INSTANCE_STATUSES, params, 'status'),
    hops: numbers(params, 'hops'),
    domains: listOf<InstanceListState['domains'][number]>([...DOMAIN_SLUGS, 'none'], params, 'domain'),
    search: q,
    sort: oneOf(INSTANCE_SORT_COLUMNS, params.get('sort'), 'id'),
    direction: params.get('dir') === 'desc' ? 'desc' : 'asc',
  };
}

export function parseBaseQuestionParams(search: string): BaseQuestionListState {
  const params = new URLSearchParams(search);
  const q = params.get('q') ?? '';
  return {
    datasets: numbers(params, 'dataset'),
    hops: numbers(params, 'hops'),
    answerability: listOf<BaseQuestionListState['answerability'][number]>([...ANSWERABILITY_LABELS, 'unlabelled'], params, 'answerability'),
    search: q,
    sort: oneOf(BASE_QUESTION_SORT_COLUMNS, params.get('sort'), 'id'),
    direction: params.get('dir') === 'desc' ? 'desc' : 'asc',
  };
}

/** The query string for a list state, leaving defaults out so URLs stay short. */
export function listStateToSearch(state: InstanceListState | BaseQuestionListState): string {
  const params = new URLSearchParams();
  if (state.datasets.length) params.set('dataset', state.datasets.join(','));
  if ('types' in state && state.types.length) params.set('type', state.types.join(','));
  if ('statuses' in state && state.statuses.length) params.set('status', state.statuses.join(','));
  if (state.hops.length) params.set('hops', state.hops.join(','));
  if ('domains' in state && state.domains.length) params.set('domain', state.domains.join(','));
  if ('answerability' in state && state.answerability.length) params.set('answerability', state.answerability.join(','));
  if (state.search) params.set('q', state.search);
  if (state.sort !== 'id') params.set('sort', state.sort);
  if (state.direction === 'desc') params.set('dir', 'desc');
  const text = params.toString();
  return text ? `?${text}` : '';
}
