import { defineConfig } from 'vite';

// The browser app lives in web/ and is built into dist/web, which the server serves.
// Until the jump-seat web app lands, the server renders `/` itself.
export default defineConfig({
  root: 'web',
  build: { outDir: '../dist/web', emptyOutDir: true },
  server: { host: '127.0.0.1' },
});
