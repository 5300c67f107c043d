/**
 * Assembles the Express app: request context, the providers' webhooks (raw bodies), body parsers,
 * validation compiled from the OpenAPI documents (with the bearer-token check), idempotency, the
 * module routers, 404/405 and the error middleware.
 */
import { consoleRoutes } from '../console/console.routes.js';
import { disputeRoutes, sandboxDisputeRoutes } from '../disputes/dispute.routes.js';
import { reportRoutes } from '../reports/report.routes.js';
import { auditRoutes } from '../audit/audit.routes.js';
import { invoiceDisputes, runSandboxDisputeClock } from '../disputes/dispute.service.js';
import { kycRoutes } from '../kyc/kyc.routes.js';
import { payoutRoutes } from '../payouts/payout.routes.js';
import { providerHookRoutes } from '../provider-events/provider-event.routes.js';
import type { VerifyPaypalWebhook } from '../provider-events/paypal-webhook.js';
import express, { type Express } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { RedisConnection } from '../queues/connection.js';
import type { Config } from '../../config/index.js';
import type { Logger } from '../runtime/logger.js';
import type { TokenSigner } from '../auth/auth.service.js';
import type { CommandBus } from '../queues/command-bus.js';
import { authRoutes } from '../auth/auth.routes.js';
import { userSessionState } from '../sessions/user-session.service.js';
import { accountRoutes } from '../accounts/account.routes.js';
import { accountOwned } from '../accounts/account-access.service.js';
import { accountAliases } from '../accounts/account-aliases.js';
import { tosRoutes } from '../tos/tos.routes.js';
import { paymentMethodRoutes } from '../payment-methods/payment-method.routes.js';
import type { CardProcessor } from '../rails/card-processor.port.js';
import { sandboxCardProcessor } from '../rails/sandbox-card.adapter.js';
import { escrowRoutes } from '../escrow/escrow.routes.js';
import { invoiceRoutes } from '../invoices/invoice.routes.js';
import { refundRoutes } from '../refunds/refund.routes.js';
import { invoiceAuthorizationRoutes } from '../invoice-authorization/invoice-authorization.routes.js';
import { statementRoutes } from '../statements/statement.routes.js';
import { tokenRoutes } from '../tokens/tokens.routes.js';
import { blockRoutes } from '../blocks/block.routes.js';
import { mergeRoutes } from '../merge/merge.routes.js';
import { commandRoutes } from '../commands/command.routes.js';
import { bearerAuthentication } from './auth.js';
import { userTokenCors } from './cors.js';
import { documentRoutes, homePage, referencePage } from './docs.js';
import { errorHandler, useOAuthErrors } from './error-handler.js';
import { healthRoutes } from './health.js';
import { hostileInput } from './hostile-input.js';
import { idempotency } from './idempotency.js';
import { paypalVerifyBudget, rateLimits } from './rate-limit.js';
import { notFoundHandler } from './not-found.js';
import { loadMergedDocument } from './openapi.js';
import { requestContext } from './request-context.js';
import { requestValidation } from './request-validation.js';
import { Queue } from 'bullmq';
import { QueueName } from '../queues/names.js';
import { queueErrors } from '../queues/connection.js';
import { registerScrapeGauges } from '../runtime/metrics.js';
import { outboxLagSeconds, sendDueRetries } from '../webhooks/relay.service.js';
import { webhookRoutes } from '../webhooks/webhook.routes.js';
import { eventRoutes } from '../webhooks/event.routes.js';
import { WebhookBus } from '../queues/webhook-bus.js';
import { DASHBOARD_PATH, operationsRoutes } from './operations-routes.js';
import { servingOnly } from './path-gate.js';
import { webRoutes } from '../web/web.routes.js';
import type { HostedStripe } from '../web/web.rules.js';
import { sandboxRoutes } from '../sandbox/sandbox.routes.js';
import { sandboxClockEnabled } from '../sandbox/sandbox.rules.js';
import { identityVerifierFor } from '../rails/identity-adapters.js';
import type { IdentityVerifier } from '../rails/identity-verifier.port.js';
import { forgetAllClocks } from '../sandbox/sandbox.service.js';
import { tracedPort } from '../runtime/tracing-hooks.js';
import './types.js';

