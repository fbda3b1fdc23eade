/**
 * A parse extension for bench/structure-ingest.bench.ts only: the definition shapes `twins` reads
 * (file-facts.ts `definitionShapes`), computed on the ingest's tree and kept as a compact string
 * (the shingles base64), to weigh what moving the shapes into the ingest would cost.
 */
import type { ParseExtensionInput } from '../plugins/graph/api.ts';
import { definitionShapes } from '../plugins/structure/definition-shapes.ts';

export default function shapesExtension(input: ParseExtensionInput): { d: [number, number, number, string][] } {
  const defs = definitionShapes(input.tree.rootNode, input.language);
  return { d: defs.map((s) => [s.row, s.endRow, s.tokens, Buffer.from(s.shingles.buffer, s.shingles.byteOffset, s.shingles.byteLength).toString('base64')]) };
}
