/**
 * A pre-order walk of a syntax tree for the shape readers (file-facts.ts). web-tree-sitter's
 * `TreeCursor` copies the cursor's four words into the runtime's transfer buffer before every call
 * and back after it, through emscripten's `setValue`/`getValue` (~400 ns a node). The runtime's own
 * cursor functions read the cursor from that buffer and write it back there, so a walk that keeps
 * the cursor in the buffer between calls needs neither copy: about three times faster, the same
 * nodes in the same order. That uses the runtime's exports — the emscripten module object that
 * `Parser.init(moduleObject)` fills (web-tree-sitter is pinned to one version) — so it is used only
 * when the thread's runtime was started with a module object given here and has them all, on a
 * little-endian machine; otherwise the walk goes through the public `TreeCursor`.
 */
import type { Node, TreeCursor } from 'web-tree-sitter';

/** A walk over a tree's nodes; `done()` frees it (it must run before any other use of the tree-sitter runtime). */
export interface TreeWalk {
  /** `raw`: the runtime's cursor functions on the transfer buffer; `public`: web-tree-sitter's `TreeCursor`. */
  readonly kind: 'raw' | 'public';
  /** Type id of the current node (the grammar's symbol). */
  typeId(): number;
  /** Type name of a type id of this tree's grammar. */
  typeName(id: number): string;
  gotoFirstChild(): boolean;
  gotoNextSibling(): boolean;
  gotoParent(): boolean;
  /** 0-based rows of the current node's start and end. */
  startRow(): number;
  endRow(): number;
  done(): void;
}

type CursorCall = (tree: number) => number;
/** The runtime exports the raw walk calls (names as emscripten exports them). */
interface RuntimeExports {
  HEAP32: Int32Array;
  _ts_init(): number;
  _ts_tree_cursor_goto_first_child_wasm: CursorCall;
  _ts_tree_cursor_goto_next_sibling_wasm: CursorCall;
  _ts_tree_cursor_goto_parent_wasm: CursorCall;
  _ts_tree_cursor_current_node_type_id_wasm: CursorCall;
  _ts_tree_cursor_start_position_wasm: CursorCall;
  _ts_tree_cursor_end_position_wasm: CursorCall;
}
const CALLS = ['_ts_init', '_ts_tree_cursor_goto_first_child_wasm', '_ts_tree_cursor_goto_next_sibling_wasm', '_ts_tree_cursor_goto_parent_wasm', '_ts_tree_cursor_current_node_type_id_wasm', '_ts_tree_cursor_start_position_wasm', '_ts_tree_cursor_end_position_wasm'] as const;

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
let exportsObject: object | null = null;
let raw: { exports: RuntimeExports; buffer: number } | null | undefined;

/**
 * The module object this thread's web-tree-sitter runtime was (or will be) started with
 * (`Parser.init(moduleObject)`): the walks read its exports once the runtime is up.
 */
export function useRuntimeModule(moduleObject: object): void {
  exportsObject ??= moduleObject;
}

/** The runtime's exports and its transfer buffer's word index, or null for the public cursor. */
function rawRuntime(): { exports: RuntimeExports; buffer: number } | null {
  if (raw !== undefined) return raw;
  const m = exportsObject as Partial<Record<string, unknown>> | null;
  if (!m || !LITTLE_ENDIAN || !(m.HEAP32 instanceof Int32Array) || !CALLS.every((name) => typeof m[name] === 'function')) return null; // not started yet: asked again next time
  const exports = m as unknown as RuntimeExports;
  // `ts_init` returns the transfer buffer's address (and writes two version words there, which no call reads back).
  raw = { exports, buffer: exports._ts_init() >> 2 };
  return raw;
}

/** The tree's internal handles the runtime's functions take (a pinned version's fields: checked before use). */
interface CursorHandles {
  [word: number]: number;
  tree: { 0: number };
}

/** A walk from `root` (the root included); `publicCursor` forces web-tree-sitter's cursor (tests compare the two). */
export function walkTree(root: Node, publicCursor = false): TreeWalk {
  const types = root.tree.language.types;
  const cursor = root.walk();
  const rt = publicCursor ? null : rawRuntime();
  const handles = cursor as unknown as CursorHandles;
  if (rt && typeof handles.tree?.[0] === 'number' && typeof handles[3] === 'number') return new RawWalk(rt.exports, rt.buffer, handles, cursor, types);
  return new PublicWalk(cursor, types);
}

class PublicWalk implements TreeWalk {
  readonly kind = 'public';
  constructor(
    private readonly cursor: TreeCursor,
    private readonly types: readonly string[],
  ) {}
  typeId(): number {
    return this.cursor.nodeTypeId;
  }
  typeName(id: number): string {
    return this.types[id] || 'ERROR';
  }
  gotoFirstChild(): boolean {
    return this.cursor.gotoFirstChild();
  }
  gotoNextSibling(): boolean {
    return this.cursor.gotoNextSibling();
  }
  gotoParent(): boolean {
    return this.cursor.gotoParent();
  }
  startRow(): number {
    return this.cursor.startPosition.row;
  }
  endRow(): number {
    return this.cursor.endPosition.row;
  }
  done(): void {
    this.cursor.delete();
  }
}

/** The cursor lives in the transfer buffer from construction to `done()`, which copies it back for the public cursor's `delete`. */
class RawWalk implements TreeWalk {
  readonly kind = 'raw';
  private readonly tree: number;

  constructor(
    private readonly m: RuntimeExports,
    private readonly at: number,
    private readonly handles: CursorHandles,
    private readonly cursor: TreeCursor,
    private readonly types: readonly string[],
  ) {
    this.tree = handles.tree[0];
    const heap = m.HEAP32;
    for (let k = 0; k < 4; k++) heap[at + k] = handles[k];
  }
  typeId(): number {
    return this.m._ts_tree_cursor_current_node_type_id_wasm(this.tree);
  }
  typeName(id: number): string {
    return this.types[id] || 'ERROR';
  }
  gotoFirstChild(): boolean {
    return this.m._ts_tree_cursor_goto_first_child_wasm(this.tree) === 1;
  }
  gotoNextSibling(): boolean {
    return this.m._ts_tree_cursor_goto_next_sibling_wasm(this.tree) === 1;
  }
  gotoParent(): boolean {
    return this.m._ts_tree_cursor_goto_parent_wasm(this.tree) === 1;
  }
  startRow(): number {
    return this.row(this.m._ts_tree_cursor_start_position_wasm);
  }
  endRow(): number {
    return this.row(this.m._ts_tree_cursor_end_position_wasm);
  }
  /** A position call writes its point over the cursor's first two words: they are put back. */
  private row(position: CursorCall): number {
    const heap = this.m.HEAP32; // a view of the current memory (a cursor move may have grown it)
    const at = this.at;
    const w0 = heap[at];
    const w1 = heap[at + 1];
    position(this.tree);
    const row = heap[at] >>> 0;
    heap[at] = w0;
    heap[at + 1] = w1;
    return row;
  }
  done(): void {
    const heap = this.m.HEAP32;
    for (let k = 0; k < 4; k++) this.handles[k] = heap[this.at + k];
    this.cursor.delete();
  }
}
