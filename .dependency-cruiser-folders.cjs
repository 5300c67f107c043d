/**
 * The rule between folders, checked by `npm run lint:deps` after .dependency-cruiser.cjs: no
 * folder reaches itself through another (src/escrow → src/invoices → src/escrow). It looks at
 * the modules' own files only: the files that assemble the whole — the entries (src/server.ts,
 * workers/index.ts, src/cli/, bin/, bench/), the app that mounts every routes file
 * (src/http/app.ts), the routes files themselves (the HTTP layer, which only the app imports) and
 * config/ (which registers every entity) — import every folder by design.
 */
const { options } = require('./.dependency-cruiser.cjs');

module.exports = {
  forbidden: [
    {
      name: 'no-circular-folders',
      severity: 'error',
      comment: 'No folder reaches itself through another folder.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    ...options,
    exclude: {
      path: [
        '^(node_modules|dist)/',
        '^src/server\\.ts$',
        '^workers/index\\.ts$',
        '^src/cli/',
        '^bin/',
        '^bench/',
        '^config/',
        '^src/http/app\\.ts$',
        '\\.routes\\.ts$',
      ],
    },
  },
};
