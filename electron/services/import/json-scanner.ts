/**
 * The structural scanner behind json-stream.ts: it cuts records out of a JSON byte stream
 * without parsing them. JSON Lines are cut at line feeds; the other layouts by tracking only
 * brackets, keys and strings, so memory stays at one record plus one read chunk, and each record
 * keeps the line it started on for error messages.
 */

export interface RawRecord {
  /** 0-based ordinal of the record in the file. */
  index: number;
  /** 1-based line where the record starts. */
  line: number;
  /** Human-readable place: `line 12`, `line 40, element [3]`, `line 7, dev["123"]`. */
  location: string;
  /** For the `splits` layout: the split name and the record's key. */
  split?: string;
  key?: string;
  /** The record's bytes; null when it was larger than the limit. */
  bytes: Buffer | null;
  size: number;
}

export class FileStructureError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'FileStructureError';
  }
}

const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;

/** A splitter: bytes in, records out (taken from `records` after each push). */
export interface Sink {
  push(chunk: Buffer): void;
  end(): void;
  readonly records: RawRecord[];
}

/** Splits JSON Lines. */
export class LineSplitter implements Sink {
  readonly records: RawRecord[] = [];
  private parts: Buffer[] = [];
  private size = 0;
  private oversized = false;
  private line = 1;
  private index = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(LF, start);
      const end = newline === -1 ? chunk.length : newline;
      this.append(chunk.subarray(start, end));
      if (newline === -1) break;
      this.finishLine();
      start = newline + 1;
    }
  }

  end(): void {
    this.finishLine();
  }

  private append(part: Buffer): void {
    this.size += part.length;
    if (this.oversized) return;
    if (this.size > this.maxBytes) {
      this.oversized = true;
      this.parts = [];
      return;
    }
    if (part.length > 0) this.parts.push(Buffer.from(part));
  }

  private finishLine(): void {
    const line = this.line++;
    let bytes: Buffer | null = this.oversized ? null : Buffer.concat(this.parts);
    const size = this.size;
    this.parts = [];
    this.size = 0;
    this.oversized = false;
    if (bytes !== null) {
      if (bytes.length > 0 && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
      if (isBlank(bytes)) return;
    }
    this.records.push({ index: this.index++, line, location: `line ${line}`, bytes, size });
  }
}

function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== SPACE && b !== TAB && b !== CR && b !== LF) return false;
  return true;
}

interface OpenElement {
  kind: 'container' | 'string' | 'scalar';
  line: number;
  parts: Buffer[];
  size: number;
  oversized: boolean;
  split?: string;
  key?: string;
}

/**
 * Cuts the values found at `targetDepth` (1 for an array's elements, 2 for the records of a
 * splits object) out of a JSON byte stream. It tracks only what it must: the container stack,
 * whether an object expects a key, and whether it is inside a string.
 */
export class StructureSplitter implements Sink {
  readonly records: RawRecord[] = [];
  private readonly stack: number[] = [];
  private readonly expectKey: boolean[] = [];
  private readonly keys: string[] = [];
  private inString = false;
  private escaped = false;
  private line = 1;
  private index = 0;
  private closed = false;
  private element: OpenElement | null = null;
  private keyParts: Buffer[] | null = null;

  constructor(
    private readonly targetDepth: number,
    private readonly maxBytes: number,
    /** `wrapped` layout: records are the elements of the array under this top-level key; the other keys are passed over. */
    private readonly wrapper?: string,
  ) {}

  private wrapperSeen = false;

  /** Whether a value starting at the target depth is a record (always, except beside the wrapper's array). */
  private recordsHere(): boolean {
    if (this.wrapper === undefined) return true;
    const inside = this.keys[0] === this.wrapper && this.stack[1] === LBRACKET;
    if (inside) this.wrapperSeen = true;
    return inside;
  }

  /** Where the open element and the open key started in the current chunk (-1: not in it). */
  private elementStart = -1;
  private keyStart = -1;

