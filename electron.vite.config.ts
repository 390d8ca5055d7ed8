import { chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Plugin } from 'vite';
import { defineConfig } from 'electron-vite';
import vue from '@vitejs/plugin-vue';
import { buildInfo } from './scripts/buildInfo.mjs';

// `pilothouse` (package.json bin → out/main/cli.js) must start with a shebang
// and be executable so `npx pilothouse` works. Added after every other
// transform (electron-vite injects code at the top of ESM chunks).
function cliShebang(): Plugin {
  return {
    name: 'pilothouse-cli-shebang',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const cli = bundle['cli.js'];
      if (cli?.type === 'chunk' && !cli.code.startsWith('#!')) cli.code = `#!/usr/bin/env node\n${cli.code}`;
    },
    writeBundle(options) {
      if (options.dir) chmodSync(join(options.dir, 'cli.js'), 0o755);
    },
  };
}
// Three builds: the main process (the Electron entry and the `pilothouse`
// command share code through out/main/chunks), the preload, and the renderer.
export default defineConfig({
  main: {
    plugins: [cliShebang()],
    define: { __PILOTHOUSE_BUILD__: JSON.stringify(buildInfo()) },
    build: {
      outDir: 'out/main',
      // Every package is bundled into the chunks instead of loaded from
      // node_modules: resolving, reading and (for CommonJS packages under
      // ESM) lexing a few hundred files each cost every process a large
      // part of its start, and `up` starts six at once (`pilothouse etcd
      // --version`: 0.30 → 0.17 s CPU; `apiserver --help`: 0.62 → 0.30 s).
      externalizeDeps: false,
      rollupOptions: {
        input: {
          index: resolve('main/index.ts'),
          cli: resolve('main/cli.ts'),
        },
        // Electron itself, and node-pty's native addon, load from node_modules.
        external: ['electron', 'node-pty'],
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve('preload/index.ts') },
        // Sandboxed renderers load only CommonJS preloads.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'renderer',
    plugins: [vue()],
    build: {
      outDir: 'out/renderer',
      // The page is served to a browser too: ship it minified (electron-vite leaves it unminified by default).
      minify: true,
      rollupOptions: { input: { index: resolve('renderer/index.html') } },
    },
  },
});
