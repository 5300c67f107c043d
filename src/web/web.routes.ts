/**
 * The hosted pages and the widget script.
 * `/ui/appauth/<nonce>` spends a session nonce and sends the browser on to its flow
 * (`/ui/checkout`, `/ui/payment-selection`, `/ui/transaction-history`, `/ui/receipt`, `/ui/kyc`,
 * `/ui/payout`) with a
 * short-lived user token in the URL fragment,
 * which never reaches a server or a Referer. The pages are one shell and script that call the
 * public API with that token, and `/ui/session` to name the account signed in; `/widget.js`
 * embeds them in an integrator's page and turns their messages into the `onComplete` /
 * `onError` callbacks (docs/walkthroughs.md, hosted checkout). The shell carries only what the
 * server checked: the page's error, and a `postOAuthURLOverride` the operator's list allows.
 */
import { readFileSync } from 'node:fs';
import express, { type Request, type Response, type Router } from 'express';
import { getProfile } from '../accounts/account.service.js';
import type { TokenSigner } from '../auth/auth.service.js';
import { openHostedSession } from '../sessions/user-session.service.js';
import { success } from '../envelope.js';
import { AppError } from '../errors.js';
import type { SecurityCheck } from '../http/request-validation.js';
import { demoCheckout, demoSession } from './demo.service.js';
import {
  checkedReturnUrl,
  FLOWS,
  flowOptions,
  type HostedStripe,
  hostedPagePolicy,
  htmlAttribute,
  missingFlowScopes,
  sameOriginPost,
} from './web.rules.js';

const asset = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');

const ASSETS: Record<string, { type: string; body: string }> = {
  'hosted.js': { type: 'text/javascript; charset=utf-8', body: asset('hosted.js') },
  'hosted-kyc.js': { type: 'text/javascript; charset=utf-8', body: asset('hosted-kyc.js') },
  'hosted-payout.js': { type: 'text/javascript; charset=utf-8', body: asset('hosted-payout.js') },
  'hosted.css': { type: 'text/css; charset=utf-8', body: asset('hosted.css') },
  'demo.js': { type: 'text/javascript; charset=utf-8', body: asset('demo.js') },
};
const WIDGET = asset('widget.js');
const SHELL = asset('hosted.html');
const DEMO = asset('demo.html');

/** Why a hosted page shows its full-screen error, as the page names it to the user. */
type PageError = 'link_expired' | 'invalid_flow' | 'invalid_config' | 'redirect_not_allowed' | 'flow_not_allowed';

/**
 * The pages run only their own script and styles, talk only to this origin, and may be framed
 * by the pages `FRAME_ANCESTORS` allows (any, by default: the widget runs on integrators' pages);
 * nothing they show is cached. Under the Stripe card processor they may also load and run
 * Stripe's browser library (`hostedPagePolicy`).
 */
