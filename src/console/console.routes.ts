/**
 * The operator console at `/console`: server-rendered pages for an integrator's people (roles
 * viewer, support, finance, admin; docs/console.md). Sessions ride an HttpOnly, SameSite=Strict
 * cookie (Secure in production); every form carries a CSRF token (the session's, or before
 * sign-in a cookie's twin) and must come from this origin. Each action goes through the same
 * services as the API and the CLI, checked against the role matrix first.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { CommandBus } from '../queues/command-bus.js';
import { CAPABILITIES, type Capability, REASONS, type Reason } from '../accounts/account-block.rules.js';
import { blockAccount, unblockCapability } from '../blocks/block.service.js';
import { EVIDENCE_FIELDS } from '../disputes/dispute.rules.js';
import { submitEvidence } from '../disputes/dispute.service.js';
import type { CardProcessor } from '../rails/card-processor.port.js';
import { REFUND_REASONS, type RefundRequest } from '../refunds/refund.rules.js';
import { requestRefund } from '../refunds/refund.service.js';
import { resendEvent } from '../webhooks/event.service.js';
import type { DeliveryQueue } from '../webhooks/relay.service.js';
import type { AuditContext } from '../audit/audit.rules.js';
import { AppError, errorReply } from '../errors.js';
import { DECISIONS, type Decision } from '../kyc/kyc.rules.js';
import { decidePayout } from '../payouts/payout.service.js';
import { openExport } from '../reports/export.service.js';
import { sendExport } from '../reports/export-stream.js';
import { describeError } from '../runtime/describe-error.js';
import { sameOriginPost } from '../web/web.rules.js';
import {
  addConsoleUser,
  beginTotp,
  confirmTotp,
  consolePrincipal,
  consoleUsers,
  csrfMatches,
  logIn,
  logOut,
  sessionOf,
  setPasswordWithLink,
  userOfSetupLink,
} from './console-auth.service.js';
import type { ConsoleSessionRecord } from './console.repository.js';
import {
  CONSOLE_ROLES,
  type ConsoleAction,
  type ConsoleRole,
  type ExportForm,
  exportFormQuery,
  mayExport,
  reasonProblem,
  refusal,
  validEmail,
} from './console.rules.js';
import { exportsPage } from './console-exports.views.js';
import { usersPage } from './console-users.views.js';
import {
  accountOverview,
  auditTrail,
  decideKycInConsole,
  disputeList,
  integratorNameOf,
  disputeOf,
  invoiceWithRefunds,
  kycQueue,
  payoutQueue,
  searchAccounts,
  webhooksOverview,
} from './console.service.js';
import { CONSOLE_CSS, loginPage, messagePage, type PageUser, setPasswordPage } from './console.pages.js';
import {
  accountPage,
  auditPage,
  disputePage,
  disputesPage,
  invoicePage,
  kycQueuePage,
  payoutQueuePage,
  searchPage,
  securityPage,
  webhooksPage,
} from './console.views.js';

export interface ConsoleDeps {
  bus: CommandBus;
  /** The card processor (a Stripe dispute's evidence goes to Stripe first). */
  cards: CardProcessor;
  /** Where a resent event's deliveries go. */
  webhooks: DeliveryQueue;
  syncWaitMs: number;
  production: boolean;
  publicUrl: string;
}

const SESSION_COOKIE = 'hf_console';
const LOGIN_CSRF_COOKIE = 'hf_console_csrf';

/** The value of one cookie of the request (no parser library: the console reads two). */
function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

function setCookie(res: Response, production: boolean, name: string, value: string, maxAgeSeconds?: number): void {
  const parts = [`${name}=${value}`, 'Path=/console', 'HttpOnly', 'SameSite=Strict'];
  if (production) parts.push('Secure');
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  res.append('Set-Cookie', parts.join('; '));
}

