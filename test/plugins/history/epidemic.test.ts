import assert from 'node:assert/strict';
import { connect, tempDir } from '../../helpers/mcp.ts';
import { dayDate, git, touch, write } from './git-fixture.ts';

/** bug.ts is known buggy; caller.ts calls it, typer.ts only imports a type from it, far.ts calls caller.ts, lonely.ts is unlinked. */
const FILES: Record<string, string> = {
  'src/bug.ts': `export interface Token { text: string }
export function parse(text: string): Token[] {
  return text.split(' ').map((t) => ({ text: t }));
}
`,
  'src/caller.ts': `import { parse } from './bug.ts';
export function count(text: string): number {
  return parse(text).length;
}
`,
  'src/typer.ts': `import type { Token } from './bug.ts';
export const EMPTY: Token[] = [];
`,
  'src/far.ts': `import { count } from './caller.ts';
export function report(text: string): string {
  return 'words: ' + count(text);
}
`,
  'src/lonely.ts': `export function alone(): number {
  return 1;
}
`,
};

describe('epidemic', function () {
  this.timeout(120000);
  it('ranks the direct caller of a buggy module first, with the path and an R0, and leaves unlinked files out', async () => {
    const ws = tempDir();
    write(ws, FILES);
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'init'], dayDate(0));
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('epidemic', { agent_id: 'a', infected_nodes: ['src/bug.ts'] });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      const files = r.json.at_risk.map((x: any) => x.file);
      assert.equal(files[0], 'src/caller.ts', JSON.stringify(r.json.at_risk));
      assert.ok(files.includes('src/typer.ts') && files.includes('src/far.ts'), JSON.stringify(files));
      assert.ok(!files.includes('src/lonely.ts') && !files.includes('src/bug.ts'));
      const p = Object.fromEntries(r.json.at_risk.map((x: any) => [x.file, x.probability]));
      assert.ok(p['src/caller.ts'] > p['src/typer.ts'] && p['src/caller.ts'] > p['src/far.ts'], JSON.stringify(p));
      assert.deepEqual(r.json.at_risk[0].path, ['src/bug.ts (seed)', 'src/caller.ts calls src/bug.ts']);
      assert.deepEqual(r.json.at_risk.find((x: any) => x.file === 'src/far.ts').path, ['src/bug.ts (seed)', 'src/caller.ts calls src/bug.ts', 'src/far.ts calls src/caller.ts']);
      assert.ok(r.json.r0.value > 0 && r.json.model.beta === 0.3, JSON.stringify(r.json));
      assert.match(r.json.note, /too little fix history/);
      // A symbol stands for its file; a clean (recovered) file blocks the chain through it.
      const blocked = await h.call('epidemic', { agent_id: 'a', infected_nodes: ['function:src/bug.ts#parse'], recovered_nodes: ['src/caller.ts'] });
      const bf = blocked.json.at_risk.map((x: any) => x.file);
      assert.ok(!bf.includes('src/caller.ts') && !bf.includes('src/far.ts') && bf.includes('src/typer.ts'), JSON.stringify(bf));
      // forward only: to files that use the buggy one; backward from caller reaches bug.ts' dependencies only.
      const back = await h.call('epidemic', { agent_id: 'a', infected_nodes: ['src/caller.ts'], direction: 'backward' });
      assert.deepEqual(back.json.at_risk.map((x: any) => x.file), ['src/bug.ts']);
    } finally {
      await h.close();
    }
  });

  it('calibrates β from git: fixes that followed along links, with the lift over the base rate', async () => {
    const ws = tempDir();
    const files: Record<string, string> = { 'core.ts': 'export function core(x: number): number {\n  return x;\n}\n' };
    for (let i = 0; i < 5; i++) files[`user${i}.ts`] = `import { core } from './core.ts';\nexport function use${i}(): number {\n  return core(${i});\n}\n`;
    for (let i = 0; i < 5; i++) files[`solo${i}.ts`] = `export function solo${i}(): number {\n  return ${i};\n}\n`;
    write(ws, files);
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'init'], dayDate(0));
    // Every fix of core is followed within days by fixes of two of its users; the solo files only get features.
    let day = 1;
    for (let round = 0; round < 4; round++) {
      touch(ws, ['core.ts'], day++, `fix: core rounding ${round}`);
      touch(ws, [`user${round}.ts`], day++, `fix: user ${round} after core change`);
      touch(ws, [`user${round + 1}.ts`], day++, `fix: user ${round + 1} after core change`);
      touch(ws, [`solo${round}.ts`], day++, `feat: solo ${round}`);
      day += 100;
    }
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('epidemic', { agent_id: 'a', infected_nodes: ['core.ts'] });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      assert.equal(r.json.model.beta_source, 'calibrated from git fix history', JSON.stringify(r.json));
      const cal = r.json.calibration;
      assert.ok(cal.opportunities >= 10 && cal.followed_by_fix > 0, JSON.stringify(cal));
      assert.ok(cal.lift > 1, JSON.stringify(cal));
      assert.notEqual(r.json.model.beta, 0.3);
      const at = r.json.at_risk.map((x: any) => x.file);
      assert.ok(at.slice(0, 5).every((f: string) => f.startsWith('user')), JSON.stringify(at));
      assert.ok(!at.some((f: string) => f.startsWith('solo')));
      // seed_from_fixes: the fixed files become seeds at their defect density.
      const auto = await h.call('epidemic', { agent_id: 'a', infected_nodes: [], seed_from_fixes: true });
      const seeds = auto.json.seeds.map((x: any) => x.file);
      assert.ok(seeds.includes('core.ts') && !seeds.some((f: string) => f.startsWith('solo')), JSON.stringify(auto.json.seeds));
    } finally {
      await h.close();
    }
  });

  it('measures the base rate over the graph\'s files with history, not every path git ever held', async () => {
    const ws = tempDir();
    const files: Record<string, string> = { 'core.ts': 'export function core(x: number): number {\n  return x;\n}\n' };
    for (let i = 0; i < 5; i++) files[`user${i}.ts`] = `import { core } from './core.ts';\nexport function use${i}(): number {\n  return core(${i});\n}\n`;
    for (let i = 0; i < 5; i++) files[`solo${i}.ts`] = `export function solo${i}(): number {\n  return ${i};\n}\n`;
    write(ws, files);
    git(ws, ['init', '-q', '-b', 'main'], dayDate(0));
    git(ws, ['add', '-A'], dayDate(0));
    git(ws, ['commit', '-q', '-m', 'init'], dayDate(0));
    // Twenty scratch files come and go: git held them once, the graph never will.
    const scratch: Record<string, string> = {};
    for (let i = 0; i < 20; i++) scratch[`scratch/s${i}.ts`] = `export const s${i} = ${i};\n`;
    write(ws, scratch);
    git(ws, ['add', '-A'], dayDate(1));
    git(ws, ['commit', '-q', '-m', 'scratch files'], dayDate(1));
    git(ws, ['rm', '-q', '-r', 'scratch'], dayDate(2));
    git(ws, ['commit', '-q', '-m', 'drop the scratch files'], dayDate(2));
    let day = 3;
    for (let round = 0; round < 4; round++) {
      touch(ws, ['core.ts'], day++, `fix: core rounding ${round}`);
      touch(ws, [`user${round}.ts`], day++, `fix: user ${round} after core change`);
      touch(ws, [`user${round + 1}.ts`], day++, `fix: user ${round + 1} after core change`);
      day += 100;
    }
    const h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    try {
      await h.call('ingest', { agent_id: 'a', path: ws });
      const r = await h.call('epidemic', { agent_id: 'a', infected_nodes: ['core.ts'] });
      assert.equal(r.result.isError, undefined, JSON.stringify(r.json));
      const cal = r.json.calibration;
      assert.equal(cal.fix_commits, 12, JSON.stringify(cal));
      // Each round: core's fix is followed by two other fixes within 90 days, the first user's fix by one: 3 hits, 12 in all.
      // Opportunities: 12 fixes × the 10 other files of the graph with history (core, user0-4, solo0-4).
      assert.equal(cal.base_rate, Math.round((12.5 / 121) * 1000) / 1000, JSON.stringify(cal));
    } finally {
      await h.close();
    }
  });
});
