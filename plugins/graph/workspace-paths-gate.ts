/**
 * The one path check in front of every verb: each argument the verb's schema names as a workspace
 * path (file, files, path, scope, …_path; see pathParameters) goes through the engine's workspace
 * resolver before the handler runs, so `..`, absolute paths elsewhere, symlink escapes and NUL
 * bytes are refused for every verb of every plugin, present or future, without the handler seeing them.
 */
import { M1ndError, pathParameters, type CallRefusal, type CallState, type TSchema } from '../../core/index.ts';
import type { CodeGraphEngine } from './engine/engine.ts';
import { asHostError } from './service.ts';

const paramsOf = new WeakMap<TSchema, ReturnType<typeof pathParameters>>();

/**
 * A gate tap refusing any workspace-path argument that leaves the workspace — or, for a read by an
 * agent on the federated view, the root of the repository its `<repo>::` prefix names.
 */
export function workspacePathGate(engineFor: Pick<CodeGraphEngine, 'resolvePath'> | ((call: CallState) => Pick<CodeGraphEngine, 'resolvePath'>)) {
  // Synchronous (the resolver is): a gate tap with no promise per call; a verb without path parameters returns at once.
  return (call: CallState): CallRefusal | undefined => {
    let params = paramsOf.get(call.verb.input);
    if (!params) paramsOf.set(call.verb.input, (params = pathParameters(call.verb.input)));
    if (params.length === 0) return undefined;
    const engine = typeof engineFor === 'function' ? engineFor(call) : engineFor;
    for (const p of params) {
      const value = (call.args as Record<string, unknown>)[p.name];
      const values = p.list ? (Array.isArray(value) ? value : []) : [value];
      for (const v of values) {
        if (typeof v !== 'string') continue;
        try {
          engine.resolvePath(v);
        } catch (error) {
          const e = asHostError(error);
          if (e instanceof M1ndError) return { error: new M1ndError(e.code, `${call.name}: ${p.name}: ${e.message}`, { hint: e.hint, data: { parameter: p.name } }) };
          throw e;
        }
      }
    }
    return undefined;
  };
}
