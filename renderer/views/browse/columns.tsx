import type { BaseQuestionRow, InstanceRow } from '../../../shared/api';
import { matchRanges } from '../../../shared/search';
import type { Column } from '../../components/DataTable';
import { Highlight } from '../../components/Highlight';
import { StatusWord, TypeTag } from '../../components/bits';

/** The columns of the two tables (instances, base questions), sized to fit a 1440-px window together. */

/** Cell text with the search words marked; the whole text on hover, as the cell cuts it short. */
function SearchText({ text, query }: { text: string; query: string }) {
  return (
    <span title={text}>
      <Highlight text={text} marks={matchRanges(text, query).map((r) => ({ ...r, className: '' }))} />
    </span>
  );
}

/** A cell that may be cut short, with its whole text on hover. */
function Clipped({ text, mono = false }: { text: string; mono?: boolean }) {
  return (
    <span className={mono ? 'mono' : undefined} title={text}>
      {text}
    </span>
  );
}

/** The columns both tables have: a row with an id, a question, hops, a dataset and a source id. */
interface QuestionRow {
  id: number;
  question: string;
  hops: number | null;
  dataset: string;
  sourceId: string;
}

function idColumn<Row extends QuestionRow>(): Column<Row> {
  return { id: 'id', header: 'ID', accessorKey: 'id', meta: { width: '72px', numeric: true, sortKey: 'id', label: 'ID' } };
}

function questionColumn<Row extends QuestionRow>(search: string): Column<Row> {
  return {
    id: 'question',
    header: 'Question',
    cell: ({ row }) => <SearchText text={row.original.question} query={search} />,
    // The question takes what the other columns leave: they are sized to fit a 1440-px window.
    meta: { width: 'minmax(200px, 1fr)', sortKey: 'question', label: 'question' },
  };
}

function hopsColumn<Row extends QuestionRow>(): Column<Row> {
  return { id: 'hops', header: 'Hops', cell: ({ row }) => row.original.hops ?? '–', meta: { width: '60px', numeric: true, sortKey: 'hops', label: 'hops' } };
}

function sourceColumns<Row extends QuestionRow>(sourceWidth: string): Column<Row>[] {
  return [
    { id: 'dataset', header: 'Dataset', cell: ({ row }) => <Clipped text={row.original.dataset} />, meta: { width: '172px', sortKey: 'dataset', label: 'dataset' } },
    { id: 'source', header: 'Source ID', cell: ({ row }) => <Clipped text={row.original.sourceId} mono />, meta: { width: sourceWidth, sortKey: 'source_id', label: 'source ID' } },
  ];
}

export function instanceColumns(search: string): Column<InstanceRow>[] {
  return [
    idColumn(),
    questionColumn(search),
    { id: 'type', header: 'Type', cell: ({ row }) => <TypeTag type={row.original.ambiguityType} />, meta: { width: '116px', sortKey: 'ambiguity_type', label: 'type' } },
    { id: 'status', header: 'Status', cell: ({ row }) => <StatusWord status={row.original.status} />, meta: { width: '96px', sortKey: 'status', label: 'status' } },
    {
      id: 'interpretations',
      header: 'Interpretations',
      accessorKey: 'interpretationCount',
      meta: { width: '136px', numeric: true, sortKey: 'interpretation_count', label: 'interpretations' },
    },
    hopsColumn(),
    ...sourceColumns<InstanceRow>('170px'),
    { id: 'stage', header: 'Stage', accessorKey: 'stage', meta: { width: '90px', sortKey: 'stage', label: 'stage' } },
    {
      id: 'updated',
      header: 'Updated',
      cell: ({ row }) => row.original.updatedAt.slice(0, 16).replace('T', ' '),
      meta: { width: '130px', sortKey: 'updated_at', label: 'updated' },
    },
  ];
}

export function baseQuestionColumns(search: string): Column<BaseQuestionRow>[] {
  return [
    idColumn(),
    questionColumn(search),
    {
      id: 'answer',
      header: 'Answer',
      cell: ({ row }) => (row.original.answer !== null ? <Clipped text={row.original.answer} /> : <span className="muted">–</span>),
      meta: { width: '200px', sortKey: 'answer', label: 'answer' },
    },
    hopsColumn(),
    { id: 'instances', header: 'Instances', accessorKey: 'instanceCount', meta: { width: '84px', numeric: true, label: 'instances' } },
    ...sourceColumns<BaseQuestionRow>('190px'),
  ];
}
