/**
 * The checker's edges of one source file: every call, `new`, decorator, tagged template and JSX
 * element resolved to its declaration (aliases, default and namespace imports and re-exports
 * followed), calls through interface members and abstract methods also linked to implementations
 * (`dispatches`), and functions, methods and classes used as values (`references`). Declarations
 * outside the workspace (node_modules, lib.d.ts) make no edge.
 */
import type TS from 'typescript';
import ts from './compiler.ts';
import { dispatchOwner, targetOf, unalias, type DeclTarget } from './declarations.ts';
import type { Implementations } from './implementations.ts';
import { UNRESOLVED, type PreciseEdge, type PreciseRelation } from './protocol.ts';

/** What edge collection needs besides the file. */
export interface CollectContext {
  checker: TS.TypeChecker;
  /** Workspace-relative path of a file name, or null outside the workspace. */
  rel(fileName: string): string | null;
  /** The program's subtype index (built on first use). */
  implementations(): Implementations;
  /** Names that may lead into the workspace (see candidate-names.ts); others are never resolved. */
  names: ReadonlySet<string>;
  /** Names a member access can reach the workspace through. */
  members: ReadonlySet<string>;
  /** Names whose member accesses may reach any workspace name (imports, namespaces, classes). */
  qualifiers: ReadonlySet<string>;
  /** Names of get/set accessors: reading or writing one is a call. */
  accessors: ReadonlySet<string>;
}

// `.bind`, `.call`, `.apply` on a function invoke it (called) or pass it on; other member accesses use it as a receiver.
const PASS_ON = new Set(['bind', 'call', 'apply']);

