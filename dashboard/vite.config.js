// The dashboard's build: `npm run build -w @kino/dashboard` writes dist/, which the API serves at
// /dashboard/ (api/src/dashboard/static.ts). Preact stands in for React (preact/compat), so
// React libraries such as @tanstack/react-query work unchanged.
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

export default defineConfig({
  base: '/dashboard/',
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline assets (data: URLs): the Content-Security-Policy allows only the dashboard's own files.
    assetsInlineLimit: 0,
    sourcemap: true,
  },
});
