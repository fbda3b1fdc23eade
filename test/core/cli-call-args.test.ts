import assert from 'node:assert/strict';
import { captureCli as capture } from '../helpers/cli-capture.ts';

describe('m1nd call with malformed arguments', function () {
  this.timeout(60000);

  it('refuses arguments that are JSON but not an object as bad usage, with an example of the right form', async () => {
    for (const json of ['null', '"x"', '5', '[1]', 'true']) {
      const r = await capture(['call', 'seek', json]);
      assert.equal(r.code, 2, `${json}: ${r.stderr}`);
      assert.match(r.stderr, /arguments must be a JSON object/, json);
      assert.match(r.stderr, /m1nd call seek '\{"[a-z_]+":/, `${json}: names the next valid move`);
      assert.doesNotMatch(r.stderr, /Cannot (read|create) propert/, `${json}: no JavaScript error leaks`);
      assert.equal(r.stdout, '');
    }
  });

  it('refuses words after the JSON arguments instead of dropping them', async () => {
    const r = await capture(['call', 'seek', '{"query":"x"}', 'extra']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /unexpected argument "extra"/);
    assert.match(r.stderr, /one JSON object/);
    assert.equal(r.stdout, '', 'the verb did not run');
  });

  it('answers a non-JSON argument with the form it expects', async () => {
    const r = await capture(['call', 'view', 'src/a.ts']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /arguments are not JSON/);
    assert.match(r.stderr, /m1nd call view '\{"file_path":/, 'an example built from the verb\'s own required parameters');
    assert.match(r.stderr, /help '\{"tool_name":"view"\}'/);
  });
});
