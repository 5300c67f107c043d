/**
 * Import rules between files, checked by `npm run lint:deps` (which fails on any violation;
 * .dependency-cruiser-folders.cjs adds the rule between folders). Dependencies point one way —
 * routes and workers → services → rules and entities — and nothing loops back.
 */
/**
 * Packages and Node modules that do I/O (matched on where they resolve to): a rules file decides,
 * it never reaches the outside. node:net is not here: its BlockList and isIP only classify
 * addresses (webhook.rules).
 */
const IO = [
  '(^|/)node_modules/(@types/)?(express|bullmq|ioredis|pg|got|pino|jose|rate-limiter-flexible|swagger-ui-express)/',
  '(^|/)node_modules/(@mikro-orm|@bull-board)/',
  '^(node:)?(http|https|http2|fs|fs/promises|child_process|dgram|dns|tls|worker_threads|cluster)$',
];

/** The HTTP layer: Express plumbing, the web entry and the thin route handlers of each module (and the benchmarks, which build the app). */
const HTTP_LAYER = '^src/http/|^src/server\\.ts$|\\.routes\\.ts$|^bench/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No module reaches itself through its imports, at run time or through types only.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'rules-are-pure',
      severity: 'error',
      comment:
        'A *.rules.ts file imports no I/O: no Express, BullMQ, Redis, MikroORM, pg, got, network or file system, no service or repository.',
      from: { path: '\\.rules\\.ts$' },
      to: {
        path: ['\\.(service|repository|routes|processor)\\.ts$', '^src/(http|queues|db|runtime)/', ...IO],
      },
    },
    {
      name: 'http-only-from-http-layer',
      severity: 'error',
      comment:
        'Only routes files and the HTTP layer (src/http/, src/server.ts) import src/http/: services answer with values and AppErrors, never with Express.',
      from: { pathNot: HTTP_LAYER },
      to: { path: '^src/http/' },
    },
    {
      name: 'routes-only-from-app',
      severity: 'error',
      comment:
        "A routes file is mounted by the app (src/http/app.ts, src/server.ts) and imported by nothing else: no module builds on another's handlers.",
      from: { pathNot: '^src/http/app\\.ts$|^src/server\\.ts$' },
      to: { path: '\\.routes\\.ts$' },
    },
    {
      name: 'workers-not-http',
      severity: 'error',
      comment: 'Workers import nothing of src/http/: a worker process serves no HTTP.',
      from: { path: '^workers/' },
      to: { path: '^src/http/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    // Type-only imports count: a cycle through types is still a cycle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
