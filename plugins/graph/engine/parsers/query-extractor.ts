/**
 * The tree-sitter half of extraction shared by every code language: run one Query per file, sort its
 * matches into declarations, imports, calls, inheritance, type references and docs, then resolve
 * nesting (nesting.ts) in one sweep over positions. Per file it stays synchronous and touches the tree
 * only through the query results: capture-collector.ts reads the matches, capture-resolution.ts
 * turns the findings into the extraction.
 *
 * Query capture names follow one convention; the part before the first dot routes a match:
 * - `@def.<class|interface|type|function|method|impl|scope>` the declaration node, with `@def.name`;
 *   Go methods add `@def.recv` (receiver type name), Rust impls give `@def.impltype` and `@def.trait`.
 * - `@doc.owner` + `@doc.string`: a Python docstring of the owner declaration.
 * - `@import.stmt`: an import statement parsed by the language; `@import.spec`: a bare module string.
 * - `@call.name` (+ `@call.recv`): a call's callee name node and receiver expression; `@call.access`
 *   (+ `@call.recv`) instead: an attribute read or written without a call (ExtractedCall.access).
 * - `@inherit.owner` + `@inherit.extends|implements`: a declaration and one parent type expression.
 * - `@ref.name`: a type name used; `@ref.tparam`: a type parameter name; `@ref.skip`: a name that is
 *   not a reference; `@ref.string`: a Python string annotation; `@ref.union`: a Python `A | B` annotation.
 * - `@export.decl` (+ `@export.stmt`), `@export.inner` + `@export.outer`, `@export.public`,
 *   `@export.private`, `@export.name`: visibility marks and doc anchors.
 * - `@comment`: comment nodes, for doc comments.
 * - `@bind.<local|param|field|selffield|with|range>`: a bound name, with `@bind.type` (declared type) and/or
 *   `@bind.value` (value, or the collection a `range` name iterates); `selffield` is `self.x`/`this.x`,
 *   a field of the enclosing method's class. `@bind.owner` + `@bind.returns`: a declaration's result type.
 *   `@bind.narrow` + `@bind.type`: a name narrowed to a type (`isinstance(x, Foo)`), in `@bind.block` only when given.
 *   `@bind.mapvalues`: a mapping whose values a `range` name takes (`for k, v in d.items()`).
 *   `@bind.alias` + `@bind.type`: a module-level type alias (`Endpoint = Callable[[Request], Response]`).
 * Captures whose names start with `_` only serve predicates (`#eq?`) and are ignored.
 *
 * A tree with parse errors yields no fact taken from its broken parts (parse-errors.ts): a declaration
 * with a MISSING name, an error in its header, or a reserved-word name (spec.reservedWords); one inside
 * an ERROR node unless it is whole and error-free (recovery often wraps a whole file in one ERROR);
 * calls, imports, parents and references inside ERROR nodes but outside such sound declarations; and
 * calls whose own argument list or statement is broken are dropped. The rest stays.
 * A language may offer `repair`, an offset-preserving rewrite of syntax its grammar lacks, tried once on
 * files that do not parse cleanly.
 */
import type { Language as Grammar, Node, QueryCapture, QueryMatch, Tree } from 'web-tree-sitter';
import type { FileExtraction } from '../extraction.ts';
import { FileCaptures, ROLES, type Role } from './capture-collector.ts';
import { finishExtraction } from './capture-resolution.ts';
import { errorQuery, parseWithRepair } from './parse-errors.ts';
import { CHUNK_PATTERNS, chunkMatches, compileChunks } from './query-chunks.ts';
import type { Extractor, QueryLanguageSpec } from './query-spec.ts';
import { createParser, treeSitterRuntime } from './tree-sitter.ts';

/** Builds the extractor of a language from its loaded grammar; compiles its query in one call and keeps one parser. */
export function createQueryExtractor(spec: QueryLanguageSpec, grammar: Grammar): Extractor {
  const query = new (treeSitterRuntime().Query)(grammar, spec.query);
  return extractorOver(spec, grammar, (root) => query.matches(root));
}

/**
 * The same extractor with its query compiled in chunks, awaiting `pause()` between two compiles
 * (query-chunks.ts): no call holds the thread for the whole query's compile; each file is matched
 * once per chunk.
 */
export async function createChunkedQueryExtractor(spec: QueryLanguageSpec, grammar: Grammar, pause: () => Promise<void>, size = CHUNK_PATTERNS): Promise<Extractor> {
  const chunks = await compileChunks(grammar, spec.query, pause, size);
  await pause();
  return extractorOver(spec, grammar, (root) => chunkMatches(chunks, root));
}

/** An extractor reading the matches `matchesOf` gives for a tree's root. */
function extractorOver(spec: QueryLanguageSpec, grammar: Grammar, matchesOf: (root: Node) => Iterable<QueryMatch>): Extractor {
  const parser = createParser(grammar);
  // Run only on trees that report errors, so clean files pay nothing for the count.
  const errors = errorQuery(grammar);
  // A pattern's role is fixed, so it is read from its capture names once.
  const roles: (Role | null)[] = [];
  const roleOf = (patternIndex: number, captures: readonly QueryCapture[]): Role | null => {
    let role = roles[patternIndex];
    if (role === undefined) {
      role = null;
      for (const c of captures) {
        const prefix = c.name.split('.')[0];
        if ((ROLES as readonly string[]).includes(prefix)) role = prefix as Role;
      }
      roles[patternIndex] = role;
    }
    return role;
  };

  return (path: string, rawSource: string, onTree?: (tree: Tree, source: string) => void): FileExtraction => {
    // A byte-order mark would shift every offset by one; tree-sitter does not skip it.
    const original = rawSource.charCodeAt(0) === 0xfeff ? rawSource.slice(1) : rawSource;
    const { tree, source, regions } = parseWithRepair(parser, errors, original, spec.repair, path);
    try {
      const root = tree.rootNode;
      const file = new FileCaptures(spec, source, regions);
      for (const match of matchesOf(root)) {
        const captures = match.captures;
        if (captures.length === 0) continue;
        const role = roleOf(match.patternIndex, captures);
        if (role !== null) file.take(role, captures);
      }
      const extraction = finishExtraction(file, path);
      onTree?.(tree, source);
      // The language's last word reads the file as written, not as repaired for the grammar.
      return spec.finish ? spec.finish(extraction, original) : extraction;
    } finally {
      tree.delete();
    }
  };
}