export interface AppDeps {
  config: Pick<Config, 'appEnv' | 'publicUrl' | 'syncWaitMs'> &
    Partial<
      Pick<
        Config,
        | 'queuePrefix'
        | 'adminUser'
        | 'adminPassword'
        | 'metricsToken'
        | 'tokenQueryCredentials'
        | 'webhookAllowPrivateTargets'
        | 'allowedRedirectPatterns'
        | 'userRateLimitPerMinute'
        | 'cardAddsPerHour'
        | 'paypalWebhookVerifyPerMinute'
        | 'paypal'
        | 'frameAncestors'
        | 'tokenExchangeTtlSeconds'
        | 'rails'
        | 'stripeApi'
        | 'providerWebhooks'
      >
    >;
  bus: CommandBus;
  orm: MikroORM;
  redis: RedisConnection;
  signer: TokenSigner;
  logger: Logger;
  /** The staging demo client: serves the demo shop at /ui/demo. */
  demoClientId?: string;
  /** The identity port's adapter; by default the one `config.rails.identity` names (the sandbox when unset). */
  identityVerifier?: IdentityVerifier;
  /** PayPal's verify-webhook-signature for PAYPAL_WEBHOOK_ID (the PayPal client's); unset: no /hooks/paypal. */
  verifyPaypalWebhook?: VerifyPaypalWebhook;
  /** The card processor cards are added through (default: the sandbox). */
  cards?: CardProcessor;
}

const BODY_LIMIT = '1mb';

/** Stripe's browser library for the hosted pages: only when cards are added through the Stripe processor. */
function hostedStripe(cards: CardProcessor | undefined, stripeApi: AppDeps['config']['stripeApi']): HostedStripe | undefined {
  if (cards?.name !== 'stripe' || !stripeApi) return undefined;
  const port =
    (stripeApi.protocol === 'https' && stripeApi.port === 443) || (stripeApi.protocol === 'http' && stripeApi.port === 80)
      ? ''
      : `:${stripeApi.port}`;
  const host = stripeApi.host.includes(':') ? `[${stripeApi.host}]` : stripeApi.host;
  return { jsUrl: stripeApi.jsUrl, apiOrigin: `${stripeApi.protocol}://${host}${port}`, publishableKey: stripeApi.publishableKey };
}

