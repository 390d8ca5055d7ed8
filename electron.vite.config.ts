import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import vue from '@vitejs/plugin-vue';

// Three builds: the main process (the Electron entry and the `pilothouse`
// command share code through out/main/chunks), the preload, and the renderer.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve('main/index.ts'),
          cli: resolve('main/cli.ts'),
        },
        // Native and large runtime packages stay in node_modules.
        external: ['electron', /^@grpc\//, 'protobufjs', /^protobufjs\//, 'prom-client', 'commander', 'sorted-btree'],
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: { input: { index: resolve('preload/index.ts') } },
    },
  },
  renderer: {
    root: 'renderer',
    plugins: [vue()],
    build: {
      outDir: 'out/renderer',
      rollupOptions: { input: { index: resolve('renderer/index.html') } },
    },
  },
});