/** The console's pages run no script, load only its stylesheet, post only here and are never framed or cached. */
function consoleHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set({
    'Content-Security-Policy':
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
  next();
}

interface Signed {
  session: ConsoleSessionRecord;
  who: PageUser;
}

const sameString = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function consoleRoutes(deps: ConsoleDeps): Router {
  const router = express.Router();
  router.use('/console', consoleHeaders);
  router.use('/console', express.urlencoded({ limit: '64kb', extended: false }));

  router.get('/console/console.css', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').type('text/css').send(CONSOLE_CSS);
  });

  /** Forms before sign-in: a double-submit token (cookie and field) and this origin. */
  function loginCsrf(res: Response): string {
    const value = randomBytes(24).toString('base64url');
    setCookie(res, deps.production, LOGIN_CSRF_COOKIE, value);
    return value;
  }
  function fromHere(req: Request): boolean {
    return sameOriginPost({
      secFetchSite: req.get('sec-fetch-site'),
      origin: req.get('origin'),
      host: req.get('host'),
      publicOrigin: new URL(deps.publicUrl).origin,
    });
  }
  function preSessionFormOk(req: Request): boolean {
    const sent = (req.body as Record<string, unknown> | undefined)?.csrf;
    const kept = cookie(req, LOGIN_CSRF_COOKIE);
    return fromHere(req) && typeof sent === 'string' && kept !== undefined && sameString(sent, kept);
  }
  const withCsrf = (body: string, token: string) => body.replace('</form>', `<input type="hidden" name="csrf" value="${token}"></form>`);

  router.get('/console/login', (_req, res) => {
    res.type('html').send(withCsrf(loginPage({}), loginCsrf(res)));
  });

  router.post('/console/login', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    if (!preSessionFormOk(req)) {
      res
        .status(403)
        .type('html')
        .send(withCsrf(loginPage({ error: 'The form expired: sign in again.', email }), loginCsrf(res)));
      return;
    }
    const password = typeof body.password === 'string' ? body.password : '';
    const code = typeof body.code === 'string' ? body.code : undefined;
    const outcome = email && password ? await logIn(req.em, email, password, code) : ({ ok: false, why: 'invalid' } as const);
    if (outcome.ok) {
      setCookie(res, deps.production, SESSION_COOKIE, outcome.sessionToken);
      res.redirect(303, '/console');
      return;
    }
    const error = {
      invalid: 'Wrong email or password.',
      locked: 'Too many failed sign-ins: this user is locked for 15 minutes.',
      totp_required: 'Enter the code from your authenticator app.',
      totp_invalid: 'Wrong authenticator code.',
    }[outcome.why];
    const totp = outcome.why === 'totp_required' || outcome.why === 'totp_invalid';
    res
      .status(outcome.why === 'locked' ? 429 : 401)
      .type('html')
      .send(withCsrf(loginPage({ error, email, totp }), loginCsrf(res)));
  });

  router.get('/console/set-password/:token', async (req, res) => {
    const user = await userOfSetupLink(req.em, String(req.params.token));
    if (!user) {
      res
        .status(404)
        .type('html')
        .send(messagePage('Link expired', 'This link was used already or has expired: ask an admin for a new one.'));
      return;
    }
    res.type('html').send(withCsrf(setPasswordPage({ email: user.email }), loginCsrf(res)));
  });

  router.post('/console/set-password/:token', async (req, res) => {
    const token = String(req.params.token);
    const user = await userOfSetupLink(req.em, token);
    if (!user) {
      res
        .status(404)
        .type('html')
        .send(messagePage('Link expired', 'This link was used already or has expired: ask an admin for a new one.'));
      return;
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const password = typeof body.password === 'string' ? body.password : '';
    const again = (error: string, status: number) =>
      res
        .status(status)
        .type('html')
        .send(withCsrf(setPasswordPage({ email: user.email, error }), loginCsrf(res)));
    if (!preSessionFormOk(req)) return void again('The form expired: try again.', 403);
    if (password !== body.confirm) return void again('The two passwords differ.', 400);
    const done = await setPasswordWithLink(req.em, token, password);
    if (done === 'expired') return void again('This link was used already or has expired.', 404);
    if (done !== 'done') return void again(`The password must be ${done}.`, 400);
    res.type('html').send(messagePage('Password set', 'Your password is set: sign in with it.').replace('/console"', '/console/login"'));
  });

  // Every other console page needs a session; every form post, its CSRF token and this origin.
  const signedIn = async (req: Request, res: Response, next: NextFunction) => {
    const session = await sessionOf(req.em, cookie(req, SESSION_COOKIE));
    if (!session) {
      if (req.method === 'GET') res.redirect(303, '/console/login');
      else res.status(401).type('html').send(messagePage('Signed out', 'Your session ended: sign in again.'));
      return;
    }
    if (req.method === 'POST' && (!fromHere(req) || !csrfMatches(session, (req.body as Record<string, unknown> | undefined)?.csrf))) {
      res
        .status(403)
        .type('html')
        .send(messagePage('Refused', 'The form expired or did not come from the console: reload the page and try again.'));
      return;
    }
    const who: PageUser = {
      user: session.user,
      integratorName: await integratorNameOf(req.em, session.user.integratorId),
      csrfToken: session.csrfToken,
    };
    res.locals.signed = { session, who } satisfies Signed;
    next();
  };
  const signed = (res: Response) => res.locals.signed as Signed;
  const principal = (res: Response) => consolePrincipal(signed(res).session.user);

  /** Runs a page's work; a service's refusal becomes a page with its message (404 for another integrator's object). */
  const handle =
    (work: (req: Request, res: Response) => Promise<void>) =>
    async (req: Request, res: Response): Promise<void> => {
      try {
        await work(req, res);
      } catch (err) {
        const reply = errorReply(err, req.id);
        const messages = (reply.body as { message?: string[] }).message ?? [];
        const text = reply.status >= 500 ? `Something went wrong (request ${req.id}).` : messages.join(' ') || 'Refused.';
        if (reply.status >= 500) req.log.error({ err }, 'console page failed');
        res
          .status(reply.status)
          .type('html')
          .send(messagePage(reply.status === 404 ? 'Not found' : 'Refused', text, signed(res)?.who));
      }
    };

  /** The role matrix's verdict on an action, or a 403 page. */
  function allowed(res: Response, action: ConsoleAction): boolean {
    const why = refusal(signed(res).session.user, action);
    if (!why) return true;
    const text =
      why === 'role'
        ? `Your role (${signed(res).session.user.role}) cannot take this action.`
        : 'Only a console user with the operator’s rights can take this decision.';
    res
      .status(403)
      .type('html')
      .send(messagePage('Not allowed', text, signed(res).who));
    return false;
  }

  /** Who decides (the console user) and why, for the audit record written with the change. */
  const auditOf = (req: Request, res: Response, reason: string): AuditContext => ({
    actor: { kind: 'console', id: signed(res).session.user.id, name: signed(res).session.user.email },
    reason,
    requestId: req.id,
  });

  /** The decision's reason from the form, or a 400 page. */
  function reasonOf(req: Request, res: Response): string | undefined {
    const reason = String((req.body as Record<string, unknown>).reason ?? '');
    const problem = reasonProblem(reason);
    if (!problem) return reason.trim();
    res
      .status(400)
      .type('html')
      .send(messagePage('Reason needed', `The reason: ${problem}.`, signed(res).who));
    return undefined;
  }

  /**
   * A decision's handler: the role matrix first (403), then the form's reason (400), then `work`
   * with the audit context of the console user and that reason. `action` may depend on the path.
   */
  const decision = (
    action: ConsoleAction | ((req: Request) => ConsoleAction),
    work: (req: Request, res: Response, audit: AuditContext) => Promise<void>,
  ) =>
    handle(async (req, res) => {
      if (!allowed(res, typeof action === 'function' ? action(req) : action)) return;
      const reason = reasonOf(req, res);
      if (reason === undefined) return;
      await work(req, res, auditOf(req, res, reason));
    });

  router.post('/console/logout', signedIn, async (req, res) => {
    await logOut(req.em, cookie(req, SESSION_COOKIE)!);
    setCookie(res, deps.production, SESSION_COOKIE, '', 0);
    res.redirect(303, '/console/login');
  });

  router.get(
    '/console',
    signedIn,
    handle(async (req, res) => {
      const q = typeof req.query.q === 'string' ? req.query.q : '';
      const found = q ? await searchAccounts(req.em, principal(res), q) : undefined;
      res.type('html').send(searchPage(signed(res).who, q, found));
    }),
  );

  router.get(
    '/console/accounts/:account_id',
    signedIn,
    handle(async (req, res) => {
      const overview = await accountOverview(req.em, principal(res), String(req.params.account_id));
      res.type('html').send(accountPage(signed(res).who, overview, noticeOf(req)));
    }),
  );

  router.get(
    '/console/payouts',
    signedIn,
    handle(async (req, res) => {
      res.type('html').send(payoutQueuePage(signed(res).who, await payoutQueue(req.em, principal(res)), noticeOf(req)));
    }),
  );

  router.post(
    '/console/payouts/:payout_id/:action',
    signedIn,
    decision(
      (req) => (req.params.action === 'approve' ? 'payout.approve' : 'payout.reject'),
      async (req, res, audit) => {
        const action = String(req.params.action);
        if (action !== 'approve' && action !== 'reject') throw AppError.notFound('NOT_FOUND', 'No such page.');
        const payoutId = String(req.params.payout_id);
        const result = await decidePayout(
          req.em,
          deps.bus,
          principal(res),
          payoutId,
          action,
          { respondAsync: false, syncWaitMs: deps.syncWaitMs },
          audit,
        );
        if (result.status >= 300 && result.status !== 202) throw refusedBy(result);
        const payout = (result.body as { payload?: { payout_status?: string } }).payload;
        res.redirect(303, `/console/payouts?done=${encodeURIComponent(`${payoutId}: ${payout?.payout_status ?? 'submitted'}`)}`);
      },
    ),
  );

  router.get(
    '/console/kyc',
    signedIn,
    handle(async (req, res) => {
      res.type('html').send(kycQueuePage(signed(res).who, await kycQueue(req.em, principal(res)), noticeOf(req)));
    }),
  );

  router.post(
    '/console/kyc/:account_id/decide',
    signedIn,
    decision('kyc.decide', async (req, res, audit) => {
      const state = String((req.body as Record<string, unknown>).state ?? '');
      if (!(DECISIONS as readonly string[]).includes(state))
        throw AppError.invalid({ state: ['INVALID_DECISION'] }, 'Choose ACCEPT, DENY or CANCEL.');
      const accountId = String(req.params.account_id);
      const decided = await decideKycInConsole(req.em, principal(res), accountId, state as Decision, deps.production, audit);
      res.redirect(303, `/console/kyc?done=${encodeURIComponent(`${accountId}: KYC ${decided.state}`)}`);
    }),
  );

  router.get(
    '/console/disputes',
    signedIn,
    handle(async (req, res) => {
      res.type('html').send(disputesPage(signed(res).who, await disputeList(req.em, principal(res))));
    }),
  );

  router.post(
    '/console/accounts/:account_id/block',
    signedIn,
    decision('block.apply', async (req, res, audit) => {
      const body = req.body as Record<string, unknown>;
      const capability = String(body.block_capability ?? '');
      const reason = String(body.block_reason ?? '');
      const fields: Record<string, string[]> = {};
      if (!(CAPABILITIES as readonly string[]).includes(capability)) fields.block_capability = ['INVALID_CAPABILITY'];
      if (!(REASONS as readonly string[]).includes(reason)) fields.block_reason = ['INVALID_REASON'];
      if (Object.keys(fields).length) throw AppError.invalid(fields, 'Choose a capability and a block reason from the lists.');
      const accountId = String(req.params.account_id);
      await blockAccount(
        req.em,
        principal(res),
        { account_id: accountId, block_capability: capability as Capability, block_reason: reason as Reason },
        audit,
      );
      res.redirect(303, `/console/accounts/${encodeURIComponent(accountId)}?done=${encodeURIComponent(`${capability}: blocked`)}`);
    }),
  );

  router.post(
    '/console/accounts/:account_id/unblock/:capability',
    signedIn,
    decision('block.lift', async (req, res, audit) => {
      const capability = String(req.params.capability);
      if (!(CAPABILITIES as readonly string[]).includes(capability)) throw AppError.notFound('NOT_FOUND', 'No such capability.');
      const accountId = String(req.params.account_id);
      await unblockCapability(req.em, principal(res), accountId, capability as Capability, audit);
      res.redirect(303, `/console/accounts/${encodeURIComponent(accountId)}?done=${encodeURIComponent(`${capability}: lifted`)}`);
    }),
  );

  router.get(
    '/console/invoices/:invoice_id',
    signedIn,
    handle(async (req, res) => {
      res
        .type('html')
        .send(invoicePage(signed(res).who, await invoiceWithRefunds(req.em, principal(res), String(req.params.invoice_id)), noticeOf(req)));
    }),
  );

  router.post(
    '/console/invoices/:invoice_id/refund',
    signedIn,
    decision('refund.request', async (req, res, audit) => {
      const reason = String((req.body as Record<string, unknown>).refund_reason ?? '');
      if (!(REFUND_REASONS as readonly string[]).includes(reason))
        throw AppError.invalid({ refund_reason: ['INVALID_REASON'] }, 'Choose a refund reason.');
      const invoiceId = String(req.params.invoice_id);
      const result = await requestRefund(
        req.em,
        deps.bus,
        principal(res),
        { invoice_id: invoiceId, reason: reason as RefundRequest['reason'], note: audit.reason ?? undefined },
        { respondAsync: false, syncWaitMs: deps.syncWaitMs },
        audit,
      );
      if (result.status >= 300 && result.status !== 202) throw refusedBy(result);
      res.redirect(
        303,
        `/console/invoices/${encodeURIComponent(invoiceId)}?done=${encodeURIComponent(`${invoiceId}: refund ${result.status === 202 ? 'PROCESSING' : 'done'}`)}`,
      );
    }),
  );

  router.get(
    '/console/disputes/:dispute_id',
    signedIn,
    handle(async (req, res) => {
      res
        .type('html')
        .send(disputePage(signed(res).who, await disputeOf(req.em, principal(res), String(req.params.dispute_id)), noticeOf(req)));
    }),
  );

  router.post(
    '/console/disputes/:dispute_id/evidence',
    signedIn,
    decision('dispute.evidence', async (req, res, audit) => {
      const body = req.body as Record<string, unknown>;
      const evidence: Record<string, string> = {};
      for (const f of EVIDENCE_FIELDS) if (typeof body[f] === 'string') evidence[f] = body[f] as string;
      const disputeId = String(req.params.dispute_id);
      const view = await submitEvidence(
        req.em,
        principal(res),
        disputeId,
        { ...evidence, submit: body.submit === 'true' },
        deps.cards,
        audit,
      );
      res.redirect(303, `/console/disputes/${encodeURIComponent(disputeId)}?done=${encodeURIComponent(`${disputeId}: ${view.status}`)}`);
    }),
  );

  router.get(
    '/console/webhooks',
    signedIn,
    handle(async (req, res) => {
      res.type('html').send(webhooksPage(signed(res).who, await webhooksOverview(req.em, principal(res)), noticeOf(req)));
    }),
  );

  router.post(
    '/console/events/:event_id/resend',
    signedIn,
    decision('webhook.resend', async (req, res, audit) => {
      const eventId = String(req.params.event_id);
      await resendEvent(req.em, deps.webhooks, principal(res), eventId, undefined, audit);
      res.redirect(303, `/console/webhooks?done=${encodeURIComponent(`${eventId}: resent`)}`);
    }),
  );

  router.get(
    '/console/audit',
    signedIn,
    handle(async (req, res) => {
      const q = (name: string) => (typeof req.query[name] === 'string' && req.query[name] ? String(req.query[name]) : undefined);
      const filter = { action: q('action'), targetId: q('target_id'), actor: q('actor') };
      res.type('html').send(auditPage(signed(res).who, filter, await auditTrail(req.em, principal(res), filter)));
    }),
  );

  router.get(
    '/console/exports',
    signedIn,
    handle(async (req, res) => {
      const who = signed(res).who;
      const form: ExportForm = {};
      for (const name of ['kind', 'format', 'from', 'to', 'account_id'] as const)
        if (typeof req.query[name] === 'string') form[name] = String(req.query[name]);
      // No kind asked for yet: the form.
      if (form.kind === undefined) return void res.type('html').send(exportsPage(who));
      const again = (status: number, problems: Record<string, string>) =>
        res
          .status(status)
          .type('html')
          .send(exportsPage(who, form, problems));
      const asked = exportFormQuery(form);
      if (!asked.ok) return void again(400, asked.fields);
      if (!mayExport(who.user.role, asked.kind)) return void again(403, { kind: `your role (${who.user.role}) cannot download these` });
      let stream: Awaited<ReturnType<typeof openExport>>;
      try {
        stream = await openExport(req.em, principal(res), asked.kind, asked.query);
      } catch (err) {
        // Another integrator's account reads as none, as everywhere.
        if (err instanceof AppError && err.kind === 'not_found') return void again(404, { account_id: 'no such account' });
        throw err;
      }
      await sendExport(stream, res, (err) =>
        req.log.error({ err: describeError(err), kind: stream.kind }, 'console export failed mid-stream; connection cut'),
      );
    }),
  );

  router.get(
    '/console/security',
    signedIn,
    handle(async (_req, res) => {
      res.type('html').send(securityPage(signed(res).who, undefined));
    }),
  );

  router.post(
    '/console/security/totp',
    signedIn,
    handle(async (req, res) => {
      const code = String((req.body as Record<string, unknown>).code ?? '');
      const user = signed(res).session.user;
      if (!code) {
        res.type('html').send(securityPage(signed(res).who, await beginTotp(req.em, user)));
        return;
      }
      const ok = await confirmTotp(req.em, user, code);
      res
        .status(ok ? 200 : 400)
        .type('html')
        .send(
          ok
            ? messagePage('Second factor on', 'Sign-ins now ask for a code from your authenticator app.', signed(res).who)
            : messagePage('Wrong code', 'That code did not match: start again.', signed(res).who),
        );
    }),
  );

  router.get(
    '/console/users',
    signedIn,
    handle(async (req, res) => {
      if (!allowed(res, 'console.user.add')) return;
      const { who } = signed(res);
      res.type('html').send(usersPage(who, await consoleUsers(req.em, who.user.integratorId)));
    }),
  );

  router.post(
    '/console/users',
    signedIn,
    decision('console.user.add', async (req, res, audit) => {
      const { who } = signed(res);
      const body = req.body as Record<string, unknown>;
      const email = String(body.email ?? '').trim();
      const role = String(body.role ?? '');
      const operator = body.operator === 'yes';
      const again = async (status: number, error: string) =>
        void res
          .status(status)
          .type('html')
          .send(usersPage(who, await consoleUsers(req.em, who.user.integratorId), { error }));
      // No one gives rights they lack: only an operator adds an operator.
      if (operator && !who.user.operator) return again(403, 'Only a console user with the operator’s rights can add one.');
      if (!validEmail(email)) return again(400, 'The email: not an email address.');
      if (!(CONSOLE_ROLES as readonly string[]).includes(role)) return again(400, `The role: one of ${CONSOLE_ROLES.join(', ')}.`);
      try {
        const made = await addConsoleUser(
          req.em,
          { email, integrator: who.user.integratorId, role: role as ConsoleRole, operator, publicUrl: deps.publicUrl },
          audit,
        );
        res
          .status(201)
          .type('html')
          .send(
            usersPage(who, await consoleUsers(req.em, who.user.integratorId), {
              added: { email: made.user.email, link: made.link, expires: made.expires },
            }),
          );
      } catch (err) {
        if (err instanceof AppError && err.kind === 'conflict') return again(409, `A console user with the email ${email} exists already.`);
        throw err;
      }
    }),
  );

  return router;
}

/** A page's notice of what the action before it did (`?done=`: text this console wrote, shown escaped). */
function noticeOf(req: Request): string | undefined {
  const done = req.query.done;
  // Only what this console's redirects write: an id, a colon, a state (no free text to show a stranger's words).
  return typeof done === 'string' && /^[A-Za-z0-9_]{1,40}: [A-Za-z0-9 _-]{1,40}$/.test(done) ? done : undefined;
}

/** A command's refusal as the error a page shows. */
function refusedBy(result: { status: number; body: unknown }): AppError {
  const body = result.body as { message?: string[] } | null;
  const text = body?.message?.join(' ') || `Refused (${result.status}).`;
  return new AppError(result.status === 404 ? 'not_found' : result.status === 409 ? 'conflict' : 'invalid_state', text, { codes: [] });
}