function pageHeaders(res: Response, ancestors: string, frames = false, stripe?: HostedStripe): void {
  res.set({
    'Content-Security-Policy': hostedPagePolicy(ancestors, { frames, stripe }),
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
}

/**
 * The page shell, with the page's error and the address a top-level page sends the user back
 * to — only one the server checked against the operator's list, never the query's own text.
 */
function sendShell(res: Response, ancestors: string, status: number, error?: PageError, returnUrl?: string, stripe?: HostedStripe): void {
  pageHeaders(res, ancestors, false, stripe);
  const meta = [
    error ? `<meta name="hf-error" content="${error}">` : '',
    returnUrl ? `<meta name="hf-return" content="${htmlAttribute(returnUrl)}">` : '',
    // Under the Stripe card processor the pages collect cards with Stripe's browser library: never a card number here.
    stripe ? `<meta name="hf-stripe-js" content="${htmlAttribute(stripe.jsUrl)}">` : '',
    stripe?.publishableKey ? `<meta name="hf-stripe-key" content="${htmlAttribute(stripe.publishableKey)}">` : '',
  ].join('');
  res.status(status).type('html').send(SHELL.replace('<!--hf-meta-->', meta));
}

/**
 * The hosted pages; with `demo` (staging, `npm start`) also the demo shop at `/ui/demo`, whose
 * server side acts with the demo client.
 */
export function webRoutes(deps: {
  signer: TokenSigner;
  /** The API's bearer check (`svc_auth`), so `/ui/session` accepts exactly the tokens the API does. */
  authenticate: SecurityCheck;
  allowedRedirectPatterns: string[];
  frameAncestors?: string;
  demo?: { clientId: string; webUrl: string };
  /** Set only when the Stripe card processor is on: the pages load Stripe's browser library. */
  stripe?: HostedStripe;
}): Router {
  const router = express.Router();
  const ancestors = deps.frameAncestors ?? '*';
  const shell = (req: Request, res: Response, status: number, error?: PageError) =>
    sendShell(
      res,
      ancestors,
      status,
      error,
      error === 'invalid_config' || error === 'redirect_not_allowed'
        ? undefined
        : checkedReturnUrl(req.query.config, deps.allowedRedirectPatterns),
      deps.stripe,
    );
  const demo = deps.demo;
  if (demo) {
    router.get('/ui/demo', (_req, res) => {
      // The demo shop frames the hosted pages, as an integrator's page would.
      pageHeaders(res, ancestors, true);
      res.type('html').send(DEMO);
    });
    // The demo page is served here, whatever PUBLIC_URL says: its links stay on this origin.
    const local = (link: { redirect: string }) => {
      const url = new URL(link.redirect);
      return { redirect: `${url.pathname}${url.search}` };
    };
    // Only the demo page may post here: another site's form would make buyers with the demo client.
    const publicOrigin = new URL(demo.webUrl).origin;
    const fromDemoPage = (req: Request) => {
      const header = (name: string) => {
        const value = req.headers[name];
        return typeof value === 'string' ? value : undefined;
      };
      if (!sameOriginPost({ secFetchSite: header('sec-fetch-site'), origin: header('origin'), host: header('host'), publicOrigin }))
        throw new AppError('forbidden', 'The demo shop takes posts from its own page only.', {
          codes: ['CROSS_SITE_REQUEST'],
          payload: null,
        });
    };
    router.post('/ui/demo/checkout', async (req, res) => {
      fromDemoPage(req);
      res.set('Cache-Control', 'no-store').json(local(await demoCheckout(req.em, deps.signer, demo.clientId, demo.webUrl)));
    });
    router.post('/ui/demo/session', async (req, res) => {
      fromDemoPage(req);
      res.set('Cache-Control', 'no-store').json(local(await demoSession(req.em, deps.signer, demo.clientId, demo.webUrl)));
    });
  }
  router.get('/ui/appauth/:nonce', async (req, res) => {
    const query = req.query as Record<string, string | undefined>;
    // Checked before the nonce is spent: a link with a bad option still works once fixed.
    const checked = flowOptions(query, deps.allowedRedirectPatterns);
    if (!checked.ok) return shell(req, res, 400, checked.problem);
    // Link checkers and previews look with HEAD: that must not spend the link.
    if (req.method === 'HEAD') return shell(req, res, 200);
    const nonce = String(req.params.nonce);
    const session = /^[A-Za-z0-9_-]{20,100}$/.test(nonce) ? await openHostedSession(req.em, deps.signer, nonce) : null;
    if (!session) return shell(req, res, 404, 'link_expired');
    // A session opened by a token without the flow's scopes could show the form but never submit it.
    if (missingFlowScopes(checked.options.flow, session.scopes).length) return shell(req, res, 403, 'flow_not_allowed');
    const forward = new URLSearchParams();
    for (const key of ['authorized_invoice_id', 'invoice_id', 'config', 'theme', 'origin']) if (query[key]) forward.set(key, query[key]!);
    const fragment = new URLSearchParams({ token: session.accessToken, account: session.accountId });
    pageHeaders(res, ancestors);
    res.redirect(303, `/ui/${checked.options.flow}?${forward}#${fragment}`);
  });
  router.get(
    FLOWS.map((flow) => `/ui/${flow}`),
    (req, res) => shell(req, res, 200),
  );
  // Who the page's token acts for, so every page with a session names the account it would add a
  // card to or pay from (a link to someone else's account shows their name, not the buyer's).
  router.get('/ui/session', async (req, res) => {
    await deps.authenticate(req, [], []);
    const principal = req.principal;
    if (!principal?.accountId)
      throw new AppError('unauthorized', 'A user password token is required.', {
        codes: ['UNAUTHORIZED'],
        payload: null,
        headers: { 'WWW-Authenticate': 'Bearer realm="holdfast"' },
      });
    const { account_id, username } = await getProfile(req.em, principal, principal.accountId);
    res.set('Cache-Control', 'no-store').json(success({ account_id, username }));
  });
  router.get('/ui/assets/:file', (req, res, next) => {
    const found = ASSETS[String(req.params.file)];
    if (!found) return next();
    res.set({ 'Content-Type': found.type, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=300' }).send(found.body);
  });
  // Loaded by integrators' pages from their own origins.
  router.get('/widget.js', (_req, res) => {
    res
      .set({
        'Content-Type': 'text/javascript; charset=utf-8',
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'public, max-age=300',
        'Cross-Origin-Resource-Policy': 'cross-origin',
      })
      .send(WIDGET);
  });
  return router;
}
