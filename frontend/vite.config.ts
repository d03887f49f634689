/// <reference types="vitest/config" />
import { defineConfig, type Plugin } from 'vite';

// The dev server injects CSS as <style> elements, which the strict CSP in
// index.html forbids; relax style-src for `vite dev` only, never for builds.
// The whole directive is replaced: next to a hash, 'unsafe-inline' is ignored.
function devStyleCsp(): Plugin {
  return {
    name: 'footnote-dev-style-csp',
    apply: 'serve',
    transformIndexHtml(html) {
      return html.replace(/style-src [^;"]*/, "style-src 'self' 'unsafe-inline'");
    },
  };
}

export default defineConfig({
  base: './',
  plugins: [devStyleCsp()],
  build: {
    outDir: 'dist',
    // public/.keep is copied back so the tracked dist/.keep survives the wipe.
    emptyOutDir: true,
    sourcemap: false,
  },
  server: {
    host: '127.0.0.1',
    strictPort: true,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
  },
});
