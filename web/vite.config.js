import { defineConfig } from 'vite';

// Relative asset paths: dist/ opens from any static server and any path.
export default defineConfig({
  base: './',
  worker: { format: 'es' },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
  server: { fs: { allow: ['..'] } },
});
