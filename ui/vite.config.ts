// Builds the dashboard (ui/) into dist/ui/: index.html plus hashed assets, no source maps, nothing
// inline (the server's Content-Security-Policy allows only 'self' scripts and styles).
// `npm run build` runs it after the server build; the plugin serves dist/ui from disk.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  // Relative asset URLs: the page works wherever the server mounts it.
  base: './',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('../dist/ui'),
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    // Every asset is a file: an inlined data: URL would need a wider CSP.
    assetsInlineLimit: 0,
    // Cytoscape (the graph view's chunk, loaded on demand) is ~430 kB minified.
    chunkSizeWarningLimit: 600,
    modulePreload: { polyfill: false },
    // Rolldown's timing report is noise in the package build's output.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
