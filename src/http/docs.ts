import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import { success } from '../envelope.js';
import { apiDocumentNames, servedDocuments } from './openapi.js';

/** The OpenAPI documents as written, mounted at `/openapi` (`/openapi/<name>.yaml`). */
export function documentRoutes(): Router {
  const router = Router();
  const documents = servedDocuments();
  router.get('/:file', (req, res, next) => {
    const text = documents.get(req.params.file);
    if (!text) return next();
    res.type('application/yaml').send(text);
  });
  return router;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The one `<style>` element Swagger UI's scripts create: in the SVG of the top bar's logo
 * (swagger-ui-standalone-preset.js). If an upgrade changes it, the browser test of /docs sees
 * the policy refuse it.
 */
const LOGO_STYLE = '.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}';

/**
 * The reference page's Content-Security-Policy: Swagger UI's own scripts and stylesheet (from
 * /docs), the inline `<style>` blocks and `style` attribute of its page by their hashes (taken
 * from the page itself, so they follow an upgrade) and its logo's `<style>` by its hash, images
 * from /docs and the `data:` icons of its stylesheet, requests to this origin only (the
 * documents, `/token`, "Try it out"), and no framing anywhere (clickjacking of Authorize).
 */
export function referencePolicy(html: string): string {
  const blocks = [...[...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]), LOGO_STYLE].map(sha256);
  const attributes = [...html.matchAll(/\sstyle="([^"]*)"/g)].map((m) => sha256(m[1]));
  return [
    "default-src 'none'",
    "script-src 'self'",
    ["style-src 'self'", ...blocks, ...(attributes.length ? ["'unsafe-hashes'", ...attributes] : [])].join(' '),
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The interactive API reference, mounted at `/docs`: one page per API document (the explorer's
 * list, or `/docs?urls.primaryName=<name>`). Each document declares its security schemes, which
 * gives every page an Authorize button: client credentials against `/token`, or a pasted user
 * password token where the document's operations accept one. Every answer under /docs carries
 * the page's Content-Security-Policy (`referencePolicy`).
 */
export function referencePage(): Router {
  const router = Router();
  const urls = apiDocumentNames.map((name) => ({ url: `/openapi/${name}.yaml`, name }));
  // Operation ids shown, because descriptions refer to operations by their id. No online
  // validator badge: it would send the document's URL to a third party.
  const options = {
    explorer: true,
    customSiteTitle: 'Holdfast API',
    swaggerOptions: { urls, displayOperationId: true, validatorUrl: null },
  };
  const policy = referencePolicy(swaggerUi.generateHTML(undefined, options));
  router.use((_req, res, next) => {
    res.set('Content-Security-Policy', policy).set('X-Frame-Options', 'DENY');
    next();
  });
  router.use(swaggerUi.serve);
  router.get('/', swaggerUi.setup(undefined, options));
  return router;
}

/** What `GET /` points to: the reference, the health checks and the documents (and the demo shop where it runs). */
function homeLinks(opts: { demo: boolean }) {
  return {
    name: 'holdfast',
    docs: '/docs',
    health: '/healthz',
    ready: '/readyz',
    openapi: apiDocumentNames.map((name) => ({ name, url: `/openapi/${name}.yaml`, docs: `/docs?urls.primaryName=${name}` })),
    ...(opts.demo ? { demo: '/ui/demo' } : {}),
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * `GET /`: a newcomer's first request finds the reference and the health URLs instead of a
 * 404. JSON in the envelope (as `/healthz` answers), or a page of links when the client
 * prefers HTML (a browser).
 */
export function homePage(opts: { demo: boolean }) {
  const links = homeLinks(opts);
  const item = (href: string, text: string) => `<li><a href="${escapeHtml(href)}">${escapeHtml(text)}</a></li>`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Holdfast</title></head>
<body>
<h1>Holdfast</h1>
<ul>
${item(links.docs, 'API reference (try the API with a token from your client credentials)')}
${item(links.health, 'Health: the process runs')}
${item(links.ready, 'Readiness: PostgreSQL and Redis answer')}
${links.demo ? item(links.demo, 'Demo shop') : ''}
</ul>
<h2>OpenAPI documents</h2>
<ul>
${links.openapi.map((d) => item(d.url, `${d.name}.yaml`)).join('\n')}
</ul>
</body></html>
`;
  return (req: Request, res: Response): void => {
    res.vary('Accept');
    if (req.accepts(['json', 'html']) === 'html') {
      res.set('Content-Security-Policy', "default-src 'none'; base-uri 'none'; form-action 'none'");
      res.type('html').send(html);
    } else {
      res.json(success(links));
    }
  };
}
