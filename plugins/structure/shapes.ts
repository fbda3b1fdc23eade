/**
 * Normalised AST shapes for `twins`: a symbol's subtree read in pre-order as node types (names and
 * literal values drop out, operators stay), cut into 5-token shingles hashed to integers. Two
 * copies of a function with renamed variables have the same shingles. Shapes are kept per file
 * content hash, so a later call parses only files that changed.
 */
import type { GraphNode, GraphService } from '../graph/api.ts';
import { parseCode, type Node } from './code-trees.ts';
import type { Deadline } from './deadline.ts';

const SHINGLE = 5;
const MAX_TOKENS = 6000;
/** Punctuation carries no shape. */
const SKIP = new Set(['(', ')', '{', '}', '[', ']', ',', ';', ':', '.', 'comment', '"', "'", '`', 'string_fragment']);

export interface Shape {
  /** Sorted distinct shingle hashes. */
  shingles: Int32Array;
  tokens: number;
}

/** Per file: shapes by symbol id; null records a symbol whose definition was not found (not retried until the file changes). */
const cache = new Map<string, { root: string; hash: string; shapes: Map<string, Shape | null> }>();
const MAX_CACHED_FILES = 20_000;

/** Per grammar: node type id → hash of its type name (0 = punctuation, skipped), so shapes compare across grammars that share names (ts/tsx). */
const typeHashes = new WeakMap<object, Map<number, number>>();

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0 || 1;
}

function hashShingle(tokens: Int32Array, from: number): number {
  let h = 0x811c9dc5;
  for (let k = from; k < from + SHINGLE; k++) h = Math.imul(h ^ tokens[k], 0x01000193);
  return h | 0;
}

/** The shape of one subtree. */
export function shapeOf(node: Node): Shape {
  const language = node.tree.language as object;
  let ids = typeHashes.get(language);
  if (!ids) typeHashes.set(language, (ids = new Map()));
  const tokens = new Int32Array(Math.min(MAX_TOKENS, 4096));
  let buffer = tokens;
  let count = 0;
  const cursor = node.walk();
  // Pre-order walk with the cursor (no node objects allocated per step); type names hashed once per grammar.
  let descend = true;
  for (;;) {
    if (descend) {
      const id = cursor.nodeTypeId;
      let h = ids.get(id);
      if (h === undefined) {
        const type = cursor.nodeType;
        h = SKIP.has(type) ? 0 : hashString(type);
        ids.set(id, h);
      }
      if (h !== 0) {
        if (count === buffer.length) {
          const grown = new Int32Array(Math.min(MAX_TOKENS, buffer.length * 2));
          grown.set(buffer);
          buffer = grown;
        }
        buffer[count++] = h;
      }
      if (count >= MAX_TOKENS) break;
      if (cursor.gotoFirstChild()) continue;
    }
    if (cursor.gotoNextSibling()) {
      descend = true;
      continue;
    }
    if (!cursor.gotoParent()) break;
    descend = false;
  }
  cursor.delete();
  const set = new Set<number>();
  for (let i = 0; i + SHINGLE <= count; i++) set.add(hashShingle(buffer, i));
  return { shingles: Int32Array.from(set).sort(), tokens: count };
}

const DEFINITIONS = new Set([
  'function_declaration', 'function_expression', 'arrow_function', 'method_definition', 'generator_function_declaration', 'class_declaration', 'abstract_class_declaration', 'interface_declaration',
  'function_definition', 'class_definition', 'function_item', 'impl_item', 'struct_item', 'method_declaration', 'constructor_declaration', 'class_body', 'type_declaration',
]);

/** Tree nodes that define something, by 0-based start row. */
function definitionsByRow(root: Node): Map<number, Node[]> {
  const out = new Map<number, Node[]>();
  const cursor = root.walk();
  let descend = true;
  for (;;) {
    if (descend) {
      if (DEFINITIONS.has(cursor.nodeType)) {
        const n = cursor.currentNode;
        const list = out.get(n.startPosition.row) ?? [];
        list.push(n);
        out.set(n.startPosition.row, list);
      }
      if (cursor.gotoFirstChild()) continue;
    }
    if (cursor.gotoNextSibling()) {
      descend = true;
      continue;
    }
    if (!cursor.gotoParent()) break;
    descend = false;
  }
  cursor.delete();
  return out;
}

/** Shapes of `symbols` (all in file `path`), from the cache or one parse of the file. */
export async function fileShapes(graph: GraphService, path: string, hash: string, symbols: readonly GraphNode[]): Promise<Map<string, Shape>> {
  const engine = graph.engine;
  const hit = cache.get(path);
  if (hit && hit.hash === hash && hit.root === engine.root && symbols.every((s) => hit.shapes.has(s.id))) return found(hit.shapes);
  const language = symbols[0]?.language;
  const shapes = new Map<string, Shape | null>();
  if (!language) return new Map();
  let text: string;
  try {
    text = engine.readFile(path).content;
  } catch {
    return new Map();
  }
  const parsed = await parseCode(language, text);
  if (!parsed) return new Map();
  try {
    const defs = definitionsByRow(parsed.tree.rootNode);
    for (const s of symbols) {
      // The graph's range may start at a decorator or doc comment: take the definition whose range fits best.
      let best: Node | null = null;
      for (let row = s.startLine - 1; row < Math.min(s.endLine, s.startLine + 8) && !best; row++) {
        best = (defs.get(row) ?? []).find((d) => d.endPosition.row + 1 <= s.endLine) ?? null;
      }
      shapes.set(s.id, best ? shapeOf(best) : null);
    }
  } finally {
    parsed.done();
  }
  if (hash) {
    if (cache.size >= MAX_CACHED_FILES) cache.clear();
    cache.set(path, { root: engine.root, hash, shapes });
  }
  return found(shapes);
}

function found(shapes: Map<string, Shape | null>): Map<string, Shape> {
  const out = new Map<string, Shape>();
  for (const [id, shape] of shapes) if (shape) out.set(id, shape);
  return out;
}

/** Shapes of every symbol of `kinds` in scope, file by file, within the deadline. */
export async function collectShapes(graph: GraphService, symbols: readonly GraphNode[], deadline: Deadline): Promise<{ shapes: Map<string, Shape>; filesDone: number; filesTotal: number }> {
  const byFile = new Map<string, GraphNode[]>();
  for (const s of symbols) {
    const list = byFile.get(s.path) ?? [];
    list.push(s);
    byFile.set(s.path, list);
  }
  const hashes = graph.engine.storedFiles();
  const shapes = new Map<string, Shape>();
  let filesDone = 0;
  for (const [path, list] of byFile) {
    if (deadline.spent()) break;
    await deadline.pace();
    for (const [id, shape] of await fileShapes(graph, path, hashes.get(path)?.hash ?? '', list)) shapes.set(id, shape);
    filesDone++;
  }
  return { shapes, filesDone, filesTotal: byFile.size };
}

/** Jaccard of two sorted shingle sets. */
export function jaccard(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let both = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      both++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  const union = a.length + b.length - both;
  return union === 0 ? 0 : both / union;
}
