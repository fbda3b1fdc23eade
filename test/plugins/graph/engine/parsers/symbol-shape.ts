/** Test helper: symbols without the type facts (return types) that other tests check on their own. */
import type { ExtractedSymbol } from '../../../../../plugins/graph/engine/extraction.ts';

/** The symbols as declarations only: `returnType` removed. */
export function declarations(symbols: readonly ExtractedSymbol[]): Omit<ExtractedSymbol, 'returnType'>[] {
  return symbols.map((s) => {
    const copy: ExtractedSymbol = { ...s };
    delete copy.returnType;
    return copy;
  });
}
