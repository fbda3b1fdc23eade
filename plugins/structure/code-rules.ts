/**
 * The built-in scan presets that look at the code: tree-sitter queries per language, each with a
 * small check over the captured nodes (what a query alone cannot say: "the block holds nothing but
 * comments", "no decorator names an auth guard"). The rules that are graph conditions live in
 * graph-rules.ts. A rule reports its `@hit` capture: that node's lines and code are the finding.
 */
import type { Language } from '../graph/api.ts';
import { ancestor, type Node } from './code-trees.ts';

export const PRESETS = ['error_handling', 'resource_cleanup', 'api_surface', 'state_mutation', 'concurrency', 'auth_boundary', 'test_coverage', 'dependency_injection'] as const;
export type PresetName = (typeof PRESETS)[number];

/** What a rule's check may consult besides the captures. */
export interface RuleContext {
  /** Labels of the workspace's classes (graph nodes), for dependency-injection rules. */
  classNames: ReadonlySet<string>;
  /** The whole file text. */
  text: string;
}

/** A refined verdict: false drops the match. */
export type Verdict = boolean | { severity?: number; message?: string };

export interface CodeRule {
  id: string;
  preset: PresetName;
  languages: readonly Language[];
  query: string;
  severity: number;
  message: string;
  /** Text the file must contain for the query to possibly match (skips the tree walk otherwise). */
  needs?: RegExp;
  /**
   * Where a match can be, so the query runs on a few nodes instead of walking the whole tree: every
   * match of the pattern has its root node (of a type in `roots`) as the nearest such ancestor of
   * the token at some match of `at` (a global regex over the file text). Extra `at` matches cost a
   * little and find nothing the whole-tree query would not; a missing one loses a finding.
   */
  anchor?: {
    at: RegExp;
    roots: readonly string[];
    /** Keeps an `at` match worth the tree work (a text test: the call names something this file declares async). */
    keep?: (match: RegExpMatchArray, text: string) => boolean;
  };
  check?: (captures: Record<string, Node>, ctx: RuleContext) => Verdict;
}

const JS: readonly Language[] = ['typescript', 'tsx', 'javascript'];
const PY: readonly Language[] = ['python'];
const JS_FUNCTIONS = new Set(['function_declaration', 'function_expression', 'arrow_function', 'method_definition', 'generator_function_declaration', 'function']);
const PY_FUNCTIONS = new Set(['function_definition', 'lambda']);
const JS_CLASSES = new Set(['class_declaration', 'class', 'abstract_class_declaration']);
const AUTH = /auth|login|session|guard|protect|permission|require_?user|verify|token|jwt|acl|role/i;
const ROUTE_OWNER = /^(app|router|server|api|routes?|r)$/i;

