import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  // The manifest maps each page module to its chunks (bench/web.ts reports their sizes).
  // ECharts (report page only) is one lazily loaded chunk of about 1 MB before gzip.
  build: { outDir: 'dist', emptyOutDir: true, manifest: true, chunkSizeWarningLimit: 1200 },
  server: { proxy: { '/api': 'http://127.0.0.1:18080', '/mcp': 'http://127.0.0.1:18080' } },
});
