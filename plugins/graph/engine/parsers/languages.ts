/** Maps file names to the languages the graph engine ingests. */
import type { Language } from '../extraction.ts';

const BY_EXTENSION: ReadonlyMap<string, Language> = new Map<string, Language>([
  ['.ts', 'typescript'],
  ['.mts', 'typescript'],
  ['.cts', 'typescript'],
  ['.tsx', 'tsx'],
  ['.js', 'javascript'],
  ['.mjs', 'javascript'],
  ['.cjs', 'javascript'],
  ['.jsx', 'javascript'],
  ['.py', 'python'],
  ['.pyi', 'python'],
  ['.rs', 'rust'],
  ['.go', 'go'],
  ['.java', 'java'],
  ['.md', 'markdown'],
  ['.markdown', 'markdown'],
]);

/** Every language detectLanguage can return. */
export const LANGUAGES: readonly Language[] = [...new Set(BY_EXTENSION.values())];

/** The language of a file from its extension (case-insensitive), or null when the engine does not ingest it. */
export function detectLanguage(path: string): Language | null {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  const dot = path.lastIndexOf('.');
  // A leading dot is a hidden file's name (`.ts` alone), not an extension.
  if (dot <= slash + 1) return null;
  return BY_EXTENSION.get(path.slice(dot).toLowerCase()) ?? null;
}
