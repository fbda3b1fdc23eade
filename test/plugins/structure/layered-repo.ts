/** A small layered TypeScript repository with one planted upward dependency and one planted cycle. */
export const LAYERED_FILES: Record<string, string> = {
  'src/app/main.ts': `import { register } from '../service/users.ts';
import { order } from '../service/orders.ts';

export function main(): void {
  register('ada');
  order('ada', 3);
}
`,
  'src/service/users.ts': `import { save, load, remove } from '../db/store.ts';

export function register(name: string): void {
  if (load(name)) remove(name);
  save(name, { name });
}

export function normalize(name: string): string {
  return name.trim().toLowerCase();
}
`,
  'src/service/orders.ts': `import { save, load } from '../db/store.ts';

export function order(name: string, count: number): void {
  const user = load(name);
  save(name, { user, count });
}
`,
  'src/db/store.ts': `import { open } from './conn.ts';
import { normalize } from '../service/users.ts';

const rows = new Map<string, unknown>();

export function save(key: string, value: unknown): void {
  open();
  rows.set(normalize(key), value);
}

export function load(key: string): unknown {
  open();
  return rows.get(key);
}

export function remove(key: string): void {
  rows.delete(key);
}
`,
  'src/db/conn.ts': `export function open(): boolean {
  return true;
}
`,
  'src/lib/ping.ts': `import { pong } from './pong.ts';

export function ping(n: number): number {
  return n <= 0 ? 0 : pong(n - 1);
}
`,
  'src/lib/pong.ts': `import { ping } from './ping.ts';

export function pong(n: number): number {
  return n <= 0 ? 1 : ping(n - 1);
}
`,
};
