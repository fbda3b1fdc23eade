/**
 * A small TypeScript repository whose answers are known by construction: a call chain a → b → c
 * with a side branch a → d, handlers that all validate but one, a tested/untested sibling, two
 * duplicated functions, and a type hierarchy. Tests write it into a temp workspace and ingest it.
 */
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';
import { writeFixtureRepo } from '../../../helpers/fixture-repo.ts';

export const ANALYSIS_FILES: Record<string, string> = {
  'src/c.ts': `/** Doubles a value at the end of the chain. */
export function c(x: number): number {
  return x * 2;
}
`,
  'src/b.ts': `import { c } from './c.ts';

/** The middle of the chain. */
export function b(x: number): number {
  return c(x) + 1;
}
`,
  'src/d.ts': `/** A side branch only a uses. */
export function d(): number {
  return 4;
}
`,
  'src/a.ts': `import { b } from './b.ts';
import { d } from './d.ts';

/** The start of the chain. */
export function a(): number {
  return b(1) + d();
}
`,
  'src/validate.ts': `/** Checks request input. */
export function validate(input: unknown): boolean {
  return input !== null;
}
`,
  'src/handlers.ts': `import { validate } from './validate.ts';

export function handleCreate(req: unknown): string {
  validate(req);
  return 'created';
}

export function handleUpdate(req: unknown): string {
  validate(req);
  return 'updated';
}

export function handleDelete(req: unknown): string {
  validate(req);
  return 'deleted';
}

export function handleList(req: unknown): string {
  return 'listed';
}
`,
  'tests/handlers.test.ts': `import { handleCreate, handleUpdate, handleList } from '../src/handlers.ts';

export function testHandlers(): boolean {
  return handleCreate(1) === 'created' && handleUpdate(1) === 'updated' && handleList(1) === 'listed';
}
`,
  'src/math.ts': `export function clamp(x: number): number {
  return Math.max(0, Math.min(1, x));
}

export function scale(x: number): number {
  return x * 10;
}

export function offset(x: number): number {
  return x + 3;
}
`,
  'src/norm-one.ts': `import { clamp, scale, offset } from './math.ts';

export function normalizeOne(x: number): number {
  const y = clamp(x);
  const z = scale(y);
  return offset(z);
}
`,
  'src/norm-two.ts': `import { clamp, scale, offset } from './math.ts';

export function normalizeTwo(v: number): number {
  const p = clamp(v);
  const q = scale(p);
  return offset(q);
}
`,
  'src/shapes.ts': `export class Shape {
  area(): number {
    return 0;
  }
}

export class Circle extends Shape {
  area(): number {
    return 3;
  }
}

export class Square extends Shape {
  area(): number {
    return 4;
  }
}
`,
  'src/render.ts': `import { Shape } from './shapes.ts';

export function render(shape: Shape): string {
  return String(shape.area());
}
`,
};


/** Writes the fixture into a fresh workspace, starts a host (full tier) and ingests it through the `ingest` verb. */
export async function ingestedFixture(
  options: { env?: Record<string, string>; watch?: boolean; typeCheck?: boolean; files?: Record<string, string> } = {},
): Promise<Harness> {
  const ws = writeFixtureRepo(tempDir('m1nd-analysis-'), options.files ?? ANALYSIS_FILES);
  const graph = { ...(options.watch === false ? { watch: false } : {}), ...(options.typeCheck === false ? { typeCheck: false } : {}) };
  const h = await connect({
    workspaceRoot: ws,
    env: { M1ND_TOOL_TIER: 'full', ...options.env },
    ...(Object.keys(graph).length ? { config: { options: { graph } } } : {}),
  });
  const { json } = await h.call('ingest', { agent_id: 'setup', path: ws });
  if (!json.files || json.files.parsed !== Object.keys(options.files ?? ANALYSIS_FILES).length) {
    await h.close();
    throw new Error(`fixture ingest failed: ${JSON.stringify(json).slice(0, 400)}`);
  }
  return h;
}

/** Ids of a result list, in order. */
export function ids(list: { id: string }[]): string[] {
  return list.map((x) => x.id);
}
