import assert from 'node:assert/strict';
import type { Language } from '../../../plugins/graph/api.ts';
import '../../../plugins/structure/grammars.ts';
import { CODE_RULES } from '../../../plugins/structure/code-rules.ts';
import { parseCode } from '../../../plugins/structure/code-trees.ts';
import { findingsOf, runRuleQuery } from '../../../plugins/structure/file-facts.ts';

const PY = `import asyncio, threading
from threading import Thread

counter = 0


class Store:
    def __init__(self):
        self.cache = Cache()
        self.log = helpers.Logger()
        worker = Thread(target=self.run)
        threading.Thread(target=self.run).start()

    def bump(self):
        global counter
        counter += 1
        f = open("x")
        with open("y") as g:
            g.read()
        return open("z")

    async def refresh(self):
        pass

    async def go(self, loop):
        self.refresh()
        await self.refresh()
        asyncio.create_task(self.bump())
        t = asyncio.ensure_future(self.bump())
        print(loop.create_task(self.bump()))
        try:
            pass
        except:
            try:
                pass
            except ValueError:
                pass
        except (OSError, KeyError):  # except in a comment
            pass


@app.route("/items", methods=["POST"])
def create_item():
    "a string that says @app.get( and open( and except"
    return Cache()


@app.get("/items")
@login_required
def list_items():
    return []


class Cache:
    pass
`;

const TS = `let hits = 0;
export class Service {
  db = new Database();
  start(): void {
    setInterval(() => this.tick(), 1000);
    const h = setInterval(() => this.tick(), 5);
    fs.openSync('a');
    items.forEach(async (x) => { await x; });
    try { run(); } catch (e) { p.catch(() => {}); }
    try { run(); } catch { console.log('x'); }
    hits++;
    promise.catch((err) => { try { a(); } catch (inner) {} });
    this.save();
    fetch('/ping');
    void this.save();
  }
  async save(): Promise<void> {}
}
app.get('/health', (req, res) => res.send('ok'));
router.post(\`/items\`, auth, (req, res) => res.send('ok'));
app.post('/items', (req, res) => res.send('ok'));
class Database {}
`;

async function compare(language: Language, text: string): Promise<Map<string, number>> {
  const parsed = (await parseCode(language, text))!;
  const classNames = new Set(['Cache', 'Database', 'Logger', 'Thread']);
  try {
    const got = findingsOf(parsed, text, 'f', classNames);
    const counts = new Map<string, number>();
    for (const rule of CODE_RULES.filter((r) => r.languages.includes(language))) {
      const live = !rule.needs || rule.needs.test(text);
      const whole = live ? runRuleQuery(rule, parsed, { classNames, text }, 'f') : [];
      assert.deepEqual(got[rule.id] ?? [], whole, `${language} ${rule.id}`);
      counts.set(rule.id, whole.length);
    }
    return counts;
  } finally {
    parsed.done();
  }
}

describe('anchored rule queries', () => {
  it('every built-in rule finds in Python what its query finds over the whole tree', async () => {
    const counts = await compare('python', PY);
    // Every rule has something to find here, so the comparison covers each anchor.
    for (const [id, n] of counts) assert.ok(n > 0, `${id}: nothing planted found`);
  });

  it('every built-in rule finds in TypeScript what its query finds over the whole tree', async () => {
    const counts = await compare('typescript', TS);
    for (const [id, n] of counts) assert.ok(n > 0, `${id}: nothing planted found`);
  });

  it('every built-in rule except the module-state one has an anchor, each a global regex', () => {
    for (const rule of CODE_RULES) {
      if (rule.id === 'js.module_state_write') assert.equal(rule.anchor, undefined);
      else assert.ok(rule.anchor?.at.global && rule.anchor.roots.length > 0, rule.id);
    }
  });
});
