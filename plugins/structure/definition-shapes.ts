/**
 * Every definition's normalised AST shape from one pre-order walk of a parsed file (the scans'
 * facts, a cold `twins`' candidates): the node types in pre-order (punctuation dropped, names and
 * literal values never read), cut into 5-token shingles; a definition's shape is the sorted distinct
 * shingles of the windows inside it. The walk writes the definitions straight into a packed array
 * (`writeDefinitionShapes`): no object or array per definition or per node.
 */
import type { Language } from '../graph/api.ts';
import type { Node } from './code-trees.ts';
import { IntSink } from './int-sink.ts';
import { distinct, SHINGLE, sortDistinct, windowHashes } from './shingles.ts';
import { walkTree } from './tree-walk.ts';

/** A normalised AST shape: 5-token shingles of the pre-order node types (names and literals drop out). */
export interface Shape {
  /** Sorted distinct shingle hashes. */
  shingles: Int32Array;
  tokens: number;
  /** Its MinHash signature (minhash.ts), when whoever made the shape computed it. */
  minhash?: Int32Array;
}

/** One definition node of the file and its shape. */
export interface DefinitionShape extends Shape {
  /** 0-based start and end rows. */
  row: number;
  endRow: number;
}

/** A definition's shape reads at most this many tokens (a huge class costs no more than this). */
const MAX_SHAPE_TOKENS = 6000;

/** Node types that define something (functions, methods, classes, …) across the parsed grammars. */
export const DEFINITIONS: ReadonlySet<string> = new Set([
  'function_declaration', 'function_expression', 'arrow_function', 'method_definition', 'generator_function_declaration', 'class_declaration', 'abstract_class_declaration', 'interface_declaration',
  'function_definition', 'class_definition', 'function_item', 'impl_item', 'struct_item', 'method_declaration', 'constructor_declaration', 'class_body', 'type_declaration',
]);

/** Int32 slots `definitions` take when written by `writeDefinitions`. */
export function definitionsSize(defs: readonly DefinitionShape[]): number {
  let size = 0;
  for (const d of defs) size += 4 + d.shingles.length;
  return size;
}

/** Writes `defs` into `out` from `at` as [row, end row, tokens, shingle count, shingles…] each; returns the next position. */
export function writeDefinitions(out: Int32Array, at: number, defs: readonly DefinitionShape[]): number {
  for (const d of defs) {
    out[at++] = d.row;
    out[at++] = d.endRow;
    out[at++] = d.tokens;
    out[at++] = d.shingles.length;
    out.set(d.shingles, at);
    at += d.shingles.length;
  }
  return at;
}

/** Reads `count` definitions `writeDefinitions` wrote from `at` (shingles as views of `data`) into `into`; returns the next position. */
export function readDefinitions(data: Int32Array, at: number, count: number, into: DefinitionShape[]): number {
  for (let k = 0; k < count; k++) {
    const row = data[at++];
    const endRow = data[at++];
    const tokens = data[at++];
    const n = data[at++];
    into.push({ row, endRow, tokens, shingles: data.subarray(at, at + n) });
    at += n;
  }
  return at;
}

/**
 * Python definitions are statements: outside every definition, the walk enters only the nodes that
 * hold statements (a module-level expression, import or table holds no definition; a definition's
 * shape uses only windows inside it, so skipping what lies outside every definition changes none).
 */
const PY_STATEMENT_HOLDERS: ReadonlySet<string> = new Set([
  'module', 'block', 'decorated_definition', 'if_statement', 'elif_clause', 'else_clause', 'for_statement', 'while_statement', 'try_statement', 'except_clause', 'except_group_clause', 'finally_clause', 'with_statement', 'match_statement', 'case_clause', 'ERROR',
]);
/** Per grammar (by node type id): the type's token (0: punctuation) with the low bit set for a definition type, and for Python whether it holds statements. */
interface TypeTables {
  tokens: Int32Array;
  /** 0: not seen yet; 1: seen, holds no statements; 2: seen, holds statements. */
  seen: Uint8Array;
}
const typeTables = new WeakMap<object, TypeTables>();

function typeTablesOf(root: Node): TypeTables {
  const grammar = root.tree.language as object;
  let t = typeTables.get(grammar);
  if (!t) typeTables.set(grammar, (t = { tokens: new Int32Array(512), seen: new Uint8Array(512) }));
  return t;
}

// Scratch arrays reused from file to file (a worker walks one file at a time).
let tokenScratch = new Int32Array(1 << 14);
let shingleScratch: Int32Array = new Int32Array(1 << 14);

