import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHooks } from '../../core/hooks.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('documentation', function () {
  it('lists every declared hook, with its tapable class, in the plugin guide', () => {
    const guide = fs.readFileSync(path.join(ROOT, 'docs/plugins.md'), 'utf8');
    const hooks = createHooks();
    for (const [name, hook] of Object.entries(hooks)) {
      const row = guide.split('\n').find((l) => /^\| (boot|register|list|call|shutdown) \|/.test(l) && l.includes(`| \`${name}\` |`));
      assert.ok(row, `docs/plugins.md has no row for hook ${name}`);
      assert.ok(row.includes(hook.constructor.name), `row for ${name} names ${hook.constructor.name}`);
    }
  });

  it('documents every error code the catalog declares in the plugin guide or the code that throws it', async () => {
    const { ErrorCodes } = await import('../../core/errors.ts');
    const guide = fs.readFileSync(path.join(ROOT, 'docs/plugins.md'), 'utf8');
    for (const code of Object.values(ErrorCodes).filter((c) => c.startsWith('M1ND_ERR_PLUGIN') || c.startsWith('M1ND_ERR_VERB'))) {
      assert.ok(guide.includes(code), `docs/plugins.md does not mention ${code}`);
    }
  });
});

describe('verb reference', function () {
  it('docs/verbs.md matches the registrations (run `npm run docs` after changing a verb)', async () => {
    const { renderVerbDocs, VERB_DOCS } = await import('../../scripts/verb-docs.ts');
    const current = fs.existsSync(VERB_DOCS) ? fs.readFileSync(VERB_DOCS, 'utf8') : '';
    assert.ok(current === (await renderVerbDocs()), 'docs/verbs.md is out of date: run `npm run docs`');
  });
});

describe('error catalog', function () {
  it('declares every code the graph engine raises, so one catalog covers the whole server', async () => {
    const { ErrorCodes } = await import('../../core/errors.ts');
    const { EngineErrorCodes } = await import('../../plugins/graph/engine/errors.ts');
    const host = new Set<string>(Object.values(ErrorCodes));
    for (const code of Object.values(EngineErrorCodes)) assert.ok(host.has(code), `${code} is missing from core/errors.ts`);
  });
});
