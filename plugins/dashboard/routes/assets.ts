/**
 * GET / and GET /assets/*: the built browser app (dist/ui), read from disk on request — nothing at
 * start-up. One path checker confines every request to the app's folder (no `..`, no absolute path,
 * no symlink out of it); anything else is a 404. Without a build, `/` says how to make one.
 */
import { existsSync, realpathSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCodes, httpError, type HttpRouteResponse } from '../../../core/index.ts';
import { SECURITY_HEADERS, type DashboardContext } from '../context.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};
const MAX_ASSET_BYTES = 8 * 1024 * 1024;

const NO_BUILD_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>m1nd dashboard</title></head>
<body><h1>m1nd dashboard</h1><p>The dashboard's browser app is not built. Run <code>npm run build</code> in the m1nd folder, then reload this page.</p>
<p>The read API is served all the same under <code>/api/</code> (see docs/dashboard.md).</p></body></html>
`;

/** The folder of the built app: the option when given, else dist/ui of the package this file belongs to. */
export function assetsFolder(ctx: DashboardContext): string {
  if (ctx.assetsDir) return path.resolve(ctx.assetsDir);
  // From sources (plugins/dashboard/routes) or from dist (dist/plugins/dashboard/routes): up to the package root.
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'ui');
    dir = path.dirname(dir);
  }
  return path.join(process.cwd(), 'dist', 'ui');
}

/**
 * The absolute file a request names inside `root`, or null: the one path checker of static files.
 * Refuses empty and dot segments, backslashes, NUL, absolute paths and anything resolving (symlinks
 * included) outside the root.
 */
export async function confinedFile(root: string, requested: string): Promise<string | null> {
  if (requested === '' || requested.length > 512 || /[\\\0]/.test(requested) || requested.startsWith('/')) return null;
  const segments = requested.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  const candidate = path.resolve(root, ...segments);
  if (!inside(root, candidate)) return null;
  try {
    const [realRoot, real] = await Promise.all([realpath(root), realpath(candidate)]);
    if (!inside(realRoot, real)) return null;
    const s = await stat(real);
    return s.isFile() && s.size <= MAX_ASSET_BYTES ? real : null;
  } catch {
    return null;
  }
}

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

export async function index(ctx: DashboardContext): Promise<HttpRouteResponse> {
  const root = assetsFolder(ctx);
  const file = await confinedFile(root, 'index.html');
  if (!file) return { status: 200, body: NO_BUILD_PAGE, headers: { ...SECURITY_HEADERS, 'Content-Type': TYPES['.html'] } };
  return { status: 200, body: await readFile(file), headers: { ...SECURITY_HEADERS, 'Content-Type': TYPES['.html'] } };
}

export async function asset(ctx: DashboardContext, rest: string): Promise<HttpRouteResponse> {
  const root = assetsFolder(ctx);
  const file = await confinedFile(root, `assets/${rest}`);
  if (!file) throw httpError(404, ErrorCodes.HTTP_NOT_FOUND, 'no such dashboard asset', 'assets come from the page at /');
  const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  // Hashed names never change content: the browser may keep them.
  return { status: 200, body: await readFile(file), headers: { ...SECURITY_HEADERS, 'Content-Type': type, 'Cache-Control': 'public, max-age=31536000, immutable' } };
}

/** Whether a built app is present (for `m1nd ui`'s message). */
export function built(ctx: DashboardContext): boolean {
  try {
    return existsSync(path.join(realpathSync(assetsFolder(ctx)), 'index.html'));
  } catch {
    return false;
  }
}
