// Builds the dashboard into dist/web, served by Quarry at /app (src/dashboard/routes.ts).
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import preact from '@preact/preset-vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = path.resolve(here, '..', 'dist', 'web');

/**
 * Writes a gzip copy beside every script and style, which the server sends to browsers that
 * accept gzip (@fastify/static preCompressed): compressed once at build, not per request.
 */
function gzipAssets(): Plugin {
  return {
    name: 'quarry-gzip-assets',
    apply: 'build',
    closeBundle() {
      const assets = path.join(outDir, 'assets');
      if (!fs.existsSync(assets)) return;
      for (const name of fs.readdirSync(assets)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const file = path.join(assets, name);
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(fs.readFileSync(file), { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: here,
  base: '/app/',
  plugins: [preact(), gzipAssets()],
  resolve: {
    // The typed SDK from its sources: the workspace package needs no build of its own first.
    alias: { '@quarry/client': path.resolve(here, '..', 'clients', 'typescript', 'src', 'index.ts') },
  },
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Read by bench:app-size to follow what the first page loads.
    manifest: true,
    reportCompressedSize: false,
  },
});