/** Collects a source file's edges. */
export function collectEdges(sf: TS.SourceFile, ctx: CollectContext): PreciseEdge[] {
  const out: PreciseEdge[] = [];
  const seen = new Set<string>();
  const { checker } = ctx;
  const isJavaScript = /\.[cm]?jsx?$/.test(sf.fileName);

  const emit = (at: TS.Node, t: DeclTarget | null, relation: PreciseRelation): boolean => {
    if (!t) return false;
    const toPath = ctx.rel(t.fileName);
    if (toPath === null) return false;
    const line = sf.getLineAndCharacterOfPosition(at.getStart(sf)).line + 1;
    const key = `${line}\0${toPath}\0${t.line}\0${relation}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ line, toPath, toLine: t.line, toName: t.name, relation });
    }
    return true;
  };

  /** True when a name can resolve into the workspace: a member name after `x.`, unless `x` may be a namespace. */
  const isCandidate = (id: TS.Identifier | TS.PrivateIdentifier): boolean => {
    const p = id.parent;
    if (!(ts.isPropertyAccessExpression(p) && p.name === id) && !(ts.isQualifiedName(p) && p.right === id)) return ctx.names.has(id.text);
    if (ctx.members.has(id.text)) return true;
    let receiver: TS.Node = ts.isPropertyAccessExpression(p) ? p.expression : p.left;
    while (ts.isParenthesizedExpression(receiver) || ts.isNonNullExpression(receiver)) receiver = receiver.expression;
    // `ns.f()`, `Outer.Inner.f()`: the receiver's own name says whether it may be a namespace.
    if (ts.isPropertyAccessExpression(receiver)) receiver = receiver.name;
    else if (ts.isQualifiedName(receiver)) receiver = receiver.right;
    return ts.isIdentifier(receiver) && ctx.qualifiers.has(receiver.text) && ctx.names.has(id.text);
  };

  const symbolDecls = (node: TS.Node): TS.Declaration[] => {
    const sym = unalias(checker, checker.getSymbolAtLocation(node));
    return sym?.declarations ?? [];
  };

  /**
   * What a local copied from a module or object stands for, one step: `const f = utils.f` /
   * `var stringify = utils.stringify` (the member read), `const { isString } = utils` (the member of
   * the object destructured). JavaScript modules copy their imports' members so; the checker types
   * the local, but its declaration is the copy, which names no function.
   */
  const copiedDecls = (d: TS.Declaration): TS.Declaration[] => {
    // `exports.requireOrImport = tryImportAndRequire`, `proto.add = add`: the function assigned.
    if (ts.isPropertyAccessExpression(d) && ts.isBinaryExpression(d.parent) && d.parent.left === d && d.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const value = d.parent.right;
      if (ts.isIdentifier(value)) return symbolDecls(value);
      if (ts.isPropertyAccessExpression(value)) return symbolDecls(value.name);
      // `req.get = req.header = function header() {…}`: the method the chain assigns.
      if (ts.isBinaryExpression(value) && value.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(value.left)) return symbolDecls(value.left.name);
      return [];
    }
    if (ts.isVariableDeclaration(d) && ts.isIdentifier(d.name) && d.initializer) {
      let init: TS.Expression = d.initializer;
      while (ts.isParenthesizedExpression(init)) init = init.expression;
      if (ts.isPropertyAccessExpression(init)) return symbolDecls(init.name);
      return [];
    }
    if (ts.isBindingElement(d) && ts.isObjectBindingPattern(d.parent) && !d.dotDotDotToken && ts.isVariableDeclaration(d.parent.parent) && d.parent.parent.initializer) {
      const key = d.propertyName ?? d.name;
      if (!ts.isIdentifier(key)) return [];
      return checker.getTypeAtLocation(d.parent.parent.initializer).getProperty(key.text)?.declarations ?? [];
    }
    return [];
  };

  /**
   * Calls through a member that other declarations implement or override also dispatch to those.
   * The walk starts at the receiver's static type when it has this very member (`d.m()` with
   * `d: D` reaches overrides below D, not its siblings), else at the member's owner. `super.m()`
   * runs exactly the base member.
   */
  const emitDispatch = (at: TS.Node, callee: TS.Expression, decl: TS.Declaration, relation: PreciseRelation = 'dispatches'): void => {
    const member = (decl as TS.NamedDeclaration).name;
    if (!member || !(ts.isIdentifier(member) || ts.isPrivateIdentifier(member) || ts.isStringLiteral(member))) return;
    const receiver = receiverOf(callee);
    if (receiver?.kind === ts.SyntaxKind.SuperKeyword) return;
    const owner = dispatchOwner(checker, decl);
    if (!owner) return;
    const impls = ctx.implementations();
    if (!impls.hasSubtypes(owner)) return;
    let start = owner;
    if (receiver) {
      let type = checker.getTypeAtLocation(receiver);
      if (type.flags & ts.TypeFlags.TypeParameter) type = checker.getBaseConstraintOfType(type) ?? type;
      const sym = type.aliasSymbol ?? type.getSymbol();
      if (sym && sym !== owner && sym.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface) && type.getProperty(member.text)?.declarations?.includes(decl)) start = sym;
    }
    for (const impl of impls.implementationsOf(start, member.text)) emit(at, targetOf(impl), relation);
  };

  /** The receiver of a member call (`r` in `r.m()` / `r['m']()`), or null. */
  const receiverOf = (e: TS.Expression): TS.Expression | null => {
    while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
    return ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e) ? e.expression : null;
  };

  /** The node naming the callee, for positions and symbol fallbacks. */
  const calleeName = (e: TS.Expression): TS.Node => {
    while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
    if (ts.isPropertyAccessExpression(e)) return e.name;
    if (ts.isElementAccessExpression(e)) return e.argumentExpression;
    return e;
  };

  const resolveCall = (node: TS.CallLikeExpression, callee: TS.Expression): void => {
    const at = calleeName(callee);
    if ((ts.isIdentifier(at) || ts.isPrivateIdentifier(at)) && !isCandidate(at)) return;
    // The symbol of the callee name: it needs the receiver's type, not overload resolution and
    // inference over the arguments. `new` names the class, not the constructor found (that may be
    // a base class's).
    let decls = symbolDecls(at);
    // No declaration that is a node (an interface member still dispatches, below): what a copy stands for.
    if (decls.length > 0 && decls.every((d) => targetOf(d) === null)) decls = [...decls, ...decls.flatMap(copiedDecls)];
    let hit = false;
    for (const d of decls) {
      // A JavaScript constructor function (`function Ruler() {…}` with prototype methods) is a class too.
      if (ts.isNewExpression(node) && !ts.isClassLike(d) && !((d.flags & ts.NodeFlags.JavaScriptFile) !== 0 && (ts.isFunctionDeclaration(d) || ts.isFunctionExpression(d)))) continue;
      // `new C()` runs C's constructor too, when C declares one.
      if (ts.isNewExpression(node) && ts.isClassLike(d)) emitConstructor(at, d);
      // An interface member need not be a node itself (a property signature) to dispatch.
      if (!ts.isNewExpression(node)) emitDispatch(at, callee, d);
      if (emit(at, targetOf(d), 'calls')) hit = true;
      // Overload signatures and merged declarations name the same node: one is enough.
      if (hit && !isUnionMember(d, decls)) break;
    }
    // No symbol-level answer means no workspace declaration is named here: a variable or parameter
    // holding a function of unknown origin (`const auth = jwt()`), an `any` receiver, a call of a
    // call's result, a package not installed. Overload resolution (getResolvedSignature) is never
    // asked: on type-heavy code one call can cost seconds, and it finds no named declaration here.
    // A member call with no symbol at all (an `any` receiver, a property the type lacks: express's
    // `app.listen()`, `app` being a function its methods are mixed into) is marked, so the graph
    // keeps the name-resolved call there: on express the checker alone left `app.use` 4 callers of 85.
    // JavaScript only: in TypeScript an `any` receiver is deliberate, and a guess by name was wrong
    // more often than right (kysely's `arg: any` → `arg.toOperationNode()`).
    if (isJavaScript && decls.length === 0 && !ts.isNewExpression(node) && receiverOf(callee) !== null && (ts.isIdentifier(at) || ts.isPrivateIdentifier(at))) {
      const line = sf.getLineAndCharacterOfPosition(at.getStart(sf)).line + 1;
      const key = `${line}\0\0${at.text}\0${UNRESOLVED}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push({ line, toPath: '', toLine: 0, toName: at.text, relation: UNRESOLVED });
      }
    }
  };

  const emitConstructor = (at: TS.Node, cls: TS.ClassLikeDeclaration): void => {
    const ctor = cls.members.find((m): m is TS.ConstructorDeclaration => ts.isConstructorDeclaration(m) && m.body !== undefined);
    if (!ctor) return;
    const csf = ctor.getSourceFile();
    emit(at, { fileName: csf.fileName, name: 'constructor', line: csf.getLineAndCharacterOfPosition(ctor.getStart(csf)).line + 1, decl: ctor }, 'calls');
  };

  /** True when declarations belong to different owners (a member of a union type): each is a target. */
  const isUnionMember = (d: TS.Declaration, all: readonly TS.Declaration[]): boolean => all.some((o) => o.parent !== d.parent);

  const isCallee = (n: TS.Node): boolean => {
    const p = n.parent;
    return (
      ((ts.isCallExpression(p) || ts.isNewExpression(p)) && p.expression === n) ||
      (ts.isTaggedTemplateExpression(p) && p.tag === n) ||
      ts.isDecorator(p) ||
      ((ts.isJsxOpeningElement(p) || ts.isJsxSelfClosingElement(p) || ts.isJsxClosingElement(p)) && p.tagName === n)
    );
  };

  /** A name used as a value: `fn` in `arr.map(fn)`, `options.get ?? get`, `{ handler: fn }`, `this.m.bind(this)`. */
  const valueReference = (id: TS.Identifier | TS.PrivateIdentifier): void => {
    let valueNode: TS.Node = id;
    const p = id.parent;
    if ((ts.isPropertyAccessExpression(p) && p.name === id) || (ts.isQualifiedName(p) && p.right === id)) valueNode = p;
    else if (ts.isPropertyAccessExpression(p) && p.expression === id && !PASS_ON.has(p.name.text)) return;
    else if ((p as TS.NamedDeclaration).name === id) return; // a declaration's own name, an attribute name
    else if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isExportAssignment(p)) return;
    else if (ts.isShorthandPropertyAssignment(p)) {
      if (!ctx.names.has(id.text)) return;
      const sym = unalias(checker, checker.getShorthandAssignmentValueSymbol(p));
      for (const d of sym?.declarations ?? []) if (emit(id, targetOf(d), 'references')) return;
      return;
    }
    // Reading or writing an accessor runs it.
    if (valueNode !== id && ctx.accessors.has(id.text)) {
      const accessor = symbolDecls(id).find((d) => ts.isGetAccessorDeclaration(d) || ts.isSetAccessorDeclaration(d));
      if (accessor) {
        emit(id, targetOf(accessor), 'calls');
        return;
      }
    }
    // Skip callees, property receivers (`Foo.bar` uses Foo as a namespace), and writes.
    const vp = valueNode.parent;
    if (isCallee(valueNode) || ts.isJsxAttribute(vp)) return;
    if (ts.isPropertyAccessExpression(vp) && vp.expression === valueNode && !PASS_ON.has(vp.name.text)) return;
    if (ts.isElementAccessExpression(vp) && vp.expression === valueNode) return;
    if (ts.isBinaryExpression(vp) && vp.left === valueNode && vp.operatorToken.kind === ts.SyntaxKind.EqualsToken) return;
    if (ts.isTypeOfExpression(vp) || ts.isDeleteExpression(vp)) return;
    if (!isCandidate(id) || !passesValueOn(valueNode)) return;
    // `f.call(…)`, `f.apply(…)` run f; `this.m.bind(this)` makes the function m is called through
    // (TypeScript's call hierarchy lists all three as incoming calls of m).
    const invoked = ts.isPropertyAccessExpression(vp) && vp.expression === valueNode && isCallee(vp);
    const decls = symbolDecls(id);
    // Only functions, methods and classes are "used as values"; a variable holding data is not.
    for (const d of decls) {
      // `this.visit.bind(this)` on an abstract `visit` hands on whichever override the instance has.
      if (valueNode !== id) emitDispatch(id, valueNode as TS.Expression, d, invoked ? 'dispatches' : 'references');
      if (emit(id, targetOf(d), invoked ? 'calls' : 'references')) return;
    }
  };

  /** True where a value is handed on: an argument, an initializer, an operand of `??`/`||`/`=`, a return, an element. */
  const passesValueOn = (n: TS.Node): boolean => {
    let p = n.parent;
    while (ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || ts.isSatisfiesExpression(p) || ts.isNonNullExpression(p)) {
      n = p;
      p = p.parent;
    }
    if (ts.isPropertyAccessExpression(p)) return p.expression === n && PASS_ON.has(p.name.text);
    if (ts.isCallExpression(p) || ts.isNewExpression(p)) return p.expression !== n;
    if (ts.isBinaryExpression(p)) return p.right === n || p.operatorToken.kind !== ts.SyntaxKind.EqualsToken;
    return (
      ts.isVariableDeclaration(p) ||
      ts.isPropertyAssignment(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isParameter(p) ||
      ts.isConditionalExpression(p) ||
      ts.isReturnStatement(p) ||
      ts.isArrayLiteralExpression(p) ||
      ts.isJsxExpression(p) ||
      ts.isArrowFunction(p) ||
      ts.isSpreadElement(p) ||
      ts.isYieldExpression(p) ||
      ts.isBindingElement(p)
    );
  };

  const visit = (node: TS.Node): void => {
    // Types name shapes, not behaviour; tree-sitter's type references cover them.
    if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return;
    if (ts.isImportDeclaration(node) || ts.isImportEqualsDeclaration(node)) return;
    if (ts.isExportDeclaration(node)) return;
    if (ts.isCallExpression(node)) {
      if (node.expression.kind !== ts.SyntaxKind.ImportKeyword) resolveCall(node, node.expression);
    } else if (ts.isNewExpression(node)) resolveCall(node, node.expression);
    else if (ts.isTaggedTemplateExpression(node)) resolveCall(node, node.tag);
    else if (ts.isDecorator(node) && !ts.isCallExpression(node.expression)) resolveCall(node, node.expression);
    else if (ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) {
      for (const d of symbolDecls(node.tagName)) if (emit(node.tagName, targetOf(d), 'calls')) break;
    } else if (ts.isHeritageClause(node)) {
      // `extends Base` is inheritance (tree-sitter links it); only calls inside count (`extends mixin(B)`).
      for (const t of node.types) ts.forEachChild(t.expression, visitCallsOnly);
      return;
    } else if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      valueReference(node);
    }
    ts.forEachChild(node, visit);
  };
  const visitCallsOnly = (node: TS.Node): void => {
    if (ts.isCallExpression(node)) resolveCall(node, node.expression);
    ts.forEachChild(node, visitCallsOnly);
  };
  visit(sf);
  return out;
}
