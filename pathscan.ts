import { startHost } from './core/index.ts';
import { memoryLogger, tempDir } from './test/helpers/mcp.ts';
const host = await startHost({ workspaceRoot: tempDir(), env: {}, log: memoryLogger() });
const recs = (host.current as any).catalog.all();
const walk = (s: any, p: string, out: string[]) => {
  if (!s || typeof s !== 'object') return;
  if (s.type === 'string') out.push(`${p}:str${s.maxLength ? '≤' + s.maxLength : ''}`);
  if (s.type === 'array') { out.push(`${p}:arr${s.maxItems ? '≤' + s.maxItems : ''}`); walk(s.items, p + '[]', out); }
  if (s.properties) for (const [k, v] of Object.entries(s.properties)) walk(v, p ? `${p}.${k}` : k, out);
  for (const x of s.anyOf ?? []) walk(x, p, out);
};
for (const r of recs) { const out: string[] = []; walk(r.input, '', out); console.log(r.name, out.join(' ')); }
await host.close();
