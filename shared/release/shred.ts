import { parquetSchema, type Field, type ParquetSchemaElement } from './schema';

/**
 * Record shredding (the Dremel striping algorithm) for the release schema, in one walk over each
 * row for all leaf columns at once. hyparquet-writer's own encoder walks every row once per leaf
 * column (37 here) and re-derives the schema at each step; this compiles the schema once into a
 * tree of nodes that know their leaves and levels. The output per leaf is what hyparquet-writer's
 * `encodeNestedValues` returns for the same rows (a test checks this on every column), so the
 * bytes written are the same.
 */

export interface LeafColumn {
  /** Dotted path in the Parquet schema, e.g. `interpretations.list.element.status`. */
  name: string;
  /** Schema elements from the root to the leaf. */
  schemaPath: ParquetSchemaElement[];
  maxDefinitionLevel: number;
}

/** A leaf's column for a row group: levels as bytes (they are small numbers), values as given. */
export interface LeafData {
  values: unknown[];
  definitionLevels: Uint8Array;
  repetitionLevels: Uint8Array;
  maxDefinitionLevel: number;
}

/** Levels of one leaf as they are shredded: bytes in a buffer kept from one row group to the next. */
class Levels {
  private bytes = new Uint8Array(4096);
  length = 0;

  push(level: number): void {
    if (this.length === this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes[this.length++] = level;
  }

  /** The levels so far (a copy), and empty again. */
  take(): Uint8Array {
    const out = this.bytes.slice(0, this.length);
    this.length = 0;
    return out;
  }
}

/** What a leaf gathers until the row group is taken. */
interface Gathering {
  values: unknown[];
  definitionLevels: Levels;
  repetitionLevels: Levels;
}

type Node =
  | { kind: 'leaf'; name: string; optional: boolean; leaf: number }
  | { kind: 'struct'; name: string; optional: boolean; children: Node[]; leaves: number[] }
  | { kind: 'list'; name: string; optional: boolean; element: Node; leaves: number[]; repeatLevel: number };

function leavesOf(node: Node): number[] {
  return node.kind === 'leaf' ? [node.leaf] : node.leaves;
}

export class Shredder {
  readonly leaves: LeafColumn[] = [];
  private readonly roots: Node[];
  private data: Gathering[] = [];

  constructor(columns: readonly Field[]) {
    const schema = parquetSchema(columns);
    let next = 1; // schema[0] is the root
    const build = (field: Field, optional: boolean, path: ParquetSchemaElement[], def: number, rep: number): Node => {
      const element = schema[next++]!;
      const here = [...path, element];
      const defHere = def + (optional ? 1 : 0);
      if ('type' in field) {
        this.leaves.push({ name: here.map((e) => e.name).join('.'), schemaPath: [schema[0]!, ...here], maxDefinitionLevel: defHere });
        return { kind: 'leaf', name: field.name, optional, leaf: this.leaves.length - 1 };
      }
      if ('struct' in field) {
        const children = field.struct.map((child) => build(child, child.optional === true, here, defHere, rep));
        return { kind: 'struct', name: field.name, optional, children, leaves: children.flatMap(leavesOf) };
      }
      const repeated = schema[next++]!; // the repeated `list` group
      const inner: Field = typeof field.list === 'string' ? { name: 'element', type: field.list, doc: '' } : { name: 'element', struct: field.list, doc: '' };
      const item = build(inner, false, [...here, repeated], defHere + 1, rep + 1);
      return { kind: 'list', name: field.name, optional, element: item, leaves: leavesOf(item), repeatLevel: rep + 1 };
    };
    this.roots = columns.map((column) => build(column, column.optional === true, [], 0, 0));
    if (this.leaves.some((leaf) => leaf.maxDefinitionLevel > 255)) throw new Error('parquet schema nested too deep for byte levels');
  }

  /** The leaf columns' levels and values for these rows. */
  shred(rows: readonly Record<string, unknown>[]): LeafData[] {
    this.start();
    for (const row of rows) this.add(row);
    return this.take();
  }

  /**
   * Row by row: `start`, `add` each row, `take` the columns. A row's objects are not kept (only
   * its leaf values), so they die young instead of surviving until the whole group is encoded.
   */
  start(): void {
    if (this.data.length !== this.leaves.length) this.data = this.leaves.map(() => ({ values: [], definitionLevels: new Levels(), repetitionLevels: new Levels() }));
    for (const data of this.data) {
      data.values = [];
      data.definitionLevels.length = 0;
      data.repetitionLevels.length = 0;
    }
  }

  add(row: Record<string, unknown>): void {
    for (const root of this.roots) this.visit(root, row[root.name], 0, 0);
  }

  take(): LeafData[] {
    const out = this.leaves.map((leaf, i): LeafData => {
      const data = this.data[i]!;
      return { values: data.values, definitionLevels: data.definitionLevels.take(), repetitionLevels: data.repetitionLevels.take(), maxDefinitionLevel: leaf.maxDefinitionLevel };
    });
    // Top-level scalars carry no repetition levels, and required ones no definition levels either.
    for (const root of this.roots) {
      if (root.kind !== 'leaf') continue;
      const data = out[root.leaf]!;
      data.repetitionLevels = new Uint8Array(0);
      if (!root.optional) data.definitionLevels = new Uint8Array(0);
    }
    for (const data of this.data) data.values = [];
    return out;
  }

  /** Every leaf below `node` gets an absent value at these levels. */
  private absent(node: Node, def: number, rep: number): void {
    for (const leaf of leavesOf(node)) {
      const data = this.data[leaf]!;
      data.definitionLevels.push(def);
      data.repetitionLevels.push(rep);
      data.values.push(undefined);
    }
  }

  private visit(node: Node, value: unknown, def: number, rep: number): void {
    const missing = value === null || value === undefined;
    if (missing && !node.optional) throw new Error(`parquet required value ${node.name} is missing`);
    if (node.kind === 'leaf') {
      const data = this.data[node.leaf]!;
      data.definitionLevels.push(missing ? def : def + (node.optional ? 1 : 0));
      data.repetitionLevels.push(rep);
      data.values.push(value);
      return;
    }
    if (missing) {
      this.absent(node, def, rep);
      return;
    }
    const defHere = def + (node.optional ? 1 : 0);
    if (node.kind === 'struct') {
      if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`parquet expected a struct for ${node.name}`);
      for (const child of node.children) this.visit(child, (value as Record<string, unknown>)[child.name], defHere, rep);
      return;
    }
    if (!Array.isArray(value)) throw new Error(`parquet repeated field ${node.name} must be an array`);
    if (!value.length) {
      this.absent(node, defHere, rep);
      return;
    }
    for (let i = 0; i < value.length; i++) this.visit(node.element, value[i], defHere + 1, i === 0 ? rep : node.repeatLevel);
  }
}
