import { defineConfig } from 'vite';

// The browser app lives in web/ and is built into dist/web, which the server serves
// (server/src/api/web-app.ts): index.html for every page, hashed files under assets/.
export default defineConfig({
  root: 'web',
  // Relative asset URLs, resolved against the <base href> the server writes from --base-path:
  // one build serves at / and under any prefix a proxy gives it.
  base: './',
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // xterm.js with its WebGL renderer is most of the session page's chunk (~170 kB gzipped).
    chunkSizeWarningLimit: 700,
  },
  server: { host: '127.0.0.1' },
});
