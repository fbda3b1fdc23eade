/**
 * TS/JS symbols from the TypeScript parser, for files tree-sitter could not parse cleanly (newer
 * syntax than the grammar knows: `satisfies`, decorators, `accessor`, `using`, const type
 * parameters, `declare global`). Qualified names, kinds and parents follow the tree-sitter
 * extractor's conventions (`Class.method`, `outer.inner`, namespaces as a prefix without a symbol,
 * `#2` for repeats, overloads merged afterwards), so ids agree whichever parser read the file.
 * The compiler is loaded on first use only: clean files never pay for it. Type references stay
 * those tree-sitter found; `parseErrors` becomes the TypeScript parser's count.
 */
import { createRequire } from 'node:module';
import type tsTypes from 'typescript';
import type { ExtractedCall, ExtractedImport, ExtractedInherit, ExtractedSymbol, FileExtraction, SymbolKind } from '../extraction.ts';

let tsModule: typeof tsTypes | null = null;
function typescript(): typeof tsTypes {
  tsModule ??= createRequire(import.meta.url)('typescript') as typeof tsTypes;
  return tsModule;
}

type ParseImport = (statement: string, line: number, out: ExtractedImport[]) => void;

/**
 * Re-extracts a file with the TypeScript parser; returns null when that parser finds at least as
 * many syntax errors as tree-sitter did (then the tree-sitter extraction stands).
 */
