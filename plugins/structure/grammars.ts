/**
 * The server side of code-trees.ts: grammars from the graph engine (its public entry), and query
 * compilation errors as coded errors an agent can act on.
 */
import type { Query } from 'web-tree-sitter';
import { ErrorCodes, M1ndError } from '../../core/index.ts';
import { loadGrammar, treeSitterModule, treeSitterRuntime, type Language } from '../graph/api.ts';
import { compiledQuery, parseCode, QueryError, setGrammarLoader, type ParsedFile } from './code-trees.ts';
import { useRuntimeModule } from './tree-walk.ts';

setGrammarLoader(loadGrammar, treeSitterRuntime);
useRuntimeModule(treeSitterModule());

function coded(error: unknown): unknown {
  return error instanceof QueryError
    ? new M1ndError(ErrorCodes.CALL_INVALID_ARGS, error.message, { hint: "fix the S-expression (node names of this language's grammar, balanced parentheses, @captures), or pass `keywords` instead" })
    : error;
}

/** Compiles (once) a query for a language; a bad query is M1ND_ERR_CALL_INVALID_ARGS naming the problem. */
export async function compileQuery(language: Language, source: string): Promise<Query | null> {
  try {
    return await compiledQuery(language, source);
  } catch (error) {
    throw coded(error);
  }
}

/** Parses `text` as `language` (null for a language the scans do not parse); its `query` throws coded errors. */
export async function parseFile(language: Language, text: string): Promise<ParsedFile | null> {
  const parsed = await parseCode(language, text);
  if (!parsed) return null;
  return {
    ...parsed,
    query: (source) => {
      try {
        return parsed.query(source);
      } catch (error) {
        throw coded(error);
      }
    },
  };
}
