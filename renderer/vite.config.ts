import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

// The renderer is a plain React app; JSX is compiled by Vite's own transformer.
export default defineConfig({
  root: here,
  base: '/',
  publicDir: false,
  build: {
    outDir: path.resolve(here, '..', 'dist', 'renderer'),
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
});
