/**
 * The rule between folders, checked by `npm run lint:deps` after .dependency-cruiser.cjs: no
 * folder reaches itself through another (src/escrow → src/invoices → src/escrow). It looks at
 * the modules' own files only: the files that assemble the whole — the entries (src/server.ts,
 * workers/index.ts, src/cli/, bin/, bench/), the app that mounts every routes file
 * (src/http/app.ts), the routes files themselves (the HTTP layer, which only the app imports) and
 * config/ (which registers every entity) — import every folder by design.
 */
const { options } = require('./.dependency-cruiser.cjs');

/**
 * Folders that still reach each other, through files that only tell their own story: accounts ↔
 * payment-methods (registration makes wallets; a payment method names its account) and auth ↔
 * blocks (a session checks login blocks; a login block ends sessions), with webhooks on that
 * loop. They may not reach any other folder in a cycle; remove them from here once untangled.
 */
const KNOWN = '^src/(accounts|payment-methods|auth|blocks|webhooks)$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular-folders',
      severity: 'error',
      comment: 'No folder reaches itself through another folder.',
      scope: 'folder',
      from: { pathNot: KNOWN },
      to: { circular: true },
    },
    {
      name: 'no-circular-folders-known',
      severity: 'error',
      comment: 'The folders still on a known loop reach no other folder in a cycle.',
      scope: 'folder',
      from: { path: KNOWN },
      to: { circular: true, pathNot: KNOWN },
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