  push(chunk: Buffer): void {
    this.elementStart = this.element ? 0 : -1;
    this.keyStart = this.keyParts ? 0 : -1;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const b = chunk[i]!;
      if (b === LF) this.line++;
      if (this.inString) {
        // Most bytes of a file are inside strings: this branch stays short.
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) this.closeString(chunk, i);
        continue;
      }
      switch (b) {
        case SPACE:
        case TAB:
        case CR:
        case LF:
          this.endScalar(chunk, i);
          break;
        case QUOTE:
          this.openString(i);
          break;
        case LBRACE:
        case LBRACKET:
          this.openContainer(b, i);
          break;
        case RBRACE:
        case RBRACKET:
          this.closeContainer(b, chunk, i);
          break;
        case COMMA:
          this.comma(chunk, i);
          break;
        case COLON:
          if (this.stack.length > 0) this.expectKey[this.stack.length - 1] = false;
          break;
        default:
          this.plainValue(b, i);
      }
    }
    if (this.element && this.elementStart !== -1) this.appendPart(chunk.subarray(this.elementStart));
    if (this.keyParts && this.keyStart !== -1) this.keyParts.push(Buffer.from(chunk.subarray(this.keyStart)));
  }

  /** The element ends at `end` of this chunk. */
  private cut(chunk: Buffer, end: number): void {
    this.finishElement(chunk, this.elementStart, end);
    this.elementStart = -1;
  }

  /** A plain value (number, true, false, null) at the target depth ends at white space, a comma or a closing bracket. */
  private endScalar(chunk: Buffer, i: number): void {
    if (this.element?.kind === 'scalar' && this.stack.length === this.targetDepth) this.cut(chunk, i);
  }

  /** A closing quote: it ends a key, or a string element at the target depth. */
  private closeString(chunk: Buffer, i: number): void {
    this.inString = false;
    if (this.keyParts) {
      this.keyParts.push(chunk.subarray(this.keyStart, i + 1));
      this.finishKey();
      this.keyStart = -1;
    } else if (this.element?.kind === 'string' && this.stack.length === this.targetDepth) {
      this.cut(chunk, i + 1);
    }
  }

  /** An opening quote: a key of an object above the target, or a string element at it. */
  private openString(i: number): void {
    this.inString = true;
    const depth = this.stack.length;
    const target = this.targetDepth;
    if (depth === 0 && target === 0) throw new FileStructureError('unexpected string between records: each record must be a JSON object', this.line);
    if (depth <= target && depth > 0 && this.expectKey[depth - 1] && this.stack[depth - 1] === LBRACE) {
      this.keyParts = [];
      this.keyStart = i;
    } else if (depth === target && !this.element) {
      if (this.recordsHere()) this.startElement('string', i);
    } else if (depth < target && this.wrapper === undefined) {
      this.unexpected('a string');
    }
  }

  private openContainer(b: number, i: number): void {
    const depth = this.stack.length;
    const target = this.targetDepth;
    if (target === 0) {
      if (depth === 0) {
        if (b !== LBRACE) throw new FileStructureError('expected a JSON object (this file holds objects one after another)', this.line);
        this.startElement('container', i);
      }
    } else if (depth === 0) {
      if (this.closed) this.trailing();
      if (this.wrapper !== undefined && b !== LBRACE) throw new FileStructureError(`expected the file to start with { (an object with the records under "${this.wrapper}")`, this.line);
      if (b !== (target === 1 ? LBRACKET : LBRACE)) {
        throw new FileStructureError(
          target === 1 ? 'expected the file to start with [ (a JSON array of records)' : 'expected the file to start with { (an object of splits)',
          this.line,
        );
      }
    } else if (depth === target && !this.element) {
      if (this.recordsHere()) this.startElement('container', i);
    } else if (depth < target && b !== LBRACE && this.wrapper === undefined) {
      this.unexpected('an array');
    }
    this.stack.push(b);
    this.expectKey.push(b === LBRACE);
  }

  private closeContainer(b: number, chunk: Buffer, i: number): void {
    this.endScalar(chunk, i);
    if (this.stack.length === 0) throw new FileStructureError(`unexpected ${String.fromCharCode(b)}`, this.line);
    this.stack.pop();
    this.expectKey.pop();
    if (this.stack.length === this.targetDepth && this.element?.kind === 'container') this.cut(chunk, i + 1);
    if (this.stack.length === 0) this.closed = true;
  }

  private comma(chunk: Buffer, i: number): void {
    if (this.stack.length === 0 && this.targetDepth === 0) throw new FileStructureError('unexpected , between records: records follow one another without commas', this.line);
    this.endScalar(chunk, i);
    if (this.stack.length > 0) this.expectKey[this.stack.length - 1] = this.stack[this.stack.length - 1] === LBRACE;
  }

  /** Any other byte: the start (or the middle) of a plain value. */
  private plainValue(b: number, i: number): void {
    const depth = this.stack.length;
    const target = this.targetDepth;
    if (depth === 0 && target === 0) throw new FileStructureError(`unexpected ${JSON.stringify(String.fromCharCode(b))} between records: each record must be a JSON object`, this.line);
    if (depth === 0) {
      if (this.closed) this.trailing();
      throw new FileStructureError(`unexpected ${JSON.stringify(String.fromCharCode(b))} where the file should start with ${target === 1 ? '[' : '{'}`, this.line);
    }
    if (depth === target && !this.element) {
      if (this.recordsHere()) this.startElement('scalar', i);
    } else if (depth < target && this.wrapper === undefined) this.unexpected('a plain value');
  }

  end(): void {
    if (this.element?.kind === 'scalar') this.finishElement(Buffer.alloc(0), 0, 0);
    if (this.inString || this.stack.length > 0 || this.element) {
      const where = this.element ? `inside record ${this.describe(this.element)} (which starts on line ${this.element.line})` : '';
      throw new FileStructureError(`the file ends ${where || 'before its closing bracket'}: it looks truncated`, this.line);
    }
    if (!this.closed && this.index === 0) throw new FileStructureError('the file holds no JSON value', this.line);
    if (this.wrapper !== undefined && !this.wrapperSeen && this.index === 0) {
      throw new FileStructureError(`the file has no records under "${this.wrapper}": expected {"${this.wrapper}": [record, ...]} (other top-level keys are passed over)`, this.line);
    }
  }

  private describe(element: OpenElement): string {
    return element.split !== undefined ? `${element.split}[${JSON.stringify(element.key)}]` : `[${this.index}]`;
  }

  private unexpected(what: string): never {
    throw new FileStructureError(
      `found ${what} where a split object was expected (the layout is {"split": {"id": record}})`,
      this.line,
    );
  }

  private trailing(): never {
    throw new FileStructureError('unexpected content after the end of the top-level JSON value', this.line);
  }

  private finishKey(): void {
    const raw = Buffer.concat(this.keyParts ?? []).toString('utf8');
    this.keyParts = null;
    let key: string;
    try {
      key = JSON.parse(raw) as string;
    } catch {
      throw new FileStructureError(`cannot read the key ${raw}`, this.line);
    }
    this.keys[this.stack.length - 1] = key;
  }

  private startElement(kind: OpenElement['kind'], start: number): void {
    this.elementStart = start;
    this.element = { kind, line: this.line, parts: [], size: 0, oversized: false };
    if (this.targetDepth === 2 && this.wrapper === undefined) {
      this.element.split = this.keys[0] ?? '';
      this.element.key = this.keys[1] ?? '';
    }
  }

  private appendPart(part: Buffer): void {
    const element = this.element!;
    element.size += part.length;
    if (element.oversized) return;
    if (element.size > this.maxBytes) {
      element.oversized = true;
      element.parts = [];
      return;
    }
    // Copy: the read stream may reuse its buffers.
    element.parts.push(Buffer.from(part));
  }

  private finishElement(chunk: Buffer, start: number, end: number): void {
    this.appendPart(chunk.subarray(start, end));
    const element = this.element!;
    this.element = null;
    const index = this.index++;
    const where =
      element.split !== undefined
        ? `${element.split}[${JSON.stringify(element.key)}]`
        : this.wrapper !== undefined
          ? `${this.wrapper}[${index}]`
          : this.targetDepth === 0
            ? `record [${index}]`
            : `element [${index}]`;
    this.records.push({
      index,
      line: element.line,
      location: `line ${element.line}, ${where}`,
      ...(element.split !== undefined ? { split: element.split, key: element.key } : {}),
      bytes: element.oversized ? null : Buffer.concat(element.parts),
      size: element.size,
    });
  }
}
