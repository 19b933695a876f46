import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The calendar app (issue 16). Built into web/dist, which the service serves at `/`
// (`npm start` builds it once, like the server). `npm run web:dev` serves it with hot reload and
// forwards API and account calls to a service on :3000.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // the first load must stay small: heavy parts (compose, analytics) are split and loaded on use
    chunkSizeWarningLimit: 400,
  },
  server: {
    proxy: Object.fromEntries(['/public', '/account', '/oauth', '/device', '/media', '/integrations/social', '/.well-known'].map((p) => [p, 'http://127.0.0.1:3000'])),
  },
});