/** Every definition's shape, as views of one array of the file's own. */
export function definitionShapes(root: Node, language?: Language): DefinitionShape[] {
  const out = new IntSink();
  writeDefinitionShapes(root, language, out);
  const data = out.done();
  const defs: DefinitionShape[] = [];
  readDefinitions(data, 1, data[0], defs);
  return defs;
}

/**
 * Walks the file once and writes its definitions' shapes to `out`: their count, then each as
 * `writeDefinitions` does (row, end row, tokens, shingle count, shingles), in pre-order.
 */
export function writeDefinitionShapes(root: Node, language: Language | undefined, out: IntSink): void {
  let tables = typeTablesOf(root);
  const python = language === 'python';
  let tokens = tokenScratch;
  let count = 0;
  // Open definitions (innermost last): their depth and span; spans: start, end, row, end row per definition, in pre-order.
  const openDepth: number[] = [];
  const openSpan: number[] = [];
  const spans: number[] = [];
  const cursor = walkTree(root);
  try {
    let depth = 0;
    let descend = true;
    for (;;) {
      if (descend) {
        const id = cursor.typeId();
        if (id >= tables.seen.length) tables = growTables(root, tables, id);
        if (tables.seen[id] === 0) learnType(tables, id, cursor.typeName(id));
        const h = tables.tokens[id];
        if (h & 1) {
          openDepth.push(depth);
          openSpan.push(spans.length);
          spans.push(count, 0, cursor.startRow(), cursor.endRow());
        }
        if (h >>> 1 !== 0) {
          if (count === tokens.length) {
            const grown = new Int32Array(tokens.length * 2);
            grown.set(tokens);
            tokens = tokenScratch = grown;
          }
          tokens[count++] = h & ~1;
        }
        // Python, outside every definition: only nodes that hold statements can hold one.
        const enter = !python || openDepth.length > 0 || tables.seen[id] === 2;
        if (enter && cursor.gotoFirstChild()) {
          depth++;
          continue;
        }
      }
      if (cursor.gotoNextSibling()) {
        while (openDepth.length && openDepth[openDepth.length - 1] >= depth) {
          openDepth.pop();
          spans[openSpan.pop()! + 1] = count;
        }
        descend = true;
        continue;
      }
      if (!cursor.gotoParent()) break;
      depth--;
      while (openDepth.length && openDepth[openDepth.length - 1] >= depth + 1) {
        openDepth.pop();
        spans[openSpan.pop()! + 1] = count;
      }
      descend = false;
    }
  } finally {
    cursor.done(); // before any other use of the runtime
  }
  while (openDepth.length) {
    openDepth.pop();
    spans[openSpan.pop()! + 1] = count;
  }
  const shingles = (shingleScratch = windowHashes(tokens, count, shingleScratch));
  out.push(spans.length >> 2);
  for (let s = 0; s < spans.length; s += 4) {
    // A definition's windows: those inside its first MAX_SHAPE_TOKENS tokens, sorted and distinct.
    const from = spans[s];
    const to = Math.min(spans[s + 1], from + MAX_SHAPE_TOKENS);
    const n = sortDistinct(shingles, from, Math.max(0, to - SHINGLE + 1 - from));
    out.reserve(4 + n);
    const data = out.data;
    data[out.at++] = spans[s + 2];
    data[out.at++] = spans[s + 3];
    data[out.at++] = to - from;
    data[out.at++] = n;
    data.set(distinct.subarray(0, n), out.at);
    out.at += n;
  }
}

function growTables(root: Node, tables: TypeTables, id: number): TypeTables {
  let size = tables.seen.length;
  while (size <= id) size *= 2;
  const tokens = new Int32Array(size);
  tokens.set(tables.tokens);
  const seen = new Uint8Array(size);
  seen.set(tables.seen);
  const grown = { tokens, seen };
  typeTables.set(root.tree.language as object, grown);
  return grown;
}

/** A node type's token (low bit set: a definition type; the hash keeps its other 31 bits) and whether it holds Python statements. */
function learnType(tables: TypeTables, id: number, type: string): void {
  tables.tokens[id] = (typeHashOf(type) & ~1) | (DEFINITIONS.has(type) ? 1 : 0);
  tables.seen[id] = PY_STATEMENT_HOLDERS.has(type) ? 2 : 1;
}

/** Punctuation carries no shape. */
const SKIP = new Set(['(', ')', '{', '}', '[', ']', ',', ';', ':', '.', 'comment', '"', "'", '`', 'string_fragment']);

/** A node type's token hash, even and non-zero; 0 for punctuation (skipped). */
function typeHashOf(type: string): number {
  if (SKIP.has(type)) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < type.length; i++) h = Math.imul(h ^ type.charCodeAt(i), 0x01000193);
  return h & ~1 || 2;
}