export function extractWithTypeScript(ex: FileExtraction, source: string, parseImport: ParseImport): FileExtraction | null {
  const ts = typescript();
  const kind = /\.tsx$/.test(ex.path) ? ts.ScriptKind.TSX : /\.[cm]?jsx?$/.test(ex.path) ? (/x$/.test(ex.path) ? ts.ScriptKind.JSX : ts.ScriptKind.JS) : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(ex.path, source, ts.ScriptTarget.Latest, true, kind);
  const errors = (sf as unknown as { parseDiagnostics?: unknown[] }).parseDiagnostics?.length ?? 0;
  if (errors >= ex.parseErrors) return null;
  const line = (pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const symbols: ExtractedSymbol[] = [];
  const imports: ExtractedImport[] = [];
  const calls: ExtractedCall[] = [];
  const inherits: ExtractedInherit[] = [];
  const taken = new Map<string, number>();
  const exportNames = new Set<string>();
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st) && !st.moduleSpecifier && st.exportClause && ts.isNamedExports(st.exportClause)) {
      for (const e of st.exportClause.elements) exportNames.add((e.propertyName ?? e.name).text);
    }
  }

  interface Scope {
    /** Qualified-name prefix ('' at top level). */
    prefix: string;
    /** The enclosing symbol (null outside any, or directly in a namespace). */
    symbol: ExtractedSymbol | null;
    /** Functions declared directly here are methods. */
    container: boolean;
    /** Calls here belong to this qualified name (null: top level). */
    caller: string | null;
  }

  const hasModifier = (n: tsTypes.Node, k: tsTypes.SyntaxKind): boolean => (ts.canHaveModifiers(n) ? (ts.getModifiers(n) ?? []).some((m) => m.kind === k) : false);
  const docOf = (n: tsTypes.Node): string | undefined => {
    const docs = (n as unknown as { jsDoc?: { comment?: unknown }[] }).jsDoc;
    const c = docs?.[docs.length - 1]?.comment;
    return typeof c === 'string' && c.trim() ? c.trim().slice(0, 300) : undefined;
  };

  const declare = (node: tsTypes.Node, name: string, k: SymbolKind, scope: Scope): Scope => {
    const kindHere: SymbolKind = k === 'function' && scope.container ? 'method' : k;
    let q = scope.prefix ? `${scope.prefix}.${name}` : name;
    const n = (taken.get(q) ?? 0) + 1;
    taken.set(q, n);
    if (n > 1) q = `${q}#${n}`;
    const parent = scope.symbol;
    let exported: boolean;
    if (!parent) exported = scope.prefix === '' ? hasModifier(node, ts.SyntaxKind.ExportKeyword) || exportNames.has(name) : hasModifier(node, ts.SyntaxKind.ExportKeyword);
    else if (parent.kind === 'class' || parent.kind === 'interface') exported = parent.exported === true && !hasModifier(node, ts.SyntaxKind.PrivateKeyword) && !name.startsWith('#');
    else exported = false;
    const sym: ExtractedSymbol = { kind: kindHere, name, qualifiedName: q, startLine: line(node.getStart(sf)), endLine: line(node.end), exported };
    if (parent) sym.parent = parent.qualifiedName;
    // An overload or interface signature: no body (the overload merge reads it).
    if ((ts.isFunctionLike(node) && !(node as tsTypes.FunctionLikeDeclaration).body) || ts.isMethodSignature(node)) sym.bodiless = true;
    const doc = docOf(node);
    if (doc) sym.doc = doc;
    symbols.push(sym);
    return { prefix: q, symbol: sym, container: k === 'class' || k === 'interface' || k === 'type', caller: q };
  };

  const nameText = (n: tsTypes.Node | undefined): string | null =>
    n && (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n)) ? n.text : null;
  const isFunctionValue = (e: tsTypes.Expression | undefined): boolean => {
    while (e && (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e))) e = e.expression;
    return e !== undefined && (ts.isArrowFunction(e) || ts.isFunctionExpression(e));
  };
  const heritage = (node: tsTypes.ClassLikeDeclaration | tsTypes.InterfaceDeclaration, child: string): void => {
    for (const clause of node.heritageClauses ?? []) {
      for (const t of clause.types) {
        const text = t.expression.getText(sf);
        const parent = text.split('.').pop()!.replace(/[^\w$].*$/, '');
        if (!parent) continue;
        const implementsClause = clause.token === ts.SyntaxKind.ImplementsKeyword;
        inherits.push({ child, parent, kind: implementsClause ? 'implements' : 'extends' });
      }
    }
  };

  const visit = (node: tsTypes.Node, scope: Scope): void => {
    let inner = scope;
    if (ts.isImportDeclaration(node) || (ts.isExportDeclaration(node) && node.moduleSpecifier)) {
      parseImport(node.getText(sf), line(node.getStart(sf)), imports);
      return;
    }
    if (ts.isImportEqualsDeclaration(node)) {
      parseImport(node.getText(sf), line(node.getStart(sf)), imports);
      return;
    }
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isMethodSignature(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node))) {
      const name = ts.isConstructorDeclaration(node) ? 'constructor' : nameText(node.name);
      if (name) inner = declare(node, name, 'function', scope);
    } else if ((ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node)) && isFunctionValue(node.initializer)) {
      const name = nameText(node.name);
      // tree-sitter spans the whole `const` statement for a single declarator.
      const span = ts.isVariableDeclaration(node) && ts.isVariableDeclarationList(node.parent) && node.parent.declarations.length === 1 ? node.parent.parent : node;
      if (name) inner = declare(span, name, 'function', scope);
    } else if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const name = nameText(node.name) ?? (ts.isClassExpression(node) && ts.isVariableDeclaration(node.parent) ? nameText(node.parent.name) : null);
      if (name) {
        inner = declare(node, name, 'class', scope);
        heritage(node, inner.prefix);
      }
    } else if (ts.isInterfaceDeclaration(node)) {
      inner = declare(node, node.name.text, 'interface', scope);
      heritage(node, inner.prefix);
    } else if (ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node)) {
      inner = declare(node, node.name.text, 'type', scope);
    } else if (ts.isModuleDeclaration(node)) {
      // `namespace N` prefixes its members without being a symbol; `declare global` is transparent.
      const name = ts.isIdentifier(node.name) && !(node.flags & ts.NodeFlags.GlobalAugmentation) ? node.name.text : null;
      inner = { prefix: name ? (scope.prefix ? `${scope.prefix}.${name}` : name) : scope.prefix, symbol: null, container: false, caller: scope.caller };
    } else if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      let callee: tsTypes.Expression = node.expression;
      while (ts.isParenthesizedExpression(callee) || ts.isNonNullExpression(callee)) callee = callee.expression;
      if (ts.isCallExpression(node) && ts.isIdentifier(callee) && callee.text === 'require' && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
        imports.push({ specifier: node.arguments[0].text, line: line(node.getStart(sf)), names: [] });
      } else if (ts.isCallExpression(node) && callee.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
        imports.push({ specifier: node.arguments[0].text, line: line(node.getStart(sf)), names: [] });
      } else if (ts.isIdentifier(callee)) {
        calls.push({ caller: scope.caller, callee: callee.text, line: line(callee.getStart(sf)) });
      } else if (ts.isPropertyAccessExpression(callee)) {
        calls.push({ caller: scope.caller, callee: callee.name.text, receiver: callee.expression.getText(sf), line: line(callee.name.getStart(sf)) });
      }
    }
    // Functions nested in a method or function are not members of the class: their scope is a function.
    if (inner !== scope && inner.symbol && (inner.symbol.kind === 'function' || inner.symbol.kind === 'method')) inner = { ...inner, container: false };
    ts.forEachChild(node, (c) => visit(c, inner));
  };
  visit(sf, { prefix: '', symbol: null, container: false, caller: null });
  imports.sort((a, b) => a.line - b.line);
  calls.sort((a, b) => a.line - b.line);
  return { ...ex, symbols, imports, calls, inherits, parseErrors: errors };
}
