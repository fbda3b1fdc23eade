import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, type Harness } from '../../helpers/mcp.ts';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/** A library published as @acme/lib, and an app beside it that depends on it by that name. */
function twoRepos(): { parent: string; lib: string; app: string } {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-')));
  const lib = path.join(parent, 'lib');
  const app = path.join(parent, 'app');
  write(lib, {
    'package.json': JSON.stringify({ name: '@acme/lib', type: 'module', version: '1.0.0' }, null, 2),
    'src/index.ts': "export function parse(s: string): string {\n  return s.trim();\n}\n\nexport function unused(): number {\n  return 1;\n}\n",
  });
  write(app, {
    'package.json': JSON.stringify({ name: 'app', type: 'module', private: true, dependencies: { '@acme/lib': 'file:../lib', chalk: '^5.0.0' } }, null, 2),
    'src/main.ts': "import { parse } from '@acme/lib';\n\nexport function main(input: string): string {\n  return parse(input);\n}\n\nexport function local(): string {\n  return 'x';\n}\n",
  });
  return { parent, lib, app };
}

describe('federate', function () {
  this.timeout(180000);
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('refuses a root outside the workspace unless it is allowed, naming the setting', async () => {
    const { app } = twoRepos();
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: '../lib' }] })).json;
    assert.equal(r.error.code, 'M1ND_ERR_PATH_ESCAPE');
    assert.match(r.error.hint, /M1ND_ALLOW_ROOTS/);
    assert.match(r.error.hint, /allowRoots/);
  });

  it('links an app to the library it depends on by package name with cross-repository call edges', async () => {
    const { parent, lib, app } = twoRepos();
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: lib }], top_k: 50 })).json;
    assert.deepEqual(r.repos.map((x: any) => [x.name, x.packages]), [['app', ['app']], ['lib', ['@acme/lib']]]);
    const edges = r.edges.map((e: any) => `${e.source} -${e.relation}-> ${e.target}`).sort();
    assert.deepEqual(edges, [
      'app::file:src/main.ts -imports-> lib::function:src/index.ts#parse',
      'app::function:src/main.ts#main -calls-> lib::function:src/index.ts#parse',
      // The graph holds no package.json node: the root module stands for each repository (evidence: the manifest's line).
      'app::module:. -depends_on-> lib::module:.',
    ]);
    assert.deepEqual(r.cross_edges, { depends_on: 1, imports: 1, calls: 1, inherits: 0, references: 0, http_route: 0, contract: 0, config_key: 0 });
    assert.equal(r.stored, true);
    // The library's graph is kept under the app's store, never written into the library.
    assert.equal(fs.existsSync(path.join(lib, '.m1nd')), false);
    assert.ok(fs.existsSync(path.join(app, '.m1nd', 'federation', 'lib')));
  });

  it("reaches the library's methods through receivers typed by its classes (constructed, declared, Python), not through untyped ones", async () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-')));
    const lib = path.join(parent, 'lib');
    const app = path.join(parent, 'app');
    write(lib, {
      'package.json': JSON.stringify({ name: '@acme/lib', version: '1.0.0' }),
      'src/index.ts': 'export class Cart {\n  total(items: number[]): number {\n    return items.length;\n  }\n  clear(): void {}\n}\n',
      'pyproject.toml': '[project]\nname = "acmelib"\nversion = "1.0"\n',
      'acmelib/__init__.py': 'class Ledger:\n    def post(self, amount):\n        return amount\n',
    });
    write(app, {
      'package.json': JSON.stringify({ name: 'app', private: true, dependencies: { '@acme/lib': 'file:../lib' } }),
      'pyproject.toml': '[project]\nname = "app"\nversion = "1.0"\ndependencies = ["acmelib>=1.0"]\n',
      'src/main.ts': [
        "import { Cart } from '@acme/lib';",
        '',
        'export function checkout(items: number[]): number {',
        '  const cart = new Cart();',
        '  return cart.total(items);',
        '}',
        '',
        'export function reset(cart: Cart): void {',
        '  cart.clear();',
        '}',
        '',
        'export function other(thing: { clear(): void }): void {',
        '  thing.clear();',
        '}',
        '',
      ].join('\n'),
      'app/book.py': 'from acmelib import Ledger\n\n\ndef record(amount):\n    ledger = Ledger()\n    return ledger.post(amount)\n',
    });
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: lib }], top_k: 50 })).json;
    const calls = r.edges.filter((e: any) => e.relation === 'calls').map((e: any) => `${e.source} -> ${e.target}`).sort();
    assert.deepEqual(calls, [
      'app::function:app/book.py#record -> lib::class:acmelib/__init__.py#Ledger',
      'app::function:app/book.py#record -> lib::method:acmelib/__init__.py#Ledger.post',
      'app::function:src/main.ts#checkout -> lib::class:src/index.ts#Cart',
      'app::function:src/main.ts#checkout -> lib::method:src/index.ts#Cart.total',
      'app::function:src/main.ts#reset -> lib::method:src/index.ts#Cart.clear',
    ]);
  });

  /** Federates `app` (the workspace) with `lib` beside it and returns the cross edges as `source -relation-> target @ evidence`. */
  async function federated(files: { app: Record<string, string>; lib: Record<string, string> }): Promise<string[]> {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'm1nd-fed-')));
    write(path.join(parent, 'lib'), files.lib);
    write(path.join(parent, 'app'), files.app);
    h = await connect({ workspaceRoot: path.join(parent, 'app'), env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    await h.call('ingest', { agent_id: 'a', path: path.join(parent, 'app') });
    const r = (await h.call('federate', { agent_id: 'a', repos: [{ name: 'app', path: '.' }, { name: 'lib', path: '../lib' }], top_k: 50 })).json;
    assert.ok(r.edges, JSON.stringify(r));
    return r.edges.map((e: any) => `${e.source} -${e.relation}-> ${e.target} @ ${e.evidence}`).sort();
  }

  it('matches Python distributions as pip does (acme-utils is acme_utils), from PEP 621 lists and Poetry tables', async () => {
    const lib = { 'pyproject.toml': '[project]\nname = "Acme-Utils"\nversion = "1.0"\n', 'acme_utils/__init__.py': '', 'acme_utils/text.py': 'def slugify(s):\n    return s.lower()\n' };
    const app = 'from acme_utils.text import slugify\n\n\ndef make_title(s):\n    return slugify(s)\n';
    const expected = (manifest: string, line: number) => [
      `app::file:app/cli.py -imports-> lib::function:acme_utils/text.py#slugify @ app::app/cli.py:1`,
      `app::function:app/cli.py#make_title -calls-> lib::function:acme_utils/text.py#slugify @ app::app/cli.py:5`,
      `app::module:. -depends_on-> lib::module:. @ app::${manifest}:${line}`,
    ];
    const pep621 = await federated({ lib, app: { 'pyproject.toml': '[project]\nname = "app"\ndependencies = [\n  "requests>=2",\n  "acme.utils[fast]>=1.0",\n]\n', 'app/cli.py': app } });
    assert.deepEqual(pep621, expected('pyproject.toml', 5));
    await h!.close();
    const poetry = await federated({ lib, app: { 'pyproject.toml': '[tool.poetry]\nname = "app"\n\n[tool.poetry.dependencies]\npython = "^3.10"\nacme-utils = { path = "../lib", develop = true }\n', 'app/cli.py': app } });
    assert.deepEqual(poetry, expected('pyproject.toml', 6));
  });

  it('links a Rust crate called by path without a use line, a hyphenated crate, and a renamed one', async () => {
    const lib = { 'Cargo.toml': '[package]\nname = "core-lib"\nversion = "0.1.0"\n', 'src/lib.rs': 'pub fn parse() -> i32 {\n    1\n}\n\npub mod text {\n    pub fn shout() -> i32 {\n        2\n    }\n}\n' };
    const main = 'fn run() -> i32 {\n    core_lib::parse() + core_lib::text::shout()\n}\n\nfn main() {\n    println!("{}", run());\n}\n';
    const plain = await federated({ lib, app: { 'Cargo.toml': '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\ncore-lib = { path = "../lib" }\n', 'src/main.rs': main } });
    assert.deepEqual(plain, [
      'app::function:src/main.rs#run -calls-> lib::function:src/lib.rs#parse @ app::src/main.rs:2',
      'app::function:src/main.rs#run -calls-> lib::function:src/lib.rs#text.shout @ app::src/main.rs:2',
      'app::module:. -depends_on-> lib::module:. @ app::Cargo.toml:6',
    ]);
    await h!.close();
    const renamed = await federated({ lib, app: { 'Cargo.toml': '[package]\nname = "app"\nversion = "0.1.0"\n\n[dependencies]\ncl = { package = "core-lib", path = "../lib" }\n', 'src/main.rs': main.replaceAll('core_lib::', 'cl::') } });
    assert.deepEqual(renamed.filter((e) => e.includes('-calls->')).length, 2, renamed.join('\n'));
  });

  it("links a Go module a go.work uses without a require, and cites the go.mod line that requires a module (not one its name prefixes)", async () => {
    const lib = { 'go.mod': 'module example.com/mathx\n\ngo 1.21\n', 'mathx.go': 'package mathx\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n' };
    const main = 'package main\n\nimport "example.com/mathx"\n\nfunc Sum3(a, b, c int) int {\n\treturn mathx.Add(mathx.Add(a, b), c)\n}\n';
    const work = await federated({ lib, app: { 'go.mod': 'module example.com/app\n\ngo 1.21\n', 'go.work': 'go 1.21\n\nuse (\n\t.\n\t../lib\n)\n', 'main.go': main } });
    assert.ok(work.includes('app::function:main.go#Sum3 -calls-> lib::function:mathx.go#Add @ app::main.go:6'), work.join('\n'));
    assert.ok(work.some((e) => e.includes('-depends_on->') && e.endsWith('@ app::go.work:5')), work.join('\n'));
    await h!.close();
    const prefixed = await federated({ lib, app: { 'go.mod': 'module example.com/mathxapp\n\ngo 1.21\n\nrequire example.com/mathx v0.0.0\n', 'main.go': main } });
    assert.ok(prefixed.some((e) => e.includes('-depends_on->') && e.endsWith('@ app::go.mod:5')), prefixed.join('\n'));
  });

  it('links repositories sharing routes, contracts, MCP tools and configuration keys, with no package dependency, and not on generic keys or unknown routes', async () => {
    const edges = await federated({
      app: {
        'package.json': JSON.stringify({ name: 'web', private: true }),
        'src/users.ts': [
          "import axios from 'axios';",
          '',
          'export async function loadUser(id: string) {',
          "  const r = await fetch('/api/users/' + id);",
          '  return r.json();',
          '}',
          '',
          'export async function placeOrder(body: unknown) {',
          '  return axios.post(`${process.env.PAYMENTS_URL}/api/orders`, body);',
          '}',
          '',
          'export async function health() {',
          "  await fetch('/api/health');",
          "  await fetch('/api/nowhere');",
          '  return process.env.PORT;',
          '}',
          '',
          'export async function lookup(client: any) {',
          "  return client.callTool({ name: 'lookup_user', arguments: {} });",
          '}',
          '',
        ].join('\n'),
        '.env.example': 'PORT=3000\nPAYMENTS_URL=http://localhost:9000\n',
        'proto/users.proto': 'syntax = "proto3";\npackage users.v1;\n\nservice UserService {\n  rpc Get (GetRequest) returns (User);\n}\n',
      },
      lib: {
        'pyproject.toml': '[project]\nname = "users-service"\n',
        'service/api.py': [
          'import os',
          '',
          'PAYMENTS = os.environ["PAYMENTS_URL"]',
          'PORT = os.getenv("PORT")',
          '',
          '',
          '@app.get("/api/users/{user_id}")',
          'async def get_user(user_id: int):',
          '    return {"id": user_id}',
          '',
          '',
          '@mcp.tool(name="lookup_user")',
          'def lookup_user(name: str):',
          '    return name',
          '',
        ].join('\n'),
        'orders/main.go': 'package main\n\nimport "net/http"\n\nfunc createOrder(w http.ResponseWriter, r *http.Request) {\n}\n\nfunc main() {\n\thttp.HandleFunc("/api/orders", createOrder)\n}\n',
        'openapi.yaml': 'openapi: 3.0.0\ninfo:\n  title: Users API\n  version: "1"\npaths:\n  /api/health:\n    get: {}\n',
        'proto/users.proto': 'syntax = "proto3";\npackage users.v1;\n\nservice UserService {\n  rpc Get (GetRequest) returns (User);\n}\n',
      },
    });
    assert.deepEqual(edges, [
      'app::file:proto/users.proto -contract-> lib::file:proto/users.proto @ app::proto/users.proto:4',
      'app::function:src/users.ts#health -http_route-> lib::file:openapi.yaml @ app::src/users.ts:13',
      'app::function:src/users.ts#loadUser -http_route-> lib::function:service/api.py#get_user @ app::src/users.ts:4',
      'app::function:src/users.ts#lookup -contract-> lib::function:service/api.py#lookup_user @ app::src/users.ts:19',
      'app::function:src/users.ts#placeOrder -config_key-> lib::file:service/api.py @ app::src/users.ts:9',
      'app::function:src/users.ts#placeOrder -http_route-> lib::function:orders/main.go#createOrder @ app::src/users.ts:9',
    ]);
    // In the view the shared evidence is a reference: impact on the handler reaches the web caller.
    const impact = (await h!.call('impact', { agent_id: 'a', node_id: 'lib::function:service/api.py#get_user', direction: 'reverse' })).json;
    assert.ok(JSON.stringify(impact).includes('app::function:src/users.ts#loadUser'), JSON.stringify(impact).slice(0, 600));
    // An edit of the app is read again: the request moved to another function is linked from there.
    const users = path.join(h!.workspace, 'src/users.ts');
    fs.writeFileSync(users, fs.readFileSync(users, 'utf8').replace("const r = await fetch('/api/users/' + id);", 'const r = await getJson(id);') + "\nexport function getJson(id: string) {\n  return fetch(`/api/users/${id}`);\n}\n");
    await h!.call('ingest', { agent_id: 'a', path: h!.workspace, incremental: true });
    const after = JSON.stringify((await h!.call('impact', { agent_id: 'a', node_id: 'lib::function:service/api.py#get_user', direction: 'reverse' })).json);
    assert.ok(after.includes('app::function:src/users.ts#getJson'), after.slice(0, 600));
  });

  it("links a Python client's f-string request to the Spring handler under its class's mapping prefix, not to a same-named route elsewhere", async () => {
    const edges = await federated({
      app: { 'pyproject.toml': '[project]\nname = "client"\n', 'client/users.py': 'import requests\n\n\ndef fetch_user(base, user_id):\n    return requests.get(f"{base}/api/users/{user_id}").json()\n' },
      lib: {
        'pom.xml': '<project></project>\n',
        'src/main/java/demo/UserController.java': [
          'package demo;',
          '',
          '@RestController',
          '@RequestMapping("/api/users")',
          'public class UserController {',
          '  @GetMapping("/{id}")',
          '  public User get(@PathVariable long id) {',
          '    return null;',
          '  }',
          '}',
          '',
        ].join('\n'),
        'src/main/java/demo/OrderController.java': 'package demo;\n\n@RestController\n@RequestMapping("/api/orders")\npublic class OrderController {\n  @GetMapping("/{id}")\n  public Order get(@PathVariable long id) {\n    return null;\n  }\n}\n',
      },
    });
    assert.deepEqual(edges, ['app::function:client/users.py#fetch_user -http_route-> lib::method:src/main/java/demo/UserController.java#UserController.get @ app::client/users.py:5']);
  });

  it("joins a FastAPI router's prefix to its routes, and reaches a router mounted under a prefix when one route alone matches the request's tail", async () => {
    const edges = await federated({
      app: {
        'package.json': JSON.stringify({ name: 'web', private: true }),
        'src/client.ts': "export async function user(id: string) {\n  return fetch(`/users/${id}`);\n}\n\nexport async function order(id: string) {\n  return fetch('/api/orders/' + id);\n}\n\nexport async function item(id: string) {\n  return fetch('/api/items/' + id);\n}\n",
      },
      lib: {
        'pyproject.toml': '[project]\nname = "svc"\n',
        'svc/users.py': 'from fastapi import APIRouter\n\nrouter = APIRouter(prefix="/users", tags=["users"])\n\n\n@router.get("/{user_id}")\nasync def read_user(user_id: int):\n    return {}\n',
        'orders/routes.js': "const router = require('express').Router();\n\nfunction getOrder(req, res) {\n  res.json({});\n}\n\nrouter.get('/orders/:id', getOrder);\nmodule.exports = router;\n",
        'items/a.js': "const r = require('express').Router();\nfunction getA(req, res) {}\nr.get('/items/:id', getA);\nmodule.exports = r;\n",
        'items/b.js': "const r = require('express').Router();\nfunction getB(req, res) {}\nr.get('/items/:id', getB);\nmodule.exports = r;\n",
      },
    });
    assert.deepEqual(edges, [
      'app::function:src/client.ts#order -http_route-> lib::function:orders/routes.js#getOrder @ app::src/client.ts:6',
      'app::function:src/client.ts#user -http_route-> lib::function:svc/users.py#read_user @ app::src/client.ts:2',
    ]);
  });

  it('reads NestJS controllers and Django URLconfs, and joins the prefixes routers are mounted at (another module, a Fastify plugin, an include, a router of the same file)', async () => {
    const edges = await federated({
      app: {
        'package.json': JSON.stringify({ name: 'web', private: true }),
        'src/client.ts': [
          'export const user = (id: string) => fetch(`/users/${id}`);',
          "export const order = (id: string) => fetch('/api/orders/' + id);",
          "export const itemB = (id: string) => fetch('/api/b/items/' + id);",
          "export const ping = () => fetch('/v2/ping');",
          "export const health = () => fetch('/health');",
          'export const sku = (s: string) => fetch(`/api/skus/${s}`);',
          "export const invoice = (n: string) => fetch('/billing/invoices/' + n);",
          '',
        ].join('\n'),
      },
      lib: {
        'pyproject.toml': '[project]\nname = "svc"\n',
        'src/users.controller.ts': "import { Controller, Get, Param, Post } from '@nestjs/common';\n\n@Controller('users')\nexport class UsersController {\n  @Get(':id')\n  findOne(@Param('id') id: string) {\n    return id;\n  }\n\n  @Post()\n  create() {\n    return 1;\n  }\n}\n",
        'site/urls.py': "from django.urls import include, path\n\nurlpatterns = [\n    path('api/', include('shop.urls')),\n]\n",
        'shop/urls.py': "from django.urls import path, re_path\nfrom . import views\n\nurlpatterns = [\n    path('orders/<int:pk>/', views.order_detail, name='order-detail'),\n    re_path(r'^skus/(?P<sku>[\\w-]+)/$', views.sku_detail),\n]\n",
        'shop/views.py': 'def order_detail(request, pk):\n    return pk\n\n\ndef sku_detail(request, sku):\n    return sku\n',
        'items/a.js': "const r = require('express').Router();\nfunction getA(req, res) {}\nr.get('/items/:id', getA);\nmodule.exports = r;\n",
        'items/b.js': "const r = require('express').Router();\nfunction getB(req, res) {}\nr.get('/items/:id', getB);\nmodule.exports = r;\n",
        'server.js': [
          "const express = require('express');",
          "const b = require('./items/b');",
          'const app = express();',
          'const api = express.Router();',
          'function pong(req, res) {}',
          'function healthy(req, res) {}',
          "api.get('/ping', pong);",
          "app.get('/health', healthy);",
          "app.use('/v2', api);",
          "app.use('/api/a', require('./items/a'));",
          "app.use('/api/b', b);",
          '',
        ].join('\n'),
        'fastify/server.js': "const fastify = require('fastify')();\nconst drafts = require('./drafts');\nfastify.register(require('./invoices'), { prefix: '/billing' });\nfastify.register(drafts, { prefix: '/drafts' });\n",
        'fastify/drafts.js': "function getDraft(req, reply) {}\nmodule.exports = async function (f) {\n  f.get('/invoices/:n', getDraft);\n};\n",
        'fastify/invoices.js': "function getInvoice(req, reply) {}\nmodule.exports = async function (f) {\n  f.get('/invoices/:n', getInvoice);\n};\n",
      },
    });
    assert.deepEqual(edges, [
      'app::function:src/client.ts#health -http_route-> lib::function:server.js#healthy @ app::src/client.ts:5',
      'app::function:src/client.ts#invoice -http_route-> lib::function:fastify/invoices.js#getInvoice @ app::src/client.ts:7',
      'app::function:src/client.ts#itemB -http_route-> lib::function:items/b.js#getB @ app::src/client.ts:3',
      'app::function:src/client.ts#order -http_route-> lib::function:shop/views.py#order_detail @ app::src/client.ts:2',
      'app::function:src/client.ts#ping -http_route-> lib::function:server.js#pong @ app::src/client.ts:4',
      'app::function:src/client.ts#sku -http_route-> lib::function:shop/views.py#sku_detail @ app::src/client.ts:6',
      'app::function:src/client.ts#user -http_route-> lib::method:src/users.controller.ts#UsersController.findOne @ app::src/client.ts:1',
    ]);
  });

  it("joins FastAPI's include_router and Flask's register_blueprint prefixes and gin's route groups to their routes, and reads a URL built in a variable first", async () => {
    const edges = await federated({
      app: {
        'package.json': JSON.stringify({ name: 'web', private: true }),
        'src/client.ts': [
          "export const user = (id: string) => fetch('/api/v1/users/' + id);",
          "export const item = (id: string) => fetch('/api/v1/items/' + id);",
          "export const report = () => fetch('/admin/reports');",
          "export const order = (id: string) => fetch('/shop/v2/orders/' + id);",
          'export async function adminReport(base: string) {',
          '  const url = `${base}/admin/reports`;',
          '  return fetch(url, { headers: {} });',
          '}',
          '',
        ].join('\n'),
      },
      lib: {
        'pyproject.toml': '[project]\nname = "svc"\n',
        'svc/main.py': 'from fastapi import FastAPI\nfrom .routers import users\nfrom .routers.items import router as items_router\n\napp = FastAPI()\napp.include_router(users.router, prefix="/api/v1")\napp.include_router(items_router, prefix="/api/v1/items")\n',
        'svc/routers/users.py': 'from fastapi import APIRouter\n\nrouter = APIRouter(prefix="/users")\n\n\n@router.get("/{uid}")\ndef read_user(uid: int):\n    return uid\n',
        'svc/routers/items.py': 'from fastapi import APIRouter\n\nrouter = APIRouter()\n\n\n@router.get("/{iid}")\ndef read_item(iid: int):\n    return iid\n\n\n@router.get("/users/{uid}")\ndef item_user(uid: int):\n    return uid\n',
        'web/app.py': 'from flask import Blueprint, Flask\n\nadmin = Blueprint("admin", __name__)\n\n\n@admin.route("/reports")\ndef reports():\n    return []\n\n\napp = Flask(__name__)\napp.register_blueprint(admin, url_prefix="/admin")\n\n\n@app.route("/reports")\ndef site_reports():\n    return []\n',
        'go/go.mod': 'module example.com/shop\n\ngo 1.22\n',
        'go/main.go': 'package main\n\nfunc main() {\n\tr := gin.Default()\n\tshop := r.Group("/shop")\n\tv2 := shop.Group("/v2")\n\tv2.GET("/orders/:id", getOrder)\n\tr.GET("/orders/:id", getOldOrder)\n}\n\nfunc getOrder(c *gin.Context) {}\n\nfunc getOldOrder(c *gin.Context) {}\n',
      },
    });
    assert.deepEqual(edges, [
      'app::function:src/client.ts#adminReport -http_route-> lib::function:web/app.py#reports @ app::src/client.ts:7',
      'app::function:src/client.ts#item -http_route-> lib::function:svc/routers/items.py#read_item @ app::src/client.ts:2',
      'app::function:src/client.ts#order -http_route-> lib::function:go/main.go#getOrder @ app::src/client.ts:4',
      'app::function:src/client.ts#report -http_route-> lib::function:web/app.py#reports @ app::src/client.ts:3',
      'app::function:src/client.ts#user -http_route-> lib::function:svc/routers/users.py#read_user @ app::src/client.ts:1',
    ]);
  });

  it('federate_auto finds the library from the manifest, names the setting while it is not allowed, and federates once it is', async () => {
    const { parent, lib, app } = twoRepos();
    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full' } });
    await h.call('ingest', { agent_id: 'a', path: app });
    const listed = (await h.call('federate_auto', { agent_id: 'a' })).json;
    assert.deepEqual(listed.candidates.map((c: any) => [c.path, c.allowed, c.reasons]), [['../lib', false, ['manifest_reference']]]);
    assert.match(listed.hint, /M1ND_ALLOW_ROOTS/);
    assert.equal(listed.federate, null);
    await h.close();

    h = await connect({ workspaceRoot: app, env: { M1ND_TOOL_TIER: 'full', M1ND_ALLOW_ROOTS: parent } });
    const found = (await h.call('federate_auto', { agent_id: 'a' })).json;
    const c = found.candidates[0];
    assert.deepEqual([c.root, c.allowed, c.packages, c.reasons.sort()], [lib, true, ['@acme/lib'], ['manifest_reference', 'sibling_package']]);
    const done = (await h.call('federate_auto', { agent_id: 'a', execute: true, current_repo_name: 'app' })).json;
    assert.equal(done.executed, true);
    assert.ok(done.edges.some((e: any) => e.source === 'app::function:src/main.ts#main' && e.relation === 'calls' && e.target === 'lib::function:src/index.ts#parse'), JSON.stringify(done.edges));
  });
});