export async function buildApp(deps: AppDeps): Promise<Express> {
  const allowUnsign = deps.config.appEnv === 'staging';
  const doc = await loadMergedDocument(deps.config.publicUrl);
  if (!allowUnsign) delete doc.paths['/user-info/{account_id}/tos/svc'].delete;
  // The test clock is staging's: in production its path is unknown (404), nothing writes it,
  // and clocks a staging run left in the database are put back to real time.
  const sandboxClock = sandboxClockEnabled(deps.config.appEnv);
  if (!sandboxClock) {
    for (const route of Object.keys(doc.paths)) if (route.startsWith('/v2/sandbox/')) delete doc.paths[route];
    const reset = await forgetAllClocks(deps.orm.em.fork());
    if (reset) deps.logger.warn({ clocks: reset }, 'test clocks put back to real time (APP_ENV=production)');
  }

  deps.bus.listen();
  // The one bearer check: the API's operations and the hosted pages' session lookup use it alike.
  const authenticate = bearerAuthentication(deps.signer, (req, principal) => userSessionState(req.em, principal));
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Flat query strings only (node:querystring): no nested objects from `a[b]=c`.
  app.set('query parser', 'simple');
  app.use(requestContext(app, deps.orm, deps.logger));
  app.use(servingOnly(['/healthz', '/readyz'], healthRoutes(deps.orm, deps.redis)));
  // Before every body parser and the validation: the providers sign the raw bytes.
  app.use(
    servingOnly(
      ['/hooks'],
      providerHookRoutes({
        bus: deps.bus,
        stripeWebhookSecret: deps.config.providerWebhooks?.stripeWebhookSecret,
        verifyPaypalWebhook: deps.verifyPaypalWebhook,
        paypalGuard: ((spend) => () => ({ apiBase: deps.config.paypal?.apiBase, spend }))(
          paypalVerifyBudget(deps.redis, deps.config.queuePrefix ?? '{holdfast}', deps.config.paypalWebhookVerifyPerMinute ?? 600),
        ),
      }),
    ),
  );
  const queues = Object.values(QueueName).map((name) => {
    const queue = new Queue(name, { connection: deps.redis, prefix: deps.config.queuePrefix ?? '{holdfast}' });
    queue.on('error', queueErrors(deps.logger, name));
    return queue;
  });
  registerScrapeGauges(queues, () => outboxLagSeconds(deps.orm.em.fork()));
  app.use(
    servingOnly(
      ['/metrics', DASHBOARD_PATH],
      operationsRoutes({
        queues,
        appEnv: deps.config.appEnv,
        adminUser: deps.config.adminUser ?? 'admin',
        adminPassword: deps.config.adminPassword,
        metricsToken: deps.config.metricsToken,
      }),
    ),
  );
  app.use('/openapi', documentRoutes());
  app.use('/docs', referencePage());
  app.get('/', homePage({ demo: Boolean(deps.demoClientId) }));
  app.use(
    servingOnly(
      ['/ui', '/widget.js'],
      webRoutes({
        signer: deps.signer,
        authenticate,
        allowedRedirectPatterns: deps.config.allowedRedirectPatterns ?? [],
        frameAncestors: deps.config.frameAncestors,
        demo: deps.demoClientId ? { clientId: deps.demoClientId, webUrl: deps.config.publicUrl } : undefined,
        stripe: hostedStripe(deps.cards, deps.config.stripeApi),
      }),
    ),
  );
  const webhookBus = new WebhookBus(deps.redis, deps.config.queuePrefix ?? '{holdfast}', deps.logger);
  // The operator console: its own pages, sessions and forms, outside the API's documents.
  app.use(
    servingOnly(
      ['/console'],
      consoleRoutes({
        bus: deps.bus,
        cards: deps.cards ?? sandboxCardProcessor,
        webhooks: webhookBus,
        syncWaitMs: deps.config.syncWaitMs,
        production: deps.config.appEnv === 'production',
        publicUrl: deps.config.publicUrl,
      }),
    ),
  );
  app.use(userTokenCors(doc));
  app.use('/token', useOAuthErrors);
  // Any JSON value, not only objects and arrays: a `null` body is no body (the reference's SDK
  // sends it), and any other value is answered by the validation, naming the body.
  app.use(express.json({ limit: BODY_LIMIT, strict: false, type: ['application/json', 'application/*+json'] }));
  app.use(express.urlencoded({ limit: BODY_LIMIT, extended: false }));
  app.use(hostileInput());
  app.use(accountAliases());
  app.use(requestValidation(doc, authenticate));
  app.use(
    rateLimits(
      deps.redis,
      deps.config.queuePrefix ?? '{holdfast}',
      {
        userRequestsPerMinute: deps.config.userRateLimitPerMinute ?? 300,
        cardAddsPerHour: deps.config.cardAddsPerHour ?? 20,
      },
      { doc, owns: (req, principal, accountId) => accountOwned(req.em, principal, accountId) },
    ),
  );
  app.use(idempotency());
  // Every module adds its routes to one router: a router per module cost each request a walk
  // through every module before its own.
  const api = express.Router();
  authRoutes(api, deps.signer, deps.config.publicUrl, { queryCredentials: deps.config.tokenQueryCredentials ?? true });
  accountRoutes(api);
  blockRoutes(api);
  mergeRoutes(api, deps.bus, deps.config.syncWaitMs);
  commandRoutes(api);
  webhookRoutes(api, deps.config.webhookAllowPrivateTargets ?? deps.config.appEnv === 'staging');
  eventRoutes(api, webhookBus);
  tosRoutes(api, { allowUnsign });
  paymentMethodRoutes(api, deps.cards ?? sandboxCardProcessor);
  escrowRoutes(api, deps.bus, deps.config.syncWaitMs);
  invoiceRoutes(api, {
    bus: deps.bus,
    syncWaitMs: deps.config.syncWaitMs,
    returnUrls: { publicUrl: deps.config.publicUrl, patterns: deps.config.allowedRedirectPatterns ?? [] },
    extras: invoiceDisputes,
  });
  refundRoutes(api, { bus: deps.bus, syncWaitMs: deps.config.syncWaitMs });
  statementRoutes(api);
  invoiceAuthorizationRoutes(api, { signer: deps.signer, webUrl: deps.config.publicUrl });
  tokenRoutes(api, deps.bus, deps.config.syncWaitMs, deps.config.tokenExchangeTtlSeconds);
  kycRoutes(api, {
    verifier:
      deps.identityVerifier ?? tracedPort(identityVerifierFor(deps.config.rails?.identity ?? 'sandbox', deps.config.stripeApi), 'identity'),
    // A provider's hosted verification sends the person back to the hosted KYC page, which shows
    // their check as it stands (the tab keeps its session; see docs/operations.md, Money rails).
    returnUrl: `${deps.config.publicUrl}/ui/kyc`,
  });
  // Before the payouts' `/v2/:account_id/payouts`: `/v2/exports/payouts` is an export.
  reportRoutes(api);
  payoutRoutes(api, { bus: deps.bus, syncWaitMs: deps.config.syncWaitMs, staging: deps.config.appEnv !== 'production' });
  disputeRoutes(api, { cards: deps.cards ?? sandboxCardProcessor });
  auditRoutes(api);
  if (sandboxClock) {
    sandboxRoutes(api, {
      // Retries now due are sent, and the sandbox processor's disputes now due open (or are lost) at once.
      afterAdvance: async (em, integratorId) => {
        await sendDueRetries(em, webhookBus, integratorId);
        await runSandboxDisputeClock(em, deps.bus);
      },
    });
    sandboxDisputeRoutes(api, { bus: deps.bus, syncWaitMs: deps.config.syncWaitMs });
  }
  app.use(api);
  app.use(notFoundHandler(doc));
  app.use(errorHandler);
  return app;
}
