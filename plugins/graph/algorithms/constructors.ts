/** Constructors: a call of a class runs them, and the graph may link such a call to the class itself. */

/** Constructor names of languages whose call of the class runs them (Python's `Cls(…)`, a JS/TS `new Cls`). */
const CONSTRUCTOR_NAMES: ReadonlySet<string> = new Set(['__init__', '__new__', 'constructor']);

/** Whether a method of a class is its constructor (by those names, or named as the class: Java, C#). */
export function isConstructorOf(method: { label: string }, cls: { label: string }): boolean {
  return CONSTRUCTOR_NAMES.has(method.label) || method.label === cls.label;
}
