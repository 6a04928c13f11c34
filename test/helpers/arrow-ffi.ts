import { readParquet, wasmMemory } from 'parquet-wasm/node';

/**
 * An independent Parquet reader for the tests: parquet-wasm (Rust arrow-rs, a different
 * implementation than the writer) decodes the file into Arrow; this reads the Arrow C Data
 * Interface structures straight out of its WebAssembly memory (wasm32: 4-byte pointers) and turns
 * them into plain objects. It covers the types a release uses: utf8, int32/64, float64, bool,
 * lists and structs.
 */

interface Node {
  format: string;
  name: string;
  nullable: boolean;
  children: Node[];
  array: {
    length: number;
    offset: number;
    buffers: number[];
    children: Node['array'][];
  };
}

function readSchemaAndArray(view: DataView, bytes: Uint8Array, schemaAddr: number, arrayAddr: number): Node {
  const cString = (ptr: number) => {
    if (!ptr) return '';
    let end = ptr;
    while (bytes[end] !== 0) end++;
    return new TextDecoder().decode(bytes.subarray(ptr, end));
  };
  const i64 = (addr: number) => Number(view.getBigInt64(addr, true));
  const u32 = (addr: number) => view.getUint32(addr, true);
  const schemaNode = (addr: number) => {
    const nChildren = i64(addr + 24);
    const childrenPtr = u32(addr + 32);
    return {
      format: cString(u32(addr)),
      name: cString(u32(addr + 4)),
      nullable: (i64(addr + 16) & 2) !== 0,
      children: Array.from({ length: nChildren }, (_, k) => u32(childrenPtr + 4 * k)),
    };
  };
  const arrayNode = (addr: number): Node['array'] => {
    const nBuffers = i64(addr + 24);
    const nChildren = i64(addr + 32);
    const buffersPtr = u32(addr + 40);
    const childrenPtr = u32(addr + 44);
    return {
      length: i64(addr),
      offset: i64(addr + 16),
      buffers: Array.from({ length: nBuffers }, (_, k) => u32(buffersPtr + 4 * k)),
      children: Array.from({ length: nChildren }, (_, k) => arrayNode(u32(childrenPtr + 4 * k))),
    };
  };
  const build = (sAddr: number, array: Node['array']): Node => {
    const s = schemaNode(sAddr);
    return { format: s.format, name: s.name, nullable: s.nullable, array, children: s.children.map((c, k) => build(c, array.children[k]!)) };
  };
  return build(schemaAddr, arrayNode(arrayAddr));
}

function valueAt(view: DataView, bytes: Uint8Array, node: Node, index: number): unknown {
  const a = node.array;
  const i = a.offset + index;
  const validity = a.buffers[0];
  if (validity && node.format !== 'n' && !((bytes[validity + (i >> 3)]! >> (i & 7)) & 1)) return null;
  switch (node.format) {
    case 'u': {
      const start = view.getInt32(a.buffers[1]! + 4 * i, true);
      const end = view.getInt32(a.buffers[1]! + 4 * (i + 1), true);
      return new TextDecoder().decode(bytes.subarray(a.buffers[2]! + start, a.buffers[2]! + end));
    }
    case 'U': {
      const start = Number(view.getBigInt64(a.buffers[1]! + 8 * i, true));
      const end = Number(view.getBigInt64(a.buffers[1]! + 8 * (i + 1), true));
      return new TextDecoder().decode(bytes.subarray(a.buffers[2]! + start, a.buffers[2]! + end));
    }
    case 'i':
      return view.getInt32(a.buffers[1]! + 4 * i, true);
    case 'l':
      return Number(view.getBigInt64(a.buffers[1]! + 8 * i, true));
    case 'g':
      return view.getFloat64(a.buffers[1]! + 8 * i, true);
    case 'b':
      return ((bytes[a.buffers[1]! + (i >> 3)]! >> (i & 7)) & 1) === 1;
    case 'n':
      return null;
    case '+l': {
      const start = view.getInt32(a.buffers[1]! + 4 * i, true);
      const end = view.getInt32(a.buffers[1]! + 4 * (i + 1), true);
      return Array.from({ length: end - start }, (_, k) => valueAt(view, bytes, node.children[0]!, start + k));
    }
    case '+s':
      return Object.fromEntries(node.children.map((c) => [c.name, valueAt(view, bytes, c, i)]));
    default:
      throw new Error(`arrow format ${node.format} is not decoded by this test reader`);
  }
}

export interface IndependentRead {
  rows: Record<string, unknown>[];
  /** Arrow type of each top-level column, e.g. `+l` (list) or `u` (utf8). */
  formats: Record<string, string>;
  /** Arrow format of a nested path, e.g. `interpretations.item.short_answer`. */
  nested: (path: string[]) => string | null;
}

export function readParquetIndependently(file: Uint8Array): IndependentRead {
  const table = readParquet(file);
  const rows: Record<string, unknown>[] = [];
  let root: Node | null = null;
  for (const batch of table.recordBatches()) {
    const ffi = batch.toFFI();
    const buffer = wasmMemory().buffer;
    const view = new DataView(buffer);
    const bytes = new Uint8Array(buffer);
    const node = readSchemaAndArray(view, bytes, ffi.schemaAddr(), ffi.arrayAddr());
    root ??= node;
    for (let r = 0; r < node.array.length; r++) rows.push(valueAt(view, bytes, node, r) as Record<string, unknown>);
    ffi.free();
    batch.free();
  }
  table.free();
  const formats = Object.fromEntries((root?.children ?? []).map((c) => [c.name, c.format]));
  const nested = (path: string[]) => {
    let node: Node | undefined = root ?? undefined;
    for (const name of path) node = node?.children.find((c) => c.name === name) ?? (node?.format === '+l' ? node.children[0] : undefined);
    return node?.format ?? null;
  };
  return { rows, formats, nested };
}
