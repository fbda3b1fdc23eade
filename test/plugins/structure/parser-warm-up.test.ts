import assert from 'node:assert/strict';
import '../../../plugins/structure/grammars.ts';
import { parseCode } from '../../../plugins/structure/code-trees.ts';
import { parserSample } from '../../../plugins/structure/parser-warm-up.ts';

describe('parser warm-up', () => {
  for (const language of ['python', 'javascript', 'typescript'] as const) {
    it(`the ${language} sample is valid code of about 32 KB with definitions in every copy`, async () => {
      const text = parserSample(language);
      assert.ok(text.length >= 32 * 1024 && text.length < 40 * 1024, `${text.length} chars`);
      const parsed = (await parseCode(language, text))!;
      try {
        assert.equal(parsed.tree.rootNode.hasError, false, 'no syntax error: the parse takes the paths real code takes');
        const defs = parsed.tree.rootNode.descendantsOfType(language === 'python' ? 'function_definition' : ['function_declaration', 'method_definition']);
        assert.ok(defs.length >= 25, `${defs.length} definitions`);
      } finally {
        parsed.done();
      }
    });
  }
});