const significant = (n: Node) => n.namedChildren.filter((c) => c !== null && c.type !== 'comment') as Node[];
const isConsoleOnly = (stmts: Node[]) => stmts.length > 0 && stmts.every((s) => s.type === 'expression_statement' && /^console\.\w+\(/.test(s.text));
/** Names a JavaScript/TypeScript file declares async: `async function f`, `f = async`, `f: async`, `async f(` (a method). */
const JS_ASYNC = /async\s+function\s*\*?\s*([\w$]+)|(?<![\w$.])([\w$]+)\s*[=:]\s*async\b|\basync\s+([\w$]+)\s*[(<]/g;
/** Names a Python file declares `async def`. */
const PY_ASYNC = /\basync\s+def\s+(\w+)/g;
let lastAsync: { text: string; pattern: RegExp; names: Set<string> } | null = null;
/** The async names of a file (the last file's kept: its anchors and checks ask again and again). */
function asyncNames(text: string, pattern: RegExp): Set<string> {
  if (lastAsync?.text === text && lastAsync.pattern === pattern) return lastAsync.names;
  const names = new Set<string>();
  for (const m of text.matchAll(pattern)) names.add(m[1] ?? m[2] ?? m[3]);
  lastAsync = { text, pattern, names };
  return names;
}
/** Whether an anchor's call text (`save(`, `this.save (`, `self.refresh(`) names something the file declares async, or `fetch`. */
function callsAsync(call: string, text: string, pattern: RegExp): boolean {
  const name = /([\w$]+)\s*\($/.exec(call)?.[1] ?? '';
  return (name === 'fetch' && pattern === JS_ASYNC) || asyncNames(text, pattern).has(name);
}
/**
 * A construction the object keeps as a collaborator: `this.x = new X()` or a field initializer
 * `private x = new X()` (not `x ?? new X()`, which lets a caller inject one; not a value built to be
 * returned, thrown or passed on).
 */
const heldByJsObject = (n: Node) => {
  const p = n.parent;
  if (!p) return false;
  if (p.type === 'public_field_definition' || p.type === 'field_definition') return true;
  return p.type === 'assignment_expression' && p.childForFieldName('right')?.id === n.id && /^this\.[\w$#]+$/.test(p.childForFieldName('left')?.text ?? '');
};
/** Python's `self.x = X(…)` (not `self.x = x or X()`, not a value returned, raised or passed on). */
const heldByPyObject = (n: Node) => {
  const p = n.parent;
  return p?.type === 'assignment' && p.childForFieldName('right')?.id === n.id && /^self\.\w+$/.test(p.childForFieldName('left')?.text ?? '');
};
/** A comment among `nodes` that says something (not a tool's pragma: `# pragma: no cover`, `# noqa`, `// eslint-disable…`). */
const explains = (nodes: readonly (Node | null)[]) => nodes.some((c) => c?.type === 'comment' && !/^(?:#|\/\/|\/\*)\s*(?:pragma\b|noqa\b|type:|eslint-|istanbul\b|c8\b|@ts-)/.test(c.text));
const returned = (n: Node) => n.parent?.type === 'return_statement' || n.parent?.parent?.type === 'return_statement';
/**
 * The variable a JavaScript handle is kept in leaves the function: `const server = http.createServer(…)`
 * then `return server` or `return server.listen(…)` hands it to the caller, who closes it.
 */
const handedBack = (n: Node, scope: Node) => {
  const p = n.parent;
  const name = p?.type === 'variable_declarator' && p.childForFieldName('value')?.id === n.id ? p.childForFieldName('name') : null;
  if (name?.type !== 'identifier') return false;
  return new RegExp(`\\breturn\\s+${name.text.replace(/\$/g, '\\$')}(?![\\w$])`).test(scope.text);
};

/**
 * A JavaScript handle some other code owns and closes: one opened on (`this.conn.connect()`) or kept
 * in (`this.server = …`) the object, whose other methods close it; or one whose variable an
 * enclosing function closes (`conn.connect(cb)` in a promise's executor, `conn.destroy()` in the
 * function's finally).
 */
const closedElsewhere = (n: Node) => {
  const receiver = n.childForFieldName('function')?.childForFieldName('object');
  if (/^this\b/.test(receiver?.text ?? '')) return true;
  const p = n.parent?.type === 'await_expression' ? n.parent.parent : n.parent;
  if (p?.type === 'assignment_expression' && /^this\./.test(p.childForFieldName('left')?.text ?? '')) return true;
  if (receiver?.type !== 'identifier') return false;
  const closes = new RegExp(`(?<![\\w$.])${receiver.text.replace(/\$/g, '\\$')}\\.(?:close|closeSync|end|destroy)\\(`);
  for (let fn = ancestor(n, JS_FUNCTIONS); fn; fn = fn.parent ? ancestor(fn.parent, JS_FUNCTIONS) : null) if (closes.test(fn.text)) return true;
  return false;
};

export const CODE_RULES: readonly CodeRule[] = [
  // error_handling
  {
    id: 'js.swallowed_catch',
    preset: 'error_handling',
    languages: JS,
    needs: /\bcatch\b/,
    anchor: { at: /\bcatch\b/g, roots: ['catch_clause'] },
    query: '(catch_clause body: (statement_block) @body) @hit',
    severity: 0.7,
    message: 'catch block swallows the error',
    check: ({ body }) => {
      const stmts = significant(body);
      // An empty block that says why (`catch { /* optional: absent on old runtimes */ }`) is a decision, not an oversight.
      if (stmts.length === 0) return explains(body.namedChildren) ? { severity: 0.3, message: 'catch block swallows the error (a comment says why)' } : true;
      return isConsoleOnly(stmts) ? { severity: 0.5, message: 'catch block only logs the error and carries on' } : false;
    },
  },
  {
    id: 'py.swallowed_except',
    preset: 'error_handling',
    languages: PY,
    needs: /\bexcept\b/,
    anchor: { at: /\bexcept\b/g, roots: ['except_clause'] },
    query: '(except_clause) @hit',
    severity: 0.7,
    message: 'except clause swallows the error',
    check: ({ hit }) => {
      const block = hit.namedChildren.find((c) => c?.type === 'block');
      if (!block) return false;
      const stmts = significant(block);
      const bare = hit.namedChildren.filter((c) => c !== null && c.type !== 'block' && c.type !== 'comment').length === 0;
      const empty = stmts.every((s) => s.type === 'pass_statement' || (s.type === 'expression_statement' && s.text === '...'));
      if (empty) {
        if (bare) return { message: 'bare except swallows every error, KeyboardInterrupt included', severity: 0.8 };
        // `except ImportError: pass` around an optional import, `except KeyError: pass`: an expected,
        // named error ignored on purpose is the language's idiom; `except Exception: pass` hides anything.
        const caught = hit.namedChildren.filter((c) => c !== null && c.type !== 'block' && c.type !== 'comment').map((c) => c!.text).join(' ');
        const broad = /\b(?:Exception|BaseException)\b/.test(caught);
        const explained = explains([...hit.namedChildren, ...block.namedChildren]);
        if (broad) return explained ? { severity: 0.5, message: 'except Exception swallows every error (a comment says why)' } : { severity: 0.7, message: 'except Exception swallows every error' };
        return { severity: 0.3, message: `except ${caught.replace(/\s+as\s+\w+$/, '')} swallows the error: fine when it is expected, else handle or log it` };
      }
      return bare ? { message: 'bare except catches every error, KeyboardInterrupt and SystemExit included', severity: 0.5 } : false;
    },
  },
  // resource_cleanup
  {
    id: 'py.open_without_with',
    preset: 'resource_cleanup',
    languages: PY,
    needs: /\bopen\s*\(/,
    anchor: { at: /\bopen\s*\(/g, roots: ['call'] },
    query: '(call function: (identifier) @fn (#eq? @fn "open")) @hit',
    severity: 0.6,
    message: 'file opened outside a with block: not closed if an error is raised',
    check: ({ hit }) => !returned(hit) && ancestor(hit, new Set(['with_item', 'with_clause']), PY_FUNCTIONS) === null,
  },
  {
    id: 'js.unclosed_handle',
    preset: 'resource_cleanup',
    languages: JS,
    needs: /\.(?:openSync|createReadStream|createWriteStream|createServer|connect)\s*\(/,
    anchor: { at: /\.(?:openSync|createReadStream|createWriteStream|createServer|connect)\s*\(/g, roots: ['call_expression'] },
    query: '(call_expression function: (member_expression property: (property_identifier) @p (#match? @p "^(openSync|createReadStream|createWriteStream|createServer|connect)$"))) @hit',
    severity: 0.5,
    message: 'handle opened here is never closed in this function',
    check: ({ hit }) => {
      if (returned(hit)) return false;
      const scope = ancestor(hit, JS_FUNCTIONS) ?? hit.tree.rootNode;
      if (handedBack(hit, scope) || closedElsewhere(hit)) return false;
      return !/\.(close|closeSync|end|destroy)\(|\bfinally\b|\bawait using\b|\busing\b/.test(scope.text);
    },
  },
  {
    id: 'js.interval_discarded',
    preset: 'resource_cleanup',
    languages: JS,
    needs: /\bsetInterval\b/,
    anchor: { at: /\bsetInterval\b/g, roots: ['expression_statement'] },
    query: '(expression_statement (call_expression function: (identifier) @f (#eq? @f "setInterval"))) @hit',
    severity: 0.5,
    message: 'setInterval handle discarded: the timer can never be cleared',
  },
  // state_mutation
  {
    id: 'py.global_write',
    preset: 'state_mutation',
    languages: PY,
    needs: /\bglobal\s/,
    anchor: { at: /\bglobal\s/g, roots: ['global_statement'] },
    query: '(global_statement) @hit',
    severity: 0.6,
    message: 'function rebinds module-level state (global)',
  },
  {
    id: 'js.module_state_write',
    preset: 'state_mutation',
    languages: JS,
    needs: /^(?:export\s+)?(?:let|var)\s/m,
    query: '[(assignment_expression left: (identifier) @target) (augmented_assignment_expression left: (identifier) @target) (update_expression argument: (identifier) @target)] @hit',
    severity: 0.5,
    message: 'function writes a module-level variable',
    check: ({ hit, target }, ctx) => {
      const fn = ancestor(hit, JS_FUNCTIONS);
      if (!fn) return false;
      // A module-level `let`/`var` of that name, not shadowed by a declaration inside the function.
      const name = target.text.replace(/\$/g, '\\$');
      const moduleLevel = new RegExp(`^(?:export\\s+)?(?:let|var)\\s+(?:[^=;]*[,{\\s])?${name}\\b`, 'm');
      const local = new RegExp(`\\b(?:let|var|const)\\s+${name}\\b|\\(\\s*${name}\\b|,\\s*${name}\\s*[,)]`);
      return moduleLevel.test(ctx.text) && !local.test(fn.text);
    },
  },
  // concurrency
  {
    id: 'js.async_foreach',
    preset: 'concurrency',
    languages: JS,
    needs: /\.forEach\s*\(\s*async\b/,
    anchor: { at: /\.forEach\s*\(\s*async\b/g, roots: ['call_expression'] },
    query: '(call_expression function: (member_expression property: (property_identifier) @p (#eq? @p "forEach")) arguments: (arguments [(arrow_function) (function_expression)] @cb)) @hit',
    severity: 0.7,
    message: 'forEach does not await async callbacks: the iterations run concurrently and errors escape',
    check: ({ cb }) => cb.text.startsWith('async'),
  },
  {
    id: 'js.floating_promise',
    preset: 'concurrency',
    languages: JS,
    needs: /\basync\b|\bfetch\s*\(/,
    // Statements that begin with a call (`save(x);`, `this.flush();`) of a function this file declares async.
    anchor: { at: /(?<=^[ \t]*)(?:this\.)?[\w$]+\s*\(/gm, roots: ['expression_statement'], keep: (m, text) => callsAsync(m[0], text, JS_ASYNC) },
    query: '(expression_statement (call_expression function: [(identifier) @f (member_expression object: (this) property: (property_identifier) @f)]) @hit)',
    severity: 0.6,
    message: 'promise neither awaited, returned nor caught: its rejection goes unhandled and its work runs unordered',
    check: ({ f, hit }, ctx) => ancestor(hit, JS_FUNCTIONS) !== null && (f.text === 'fetch' || asyncNames(ctx.text, JS_ASYNC).has(f.text)),
  },
  {
    id: 'py.coroutine_not_awaited',
    preset: 'concurrency',
    languages: PY,
    needs: /\basync\s+def\b/,
    anchor: { at: /(?<=^[ \t]*)(?:(?:self|cls)\.)?\w+\s*\(/gm, roots: ['expression_statement'], keep: (m, text) => callsAsync(m[0], text, PY_ASYNC) },
    query: '(expression_statement (call function: [(identifier) @f (attribute object: (identifier) @o attribute: (identifier) @f)]) @hit)',
    severity: 0.7,
    message: 'coroutine called without await: it never runs (Python warns "was never awaited")',
    check: ({ f, o, hit }, ctx) => (o === undefined || o.text === 'self' || o.text === 'cls') && ancestor(hit, PY_FUNCTIONS) !== null && asyncNames(ctx.text, PY_ASYNC).has(f.text),
  },
  {
    id: 'py.task_discarded',
    preset: 'concurrency',
    languages: PY,
    needs: /\b(?:create_task|ensure_future)\b/,
    anchor: { at: /\b(?:create_task|ensure_future)\b/g, roots: ['expression_statement'] },
    query: '(expression_statement (call function: (attribute attribute: (identifier) @a (#match? @a "^(create_task|ensure_future)$"))) @hit)',
    severity: 0.6,
    message: 'task reference discarded: the event loop keeps only a weak reference, so it may be collected mid-run',
  },
  {
    id: 'py.thread_not_joined',
    preset: 'concurrency',
    languages: PY,
    needs: /\bThread\s*\(/,
    anchor: { at: /\bThread\s*\(/g, roots: ['call'] },
    query: '(call function: [(attribute attribute: (identifier) @t) (identifier) @t] (#eq? @t "Thread")) @hit',
    severity: 0.4,
    message: 'thread started without a join in this file',
    check: (_, ctx) => !/\.join\(/.test(ctx.text),
  },
  // auth_boundary
  {
    id: 'js.route_without_auth',
    preset: 'auth_boundary',
    languages: JS,
    needs: /\.(?:get|post|put|patch|delete|all)\s*\(\s*['\"`]/,
    anchor: { at: /\.(?:get|post|put|patch|delete|all)\s*\(\s*['\"`]/g, roots: ['call_expression'] },
    query: '(call_expression function: (member_expression object: (identifier) @owner property: (property_identifier) @method (#match? @method "^(get|post|put|patch|delete|all)$")) arguments: (arguments . [(string) (template_string)] @route)) @hit',
    severity: 0.7,
    message: 'HTTP route with no authentication middleware',
    check: ({ hit, owner, method }) => {
      if (!ROUTE_OWNER.test(owner.text)) return false;
      const args = hit.childForFieldName('arguments');
      const handlers = (args?.namedChildren ?? []).slice(1);
      if (handlers.length === 0 || handlers.slice(0, -1).some((a) => a !== null && AUTH.test(a.text))) return false;
      return method.text === 'get' ? { severity: 0.4 } : true;
    },
  },
  {
    id: 'py.route_without_auth',
    preset: 'auth_boundary',
    languages: PY,
    needs: /@\w+(?:\.\w+)*\.(?:route|get|post|put|patch|delete|api_route)\s*\(/,
    anchor: { at: /@\w+(?:\.\w+)*\.(?:route|get|post|put|patch|delete|api_route)\s*\(/g, roots: ['decorated_definition'] },
    query: '(decorated_definition definition: (function_definition) @fn) @hit',
    severity: 0.7,
    message: 'HTTP route with no authentication decorator',
    check: ({ hit, fn }) => {
      const decorators = hit.namedChildren.filter((c) => c?.type === 'decorator') as Node[];
      const route = decorators.find((d) => /\.(route|get|post|put|patch|delete|api_route)\s*\(/.test(d.text));
      if (!route || decorators.some((d) => AUTH.test(d.text))) return false;
      const params = fn.childForFieldName('parameters')?.text ?? '';
      if (/Depends\([^)]*(auth|user|token)/i.test(params)) return false;
      const mutating = /\.(post|put|patch|delete)\s*\(|methods\s*=\s*\[[^\]]*(POST|PUT|PATCH|DELETE)/i.test(route.text);
      return mutating ? true : { severity: 0.4 };
    },
  },
  // dependency_injection
  {
    id: 'js.hardwired_dependency',
    preset: 'dependency_injection',
    languages: JS,
    needs: /\bclass\b[\s\S]*\bnew\s+[A-Z]/,
    anchor: { at: /\bnew\s+[A-Z]/g, roots: ['new_expression'] },
    query: '(new_expression constructor: (identifier) @cls (#match? @cls "^[A-Z]")) @hit',
    severity: 0.4,
    message: 'class builds its own collaborator instead of receiving it',
    check: ({ hit, cls }, ctx) => heldByJsObject(hit) && ancestor(hit, JS_CLASSES) !== null && !/(Error|Exception)$/.test(cls.text) && ctx.classNames.has(cls.text),
  },
  {
    id: 'py.hardwired_dependency',
    preset: 'dependency_injection',
    languages: PY,
    needs: /\bclass\s/,
    anchor: { at: /\b[A-Z]\w*\s*\(/g, roots: ['call'] },
    query: '(call function: (identifier) @cls (#match? @cls "^[A-Z]")) @hit',
    severity: 0.4,
    message: 'class builds its own collaborator instead of receiving it',
    check: ({ hit, cls }, ctx) => heldByPyObject(hit) && ancestor(hit, new Set(['class_definition'])) !== null && ancestor(hit, PY_FUNCTIONS) !== null && !/(Error|Exception|Warning)$/.test(cls.text) && ctx.classNames.has(cls.text),
  },
];
