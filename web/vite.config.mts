import { defineConfig } from 'vite';

/**
 * The dashboard builds to dist/web: static files that the API serves under /dashboard
 * (src/dashboard/spa). Nothing is fetched at run time: no CDN, no web fonts.
 */
export default defineConfig({
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: true,
    rolldownOptions: {
      onLog(level, log, handler) {
        // react-router marks its modules "use client" for React Server Components, which a
        // client-only bundle has no use for.
        if (log.code === 'MODULE_LEVEL_DIRECTIVE') return;
        handler(level, log);
      },
    },
  },
  server: {
    // `npx vite web` for front-end work, against an API started with `npm start`.
    proxy: { '/dashboard/api': 'http://127.0.0.1:3000' },
  },
});
