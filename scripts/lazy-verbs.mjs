// Build step of scripts/bundle.mjs: built-in verbs whose handler module is evaluated on the verb's first
// call. A verb file declaring `export const xVerb = defineVerb({ ..., handler })` is seen by its plugin's
// index.ts as a *registration module*: the same file with the handler replaced by
// `load: () => import('./x.ts').then((m) => m.xVerb)` and everything the rest of the definition does not
// use left out (the handler's imports above all). The file itself is then reached only through that
// dynamic import (unless other start-up code imports it too), so esbuild wraps it and what only it
// imports in a lazy initialiser: neither is evaluated, nor compiled into the start's code cache, until a
// call needs it. Sources run from TypeScript (tests, M1ND_FROM_SOURCE) are not transformed; the `load`
// form they would give is core's (core/verb.ts `lazyHandler`), tested there.
import path from 'node:path';

/**
 * The registration module of a verb file, or null when it has no `export const … = defineVerb({…})` with
 * a `handler`, or has top-level statements whose side effects the registration would lose.
 */
export function registrationModule(ts, source, file) {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const statements = [...sf.statements];
  /** Top-level value names → index of the statement declaring them. */
  const declared = new Map();
  const verbs = new Map();
  for (const [i, st] of statements.entries()) {
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      if (!clause) return null; // an import for its side effects: keep the file whole
      if (clause.isTypeOnly) continue;
      if (clause.name) declared.set(clause.name.text, i);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) declared.set(bindings.name.text, i);
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) if (!e.isTypeOnly) declared.set(e.name.text, i);
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) for (const name of bindingNames(ts, d.name)) declared.set(name, i);
      const handler = verbHandler(ts, st);
      if (handler) verbs.set(i, handler);
    } else if (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) {
      if (st.name) declared.set(st.name.text, i);
      const handler = ts.isFunctionDeclaration(st) ? factoryHandler(ts, st) : undefined;
      if (handler) verbs.set(i, handler);
    } else if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) {
      continue;
    } else if (ts.isExportDeclaration(st) && st.isTypeOnly) {
      continue;
    } else {
      // Expression statements, re-exports, `export default`: the registration could not stand for the file.
      return null;
    }
  }
  if (verbs.size === 0) return null;

  // The statements the registrations need, transitively (identifiers in type positions do not count).
  const needed = new Set();
  const names = new Set();
  const queue = [];
  const want = (i) => {
    if (needed.has(i)) return;
    needed.add(i);
    queue.push(i);
  };
  for (const i of verbs.keys()) want(i);
  while (queue.length > 0) {
    const i = queue.pop();
    const st = statements[i];
    if (ts.isImportDeclaration(st)) continue;
    const skip = verbs.get(i);
    const visit = (node) => {
      if (node === skip || ts.isTypeNode(node)) return;
      if (ts.isIdentifier(node) && declared.has(node.text)) {
        names.add(node.text);
        want(declared.get(node.text));
      }
      ts.forEachChild(node, visit);
    };
    ts.forEachChild(st, visit);
  }

  const out = [];
  /** Exported value names the registration keeps (another verb file's registration may import them). */
  const exports = [];
  /** Imports of other project files: the line as written here, the specifier and the names. */
  const imports = [];
  for (const [i, st] of statements.entries()) {
    if (!needed.has(i)) continue;
    if (ts.isImportDeclaration(st)) {
      const clause = st.importClause;
      const parts = [];
      if (clause.name && names.has(clause.name.text)) parts.push(clause.name.text);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings) && names.has(bindings.name.text)) parts.push(`* as ${bindings.name.text}`);
      if (bindings && ts.isNamedImports(bindings)) {
        const kept = bindings.elements.filter((e) => !e.isTypeOnly && names.has(e.name.text)).map((e) => e.getText(sf));
        if (kept.length > 0) parts.push(`{ ${kept.join(', ')} }`);
      }
      if (parts.length === 0) continue;
      const line = `import ${parts.join(', ')} from ${st.moduleSpecifier.getText(sf)};`;
      out.push(line);
      if (st.moduleSpecifier.text.startsWith('.')) imports.push({ line, specifier: st.moduleSpecifier.text, names: [clause.name?.text, ...(bindings && ts.isNamedImports(bindings) ? bindings.elements.filter((e) => names.has(e.name.text)).map((e) => (e.propertyName ?? e.name).text) : ['*'])].filter(Boolean) });
      continue;
    }
    if (st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) for (const [name, at] of declared) if (at === i) exports.push(name);
    const handler = verbs.get(i);
    if (!handler) {
      out.push(st.getText(sf));
      continue;
    }
    const name = verbName(ts, st);
    const text = st.getText(sf);
    const at = handler.getStart(sf) - st.getStart(sf);
    // A factory's definition is made again by the file's own factory, with the same arguments.
    const made = ts.isFunctionDeclaration(st) ? `m.${name}(${st.parameters.map((p) => p.name.text).join(', ')})` : `m.${name}`;
    const load = `load: () => import(${JSON.stringify(`./${path.basename(file)}`)}).then((m) => ${made})`;
    out.push(text.slice(0, at) + load + text.slice(at + handler.getText(sf).length));
  }
  return { contents: `${out.join('\n')}\n`, exports, imports, verbs: [...verbs.keys()].map((i) => verbName(ts, statements[i])) };
}

function verbName(ts, st) {
  return ts.isFunctionDeclaration(st) ? st.name.text : st.declarationList.declarations[0].name.text;
}

/**
 * The `handler` property of `export function xVerb(a, b) { return defineVerb({ … }); }` (one return
 * statement, plain parameters: the factory keeps no state a second call would not share), or undefined.
 */
function factoryHandler(ts, st) {
  if (!st.name || !st.body || !st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return undefined;
  if (st.asteriskToken || st.body.statements.length !== 1 || !st.parameters.every((p) => ts.isIdentifier(p.name) && !p.dotDotDotToken)) return undefined;
  const ret = st.body.statements[0];
  if (!ts.isReturnStatement(ret) || !ret.expression) return undefined;
  return definitionHandler(ts, ret.expression);
}

/** The `handler` property of `export const x = defineVerb({ … })`, or undefined. */
function verbHandler(ts, st) {
  if (!st.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return undefined;
  const decls = st.declarationList.declarations;
  if (decls.length !== 1 || !ts.isIdentifier(decls[0].name)) return undefined;
  return definitionHandler(ts, decls[0].initializer);
}

/** The `handler` property of `defineVerb({ … })`, or undefined. */
function definitionHandler(ts, init) {
  if (!init || !ts.isCallExpression(init) || !ts.isIdentifier(init.expression) || init.expression.text !== 'defineVerb') return undefined;
  const def = init.arguments[0];
  if (!def || !ts.isObjectLiteralExpression(def)) return undefined;
  const handlers = def.properties.filter((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'handler');
  if (handlers.length !== 1 || def.properties.some((p) => ts.isSpreadAssignment(p) || (p.name && ts.isIdentifier(p.name) && p.name.text === 'load'))) return undefined;
  return handlers[0];
}

function bindingNames(ts, name) {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(ts, e.name)));
}
