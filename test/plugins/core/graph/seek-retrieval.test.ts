import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { connect, tempDir, type Harness } from '../../../helpers/mcp.ts';

/** A small repo where the words of a question sit on a function, a type, a doc section and a test helper. */
function writeRetrievalRepo(root: string): string {
  const files: Record<string, string> = {
    'src/http/retry.ts': [
      '/** Options for retrying failed requests. */',
      'export interface RetryRequestOptions {',
      '  retries: number;',
      '  backoffMs: number;',
      '}',
      '',
      '/** Sends a request again after it failed, waiting longer each time. */',
      'export async function retryRequest(send: () => Promise<string>, options: RetryRequestOptions): Promise<string> {',
      '  let attempt = 0;',
      '  for (;;) {',
      '    try {',
      '      return await send();',
      '    } catch (error) {',
      '      attempt += 1;',
      '      if (attempt > options.retries) throw error;',
      '      // exponential backoff: the delay doubles after each failure',
      '      await sleep(options.backoffMs * 2 ** attempt);',
      '    }',
      '  }',
      '}',
      '',
      'function sleep(ms: number): Promise<void> {',
      '  return new Promise((resolve) => setTimeout(resolve, ms));',
      '}',
      '',
      'export function isEmpty(text: string): boolean {',
      '  return text.length === 0;',
      '}',
      '',
      'export function withLock<T>(run: () => T): T {',
      '  return run();',
      '}',
      '',
      'export function loadConfig(text: string): Record<string, string> {',
      "  return Object.fromEntries(text.split('\\n').map((l) => l.split('=')));",
      '}',
      '',
      'const handlers: Array<() => void> = [];',
      'export function addHandler(run: () => void): void {',
      '  handlers.push(run);',
      '}',
      '',
    ].join('\n'),
    // Competitors sharing one word with the questions below, and stronger on it than the answers.
    'src/events.ts': [
      'const handlers: Array<() => void> = [];',
      '/** Runs every handler, in the order the handlers came. */',
      'export function runHandlers(): void {',
      '  for (const handler of handlers) handler();',
      '}',
      '',
      'const routes: string[] = [];',
      'export function listRoutes(): string[] {',
      '  return routes.map((route) => route);',
      '}',
      '',
      'export function findRoute(path: string): string | undefined {',
      '  return routes.find((r) => r === path);',
      '}',
      '',
      '/** Loads the defaults: loaded once, then every load is a copy. */',
      'export function loadDefaults(): Record<string, string> {',
      '  const loaded = {};',
      '  return { ...loaded };',
      '}',
      '',
    ].join('\n'),
    // A class named for the question and its method doing the work (the class's own text is its name and doc).
    'src/migrations.ts': [
      "import { readdir } from 'node:fs/promises';",
      '',
      '/** Reads migration files from a folder and imports them. */',
      'export class FolderMigrationProvider {',
      '  constructor(private folder: string) {}',
      '',
      '  async getAll(): Promise<unknown[]> {',
      '    const files = await readdir(this.folder);',
      '    return Promise.all(files.map((file) => import(`${this.folder}/${file}`)));',
      '  }',
      '}',
      '',
    ].join('\n'),
    // An interface method documented for the question, and the class method doing it.
    'src/store.ts': [
      'export interface RecordStore {',
      '  /** Persists one record. */',
      '  persistRecord(record: string): Promise<void>;',
      '}',
      '',
      'export class FileRecordStore implements RecordStore {',
      '  async persistRecord(record: string): Promise<void> {',
      '    await writeTemp(record);',
      '    await renameOver(record);',
      '  }',
      '}',
      '',
      'async function writeTemp(_r: string): Promise<void> {}',
      'async function renameOver(_r: string): Promise<void> {}',
      '',
    ].join('\n'),
    // A constructor storing the settings the question names, and the method doing the check.
    'net/origins.py': [
      'class OriginPolicy:',
      '    def __init__(self, allowed_origins=(), allow_origin_regex=None, allow_all_origins=False):',
      '        self.allowed_origins = allowed_origins',
      '        self.allow_origin_regex = allow_origin_regex',
      '        self.allow_all_origins = allow_all_origins or "*" in allowed_origins',
      '',
      '    def check(self, origin):',
      '        if self.allow_all_origins:',
      '            return True',
      '        return origin in self.allowed_origins',
      '',
    ].join('\n'),
    // Accessors documented with the question's words, and the method doing the work (no doc, private).
    'src/main/java/csvkit/Format.java': [
      'package csvkit;',
      '',
      'public class Format {',
      '  private String nullString;',
      '',
      '  /** Gets the string converted to and from null values. */',
      '  public String getNullString() {',
      '    return nullString;',
      '  }',
      '',
      '  /** Sets the string converted to and from null values. */',
      '  public Format setNullString(String nullString) {',
      '    this.nullString = nullString;',
      '    return this;',
      '  }',
      '}',
      '',
    ].join('\n'),
    'src/main/java/csvkit/Parser.java': [
      'package csvkit;',
      '',
      'class Parser {',
      '  private final Format format = new Format();',
      '',
      '  private String handleNull(String value) {',
      '    final String nullString = format.getNullString();',
      '    if (value.equals(nullString)) {',
      '      return null;',
      '    }',
      '    return value.trim();',
      '  }',
      '}',
      '',
    ].join('\n'),
    'src/text.ts': [
      'export function utf8Decode(bytes: Uint8Array): string {',
      '  return new TextDecoder().decode(bytes);',
      '}',
      '',
      '/** Decodes the bytes of a single-byte charset into a string. */',
      'export function decodeLatin1(bytes: Uint8Array): string {',
      '  return String.fromCharCode(...bytes);',
      '}',
    ].join('\n'),
    'net/transport.py': [
      'class BaseTransport:',
      '    def handle_request(self, request):',
      '        """',
      '        Send a single HTTP request and return a response.',
      '',
      '        Subclasses send the request over a connection of their own.',
      '        """',
      '        raise NotImplementedError(',
      '            "handle_request must be implemented"',
      '        )',
      '',
      '',
      'class SocketTransport(BaseTransport):',
      '    def handle_request(self, request):',
      '        """Sends the request over a pooled connection and reads the response."""',
      '        conn = self.pool.connect(request.host)',
      '        conn.write(request.encode())',
      '        return conn.read_response()',
    ].join('\n'),
    'src/dates.ts': [
      'export class Iso8601 {',
      '  /** Writes a date as ISO 8601 text with its zone. */',
      '  static format(value: Date, offset: string): string {',
      '    return value.toISOString() + offset;',
      '  }',
      '',
      '  /**',
      '   * Reads ISO 8601 text into a date: the date part, the time part and the time zone,',
      '   * a time zone given as Z or as an offset; ISO 8601 text without a time zone is a date in the local time zone.',
      '   */',
      '  static parse(text: string): Date {',
      '    const [datePart, timePart] = text.split("T");',
      '    const zone = timePart?.endsWith("Z") ? "Z" : timePart?.slice(-6);',
      '    const date = new Date(`${datePart}T${timePart ?? "00:00"}`);',
      '    if (zone && zone !== "Z") date.setMinutes(date.getMinutes() - Number(zone.slice(1, 3)) * 60);',
      '    return date;',
      '  }',
      '',
      '  /** True for ISO 8601 text. */',
      '  static isIso8601(value: string): boolean {',
      '    return /^\\d{4}-\\d{2}-\\d{2}/.test(value);',
      '  }',
      '}',
    ].join('\n'),
    // "Look up" is spelled get, find or lookup in code; the competitor shares every other word.
    'src/codecs.ts': [
      'const codecs = new Map<string, (text: string) => string>();',
      '',
      'export function registerCodec(name: string, codec: (text: string) => string): void {',
      '  if (codecs.has(name)) throw new Error(`codec ${name} registered twice`);',
      '  codecs.set(name, codec);',
      '}',
      '',
      'export function getCodec(name: string): (text: string) => string {',
      '  const codec = codecs.get(name);',
      '  if (!codec) throw new Error(`no codec ${name}`);',
      '  return codec;',
      '}',
      '',
      '/** Looks up the alias table of a charset. */',
      'export function charsetAliases(label: string): string[] {',
      "  return label.split('+').map((part) => part.trim());",
      '}',
      '',
    ].join('\n'),
    // One-word methods whose class names their object, beside competitors that share the query's words in their own names and docs.
    'net/content.py': [
      'class GZipReader:',
      '    def read(self, data):',
      '        return self.inflater.inflate(data)',
      '',
      '',
      'class GzipDecoder:',
      '    def decode(self, data):',
      '        return self.inflater.inflate(data)',
      '',
      '',
      'class IntegerConvertor:',
      '    def convert(self, value):',
      '        return int(value)',
      '',
      '    def to_string(self, value):',
      '        assert value >= 0, "negative integers are not supported"',
      '        return str(value)',
      '',
      '',
      'class Stream:',
      '    def iter_chunks(self):',
      '        """Yields the bytes received over the connection, chunk after chunk."""',
      '        yield from self.chunks',
      '',
      '    def iter_lines(self):',
      '        for line in self.text.splitlines():',
      '            yield line',
      '',
      '',
      'def read_content(body):',
      '    """Reads a body\'s content, decoding compressed content with the right decoder."""',
      '    return body.decoder.decode(body.stream.read())',
      '',
    ].join('\n'),
    'net/headers.py': ['def parse_header_line(line):', '    """Split one raw header line into its name and value."""', '    name, _, value = line.partition(":")', '    return name.strip(), value.strip()', ''].join('\n'),
    'docs/retries.md': ['# Retrying failed requests', '', 'Failed requests are retried with a growing delay; the retry count is an option.', ''].join('\n'),
    'test/retry.test.ts': [
      "import { retryRequest } from '../src/http/retry.ts';",
      '',
      '/** Test helper: a request that failed `times` times before it retries successfully. */',
      'export function failedRequestRetries(times: number): () => Promise<string> {',
      '  let left = times;',
      "  return async () => (left-- > 0 ? Promise.reject(new Error('failed request')) : 'ok');",
      '}',
      '',
      'export async function checkRetryRequest(): Promise<string> {',
      '  return retryRequest(failedRequestRetries(2), { retries: 3, backoffMs: 0 });',
      '}',
      '',
    ].join('\n'),
  };
  files['src/http/status.ts'] = [
    'export function parseCode(line: string): number {',
    '  return Number(line.slice(9, 12));',
    '}',
    '',
    'export function parseStatusLine(line: string): string[] {',
    "  return line.split(' ');",
    '}',
    '',
    'export function parseOp(text: string): string {',
    "  return text.startsWith('>=') ? '>=' : text[0];",
    '}',
    '',
  ].join('\n');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

type Hit = { id: string; kind: string; path: string; lines: [number, number]; score: number; why: { matched: string[]; prior: number } };

describe('seek finds the function doing the work', function () {
  this.timeout(30000);
  let h: Harness;
  let ws: string;
  const seek = async (query: string, extra: Record<string, unknown> = {}): Promise<Hit[]> => (await h.call('seek', { agent_id: 'a', query, min_score: 0, ...extra })).json.results;
  const rank = (hits: Hit[], id: string): number => hits.findIndex((r) => r.id === id);

  before(async () => {
    ws = writeRetrievalRepo(tempDir());
    h = await connect({ workspaceRoot: ws, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: '.' });
  });
  after(() => h.close());

  it('ranks the implementing function above the type, the Markdown section and the test helper that share its words', async () => {
    const hits = await seek('how are failed requests retried');
    assert.equal(hits[0]?.id, 'function:src/http/retry.ts#retryRequest', JSON.stringify(hits.slice(0, 5).map((x) => x.id)));
    const fn = rank(hits, 'function:src/http/retry.ts#retryRequest');
    for (const other of ['interface:src/http/retry.ts#RetryRequestOptions', 'function:test/retry.test.ts#failedRequestRetries']) {
      const r = rank(hits, other);
      assert.ok(r > fn, `${other} at ${r} should be below the function`);
    }
    const section = hits.findIndex((x) => x.kind === 'section' && x.path === 'docs/retries.md');
    assert.ok(section > fn, `the Markdown section (at ${section}) ranks below the function`);
  });

  it('lists a method doing the work above its own class, unless the query names the class', async () => {
    const hits = await seek('where are migration files in a folder read and imported');
    const method = rank(hits, 'method:src/migrations.ts#FolderMigrationProvider.getAll');
    const cls = rank(hits, 'class:src/migrations.ts#FolderMigrationProvider');
    assert.equal(method, 0, JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
    assert.ok(cls > method, `the class (at ${cls}) comes after its method`);
    assert.equal((await seek('FolderMigrationProvider'))[0]?.id, 'class:src/migrations.ts#FolderMigrationProvider');
  });

  it('keeps the Markdown section behind the function for an imperative query too', async () => {
    const hits = await seek('retry failed requests with a growing delay');
    const fn = rank(hits, 'function:src/http/retry.ts#retryRequest');
    const section = hits.findIndex((r) => r.kind === 'section');
    assert.ok(fn >= 0 && (section < 0 || section > fn), JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
  });

  it('lists the class method doing the work above the interface method that only declares it', async () => {
    const hits = await seek('where is a record persisted');
    const impl = rank(hits, 'method:src/store.ts#FileRecordStore.persistRecord');
    const decl = rank(hits, 'method:src/store.ts#RecordStore.persistRecord');
    assert.ok(impl >= 0 && (decl < 0 || decl > impl), JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
  });

  it('lists the method doing the work above accessors whose body only reads or sets a value, however well documented', async () => {
    const hits = await seek('replace a value equal to the null string with null');
    const work = rank(hits, 'method:src/main/java/csvkit/Parser.java#Parser.handleNull');
    assert.equal(work, 0, JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
    for (const accessor of ['method:src/main/java/csvkit/Format.java#Format.getNullString', 'method:src/main/java/csvkit/Format.java#Format.setNullString']) {
      assert.ok(rank(hits, accessor) > work, `${accessor} at ${rank(hits, accessor)}`);
    }
    // Named outright, an accessor is still the answer.
    assert.equal((await seek('getNullString'))[0]?.id, 'method:src/main/java/csvkit/Format.java#Format.getNullString');
  });

  it('reads a phrasal verb as the one word code uses ("look up" as lookup, found in get, find and a doc\'s "looks up")', async () => {
    const hits = await seek('where is a codec looked up by its name');
    assert.equal(hits[0]?.id, 'function:src/codecs.ts#getCodec', JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
    assert.ok(rank(hits, 'function:src/codecs.ts#registerCodec') > 0);
    const aliases = await seek('lookup charset aliases');
    assert.equal(aliases[0]?.id, 'function:src/codecs.ts#charsetAliases');
    assert.ok(aliases[0].why.matched.includes('lookup'), JSON.stringify(aliases[0].why));
  });

  it('lists the function named for the query\'s leading action above one whose text shares more of its other words', async () => {
    const hits = await seek('format a date as ISO 8601 text in a time zone');
    assert.equal(hits[0]?.id, 'method:src/dates.ts#Iso8601.format', JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
    assert.ok(rank(hits, 'method:src/dates.ts#Iso8601.parse') > 0);
    // "check whether" leads to a predicate's name too (is…, has…, can…).
    const check = await seek('check whether text is ISO 8601');
    assert.equal(check[0]?.id, 'method:src/dates.ts#Iso8601.isIso8601', JSON.stringify(check.slice(0, 4).map((x) => [x.id, x.score])));
    const priorOf = (hits: Hit[], id: string) => hits.find((x) => x.id === id)?.why.prior;
    assert.equal(priorOf(check, 'method:src/dates.ts#Iso8601.isIso8601'), 1.15);
    assert.equal(priorOf(check, 'method:src/dates.ts#Iso8601.parse'), 1);
    assert.equal(priorOf(hits, 'method:src/dates.ts#Iso8601.format'), 1.15);
    // A question, not an action, gives no such lead: "how" starts it.
    const question = await seek('how is ISO 8601 text with a time zone read into a date');
    assert.equal(question[0]?.id, 'method:src/dates.ts#Iso8601.parse', JSON.stringify(question.slice(0, 4).map((x) => [x.id, x.score])));
  });

  it('meets a name with a number on its end when the query spells its halves apart ("UTF-8")', async () => {
    const hits = await seek('UTF-8 decoding of bytes');
    assert.equal(hits[0]?.id, 'function:src/text.ts#utf8Decode', JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
    assert.ok(hits[0].why.matched.includes('utf'), JSON.stringify(hits[0].why));
    assert.equal((await seek('utf8Decode'))[0]?.id, 'function:src/text.ts#utf8Decode'); // named whole, still first
  });

  it('lists an implementation above the stub it overrides (a docstring and raise NotImplementedError), however well documented', async () => {
    const hits = await seek('send a request and read the response');
    const impl = rank(hits, 'method:net/transport.py#SocketTransport.handle_request');
    const stub = rank(hits, 'method:net/transport.py#BaseTransport.handle_request');
    assert.ok(impl >= 0 && stub > impl, JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
    assert.equal(hits[stub].why.prior, 0.7);
  });

  it('reads a one-word method\'s class as its object: GzipDecoder.decode for "decode gzip content", IntegerConvertor.convert for "convert an integer …"', async () => {
    const hits = await seek('decode gzip compressed content');
    assert.equal(hits[0]?.id, 'method:net/content.py#GzipDecoder.decode', JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
    const ints = await seek('convert an integer path parameter from its string form');
    assert.equal(ints[0]?.id, 'method:net/content.py#IntegerConvertor.convert', JSON.stringify(ints.slice(0, 4).map((x) => [x.id, x.score])));
    // `GZip` spelled with two capitals is still gzip.
    const gz = await seek('read gzip data');
    assert.equal(gz[0]?.id, 'method:net/content.py#GZipReader.read', JSON.stringify(gz.slice(0, 4).map((x) => [x.id, x.why.matched])));
    assert.ok(gz[0].why.matched.includes('gzip'), JSON.stringify(gz[0].why));
    // The class still comes first when the query names it alone.
    assert.equal((await seek('GzipDecoder'))[0]?.id, 'class:net/content.py#GzipDecoder');
  });

  it('lists a method of a class above its constructor, unless the query asks how objects are made', async () => {
    const hits = await seek('is this origin allowed by the allowed origins');
    const method = rank(hits, 'method:net/origins.py#OriginPolicy.check');
    const init = rank(hits, 'method:net/origins.py#OriginPolicy.__init__');
    assert.ok(method >= 0 && init > method, JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
    const made = await seek('initialize the allowed origins');
    assert.ok(rank(made, 'method:net/origins.py#OriginPolicy.__init__') < rank(made, 'method:net/origins.py#OriginPolicy.check'), JSON.stringify(made.slice(0, 4).map((x) => [x.id, x.score])));
  });

  it('activate, spreading from the matches, also lists the method in its class\'s place with the class right after it, unless the query names the class', async () => {
    const activate = async (query: string) => (await h.call('activate', { agent_id: 'a', query })).json.results as { id: string; score: number }[];
    const hits = await activate('where are migration files in a folder read and imported');
    const method = rank(hits as Hit[], 'method:src/migrations.ts#FolderMigrationProvider.getAll');
    const cls = rank(hits as Hit[], 'class:src/migrations.ts#FolderMigrationProvider');
    assert.equal(method, 0, JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
    assert.equal(cls, 1, JSON.stringify(hits.slice(0, 4).map((x) => [x.id, x.score])));
    assert.ok(hits[0].score >= hits[1].score && hits[1].score >= (hits[2]?.score ?? 0), 'scores stay in rank order');
    assert.equal((await activate('FolderMigrationProvider'))[0]?.id, 'class:src/migrations.ts#FolderMigrationProvider');
  });

  it('activate seeds from seek\'s ranking: a function found only by the code in its body is a seed and the first result', async () => {
    const r = (await h.call('activate', { agent_id: 'a', query: 'readdir of the folder' })).json;
    assert.equal(r.seeds[0], 'method:src/migrations.ts#FolderMigrationProvider.getAll', JSON.stringify(r.seeds));
    assert.equal(r.results[0].id, 'method:src/migrations.ts#FolderMigrationProvider.getAll', JSON.stringify(r.results.slice(0, 3).map((x: { id: string }) => x.id)));
  });

  it('drops stop words: "is", "with", "the", "over" match nothing, not even isEmpty or withLock', async () => {
    assert.deepEqual(await seek('is with the'), []);
    const hits = await seek('where is the delay');
    assert.ok(!hits.some((x) => x.id.endsWith('#isEmpty') || x.id.endsWith('#withLock')), JSON.stringify(hits.map((x) => x.id)));
    assert.ok(hits.every((x) => x.why.matched.every((w) => w === 'delay')), JSON.stringify(hits.map((x) => x.why.matched)));
    // Filler prepositions too: "iterate over" is iterate (the chunk reader's doc says "over the connection").
    const lines = await seek('iterate over the stream line by line');
    assert.equal(lines[0]?.id, 'method:net/content.py#Stream.iter_lines', JSON.stringify(lines.slice(0, 4).map((x) => [x.id, x.why.matched])));
    assert.ok(lines.every((x) => !x.why.matched.includes('over')), JSON.stringify(lines.map((x) => x.why.matched)));
  });

  it('reads "code" as a word of names (parseCode, status_code), not as a word about the code', async () => {
    const hits = await seek('parse the status code');
    assert.equal(hits[0]?.id, 'function:src/http/status.ts#parseCode', JSON.stringify(hits.slice(0, 3).map((x) => x.id)));
  });

  it('matches camelCase and snake_case parts and stemmed forms', async () => {
    assert.equal((await seek('retries', { node_types: ['function'] }))[0]?.id, 'function:src/http/retry.ts#retryRequest');
    assert.equal((await seek('parsing headers'))[0]?.id, 'function:net/headers.py#parse_header_line');
    assert.equal((await seek('headerLine'))[0]?.id, 'function:net/headers.py#parse_header_line');
    // Porter turns `added` into `ad` but leaves `add`; both must meet.
    assert.equal((await seek('where are handlers added'))[0]?.id, 'function:src/http/retry.ts#addHandler');
    // An abbreviation in the code (`Config`) answers the long word in the question.
    assert.equal((await seek('how is the configuration loaded'))[0]?.id, 'function:src/http/retry.ts#loadConfig');
    // Irregular past forms meet their verb: "found" → find.
    assert.equal((await seek('how is a route found'))[0]?.id, 'function:src/events.ts#findRoute');
  });

  it('reads a word it has never seen as the indexed words a slip away ("retryReqeust", "hedaer line"), and leaves known words alone', async () => {
    assert.equal((await seek('retyrRequest'))[0]?.id, 'function:src/http/retry.ts#retryRequest');
    assert.equal((await seek('hedaer line'))[0]?.id, 'function:net/headers.py#parse_header_line');
    assert.equal((await seek('findRoutte'))[0]?.id, 'function:src/events.ts#findRoute');
    // A word of four letters is left as it is: too many words are one slip from it.
    assert.equal((await seek('xyzw')).length, 0);
  });

  it('matches words programmers use for one another ("wait" finds sleep and backoff), below the word itself', async () => {
    // No code says "wait"; the backoff loop and `sleep` do what it asks.
    const hits = await seek('how long to wait', { node_types: ['function'] });
    assert.deepEqual(hits.slice(0, 2).map((x) => x.id).sort(), ['function:src/http/retry.ts#retryRequest', 'function:src/http/retry.ts#sleep'], JSON.stringify(hits.map((x) => x.id)));
    assert.ok(hits[0].why.matched.includes('wait'), JSON.stringify(hits[0].why.matched));
    const sleepId = 'function:src/http/retry.ts#sleep';
    const viaSynonym = (await seek('wait', { node_types: ['function'] })).find((x) => x.id === sleepId)!;
    const own = (await seek('sleep', { node_types: ['function'] })).find((x) => x.id === sleepId)!;
    assert.ok(own.score > viaSynonym.score, `the word itself (${own.score}) scores above its synonym (${viaSynonym.score})`);
  });

  it('reads the abbreviations code uses for the words a question spells out (min for minimum, op for operator)', async () => {
    const op = await seek('parse the comparison operator');
    assert.equal(op[0]?.id, 'function:src/http/status.ts#parseOp', JSON.stringify(op.slice(0, 3).map((x) => x.id)));
    fs.writeFileSync(path.join(ws, 'src/bounds.ts'), 'export function clampTo(x: number, lo: number, hi: number): number {\n  const min = lo;\n  const max = hi;\n  return x < min ? min : x > max ? max : x;\n}\n');
    await h.call('ingest', { agent_id: 'a', path: '.', incremental: true });
    const hits = await seek('between the minimum and the maximum');
    assert.equal(hits[0]?.id, 'function:src/bounds.ts#clampTo', JSON.stringify(hits.map((x) => x.id)));
    assert.deepEqual([...hits[0].why.matched].sort(), ['maximum', 'minimum']);
  });

  it('indexes body tokens: a word only in the body finds the function, and an edit to the body is seen after ingest', async () => {
    assert.equal((await seek('exponential backoff'))[0]?.id, 'function:src/http/retry.ts#retryRequest');
    assert.deepEqual(await seek('jitter'), []);
    const file = path.join(ws, 'src/http/retry.ts');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('// exponential backoff', '// exponential backoff with jitter'));
    await h.call('ingest', { agent_id: 'a', path: '.', incremental: true });
    assert.equal((await seek('jitter'))[0]?.id, 'function:src/http/retry.ts#retryRequest');
  });

  it('puts tests first only when the query asks for tests', async () => {
    const plain = await seek('retry request');
    assert.equal(plain[0]?.path, 'src/http/retry.ts', JSON.stringify(plain.slice(0, 3).map((x) => x.id)));
    const asked = await seek('retry request tests');
    assert.equal(asked[0]?.path, 'test/retry.test.ts', JSON.stringify(asked.slice(0, 3).map((x) => x.id)));
  });

  it('scores in [0,1] that say how well the query is covered: an exact name scores higher than a one-word body match', async () => {
    const named = (await seek('retryRequest'))[0];
    const body = (await seek('exponential backoff delay doubles attempt'))[0];
    assert.equal(named.id, 'function:src/http/retry.ts#retryRequest');
    assert.ok(named.score > 0.8 && named.score <= 1, String(named.score));
    assert.ok(body.score < named.score, `${body.score} < ${named.score}`);
  });

  it('semantic search returns the matching line with context, not seek\'s symbol list', async () => {
    const sem = (await h.call('search', { agent_id: 'a', query: 'where does the backoff delay double', mode: 'semantic', context_lines: 1 })).json;
    const top = sem.results[0];
    assert.equal(top.id, 'function:src/http/retry.ts#retryRequest');
    const lines = fs.readFileSync(path.join(ws, 'src/http/retry.ts'), 'utf8').split('\n');
    const comment = lines.findIndex((l) => l.includes('the delay doubles')) + 1;
    assert.equal(top.line, comment, 'the passage is the line holding the query words, not the declaration');
    assert.equal(top.text, lines[comment - 1]);
    assert.deepEqual(top.before, [lines[comment - 2]]);
    assert.deepEqual(top.after, [lines[comment]]);
    assert.deepEqual([...top.matched].sort(), ['backoff', 'delay', 'double']);
  });
});
