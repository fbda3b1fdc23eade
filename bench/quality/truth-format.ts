/** The shape of a ground-truth file (bench/quality/truth/<id>.json), shared by the tools and the bench. */

/** A caller at depth 1: the enclosing function/method (its name and the line of its name), or the file (name null, line 0). */
export interface TruthCaller {
  path: string;
  name: string | null;
  line: number;
  /** Only through an interface, abstract or base member the checker relates to this declaration (TypeScript truth only). */
  dispatch?: boolean;
  /**
   * With `dispatch`: whether the call can run this declaration, i.e. the member it resolves to is
   * this declaration's or one of a supertype it implements or extends (false: a sibling's member).
   */
  reachable?: boolean;
}

/** One function or method of the repository with every caller its language's tooling reports. */
export interface TruthDeclaration {
  path: string;
  /** `name` for functions, `Owner.name` for methods. */
  name: string;
  kind: 'function' | 'method';
  /** Line of the name. */
  line: number;
  startLine: number;
  endLine: number;
  callers: TruthCaller[];
}

/** A ground-truth file: which tool, at which commit, answered for which declarations. */
export interface TruthFile {
  repo: string;
  commit: string;
  language: string;
  tool: string;
  generatedAt: string;
  script: string;
  notes: string[];
  declarations: TruthDeclaration[];
}
