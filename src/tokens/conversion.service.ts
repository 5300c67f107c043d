/**
 * Token conversion: an account's convertible tokens become USD in its fiat wallet.
 * `POST /v2/token/convert` quotes an exchange (OPEN, valid until `expires_at`);
 * `POST /v2/token/convert/{token_exchange_id}` executes it as a `token.convert` command, in one
 * posting (`exchange:<id>:execute`): the tokens go from the account's convertible wallet back to
 * the integrator's token issuance (burned), and the fiat amount less the fee from the
 * integrator's USD publisher wallet to the account's USD wallet (the fee stays with the
 * integrator). A payout that took an exchange's money and is reversed reverses the exchange
 * (`reverseTokenExchange`, posting `exchange:<id>:reverse`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { holdAccounts } from '../accounts/account.repository.js';
import { accountNotFound, requireAccount } from '../accounts/account-access.service.js';
import { integratorProfile, integratorSettings } from '../integrators/integrator.service.js';
import type { Principal } from '../integrators/principal.js';
import { assertCanTransact } from '../blocks/block.service.js';
import { assertNoOpenDispute } from '../disputes/dispute.service.js';
import { runCommand } from '../commands/command.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import { db as pooled, type Db } from '../db/sql.js';
import { success } from '../envelope.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { kycRequired } from '../kyc/kyc.service.js';
import { findKycCheck } from '../kyc/kyc.repository.js';
import { balancesOf } from '../ledger/ledger.repository.js';
import { lockForPosting, post, systemAccount, type Posting } from '../ledger/ledger.service.js';
import { walletsOfAccounts } from '../payment-methods/payment-method.repository.js';
import type { CommandBus } from '../queues/command-bus.js';
import { insertEvent } from '../webhooks/outbox.repository.js';
import {
  conversionQuote,
  exchangeView,
  FIAT_CURRENCY,
  netAmount,
  type ExchangeRecord,
  type ExchangeStatus,
  type ExchangeView,
} from './conversion.rules.js';
import { findExchange, insertExchange, lockExchangeRow, setExchangePayout, setExchangeStatus } from './conversion.repository.js';
import { quoteRefusalMessage } from './tokens.rules.js';

export interface ConvertInput {
  account_id: string;
  amount: number;
  currency: string;
}

/** The 404 of an exchange that is not the caller's (or not its user token's account's). */
export const exchangeNotFound = () => AppError.notFound('TOKEN_EXCHANGE_GET_ERROR', 'Token exchange not found.');

/** The 400 of tokens the convertible wallet does not hold. */
const insufficientBalance = (needed: number, held: number, currency: string) =>
  AppError.invalid({ amount: ['INSUFFICIENT_BALANCE'] }, `The convertible ${currency} wallet holds ${held}; the exchange needs ${needed}.`);

/** The 409 of an exchange in a status that cannot be executed (payload: the exchange). */
export const stateError = (view: ExchangeView) =>
  new AppError('invalid_state', `The token exchange is ${view.status}: it cannot be executed.`, {
    codes: ['EXCHANGE_STATE_ERROR'],
    payload: view,
  });

/** The 409 of an exchange executed after its `expires_at` (payload: the exchange, EXPIRED). */
export const expiredError = (view: ExchangeView) =>
  new AppError('invalid_state', `The token exchange expired at ${view.expires_at}; quote a new one.`, {
    codes: ['EXCHANGE_EXPIRED'],
    payload: view,
  });

/** The 409 of an exchange the integrator's USD wallet cannot pay (it stays OPEN; payload: the exchange). */
const conversionRejected = (view: ExchangeView) =>
  new AppError('invalid_state', "The integrator's USD wallet cannot cover this exchange; it stays OPEN until it expires.", {
    codes: ['CONVERSION_REJECTED'],
    payload: view,
  });

/** Refuses unless the account's KYC check is ACCEPT (409 `KYC_REQUIRED`). */
async function requireKyc(db: Db, accountId: string): Promise<void> {
  const check = await findKycCheck(db, accountId);
  if (check?.state !== 'ACCEPT') throw kycRequired(check?.state);
}

/** The account's convertible wallet in the token currency and its USD wallet (ledger account ids), as far as it has them. */
async function walletsForExchange(db: Db, accountId: string, tokenCurrency: string) {
  const wallets = await walletsOfAccounts(db, [accountId], false);
  return {
    convertible: wallets.find((w) => w.processing_currency === tokenCurrency && w.wallet_kind === 'convertible')?.id,
    fiat: wallets.find((w) => w.processing_currency === FIAT_CURRENCY && w.wallet_kind === null)?.id,
  };
}

/** The caller's exchange (a user token: only its own account's), or 404. */
async function visibleExchange(em: EntityManager, principal: Principal, exchangeId: string): Promise<ExchangeRecord> {
  const exchange = await findExchange(pooled(em), principal.integratorId, exchangeId);
  if (!exchange || (principal.accountId && principal.accountId !== exchange.accountId)) throw exchangeNotFound();
  return exchange;
}

/**
 * `POST /v2/token/convert`: quotes an exchange of `amount` convertible tokens (201, OPEN). The
 * fiat amount is exact at the integrator's rate; the fee is `ceil(fiat × fee_bps / 10000)`.
 * Nothing moves yet, and nothing is held: execution checks the balance again.
 */
export async function createTokenExchange(
  em: EntityManager,
  principal: Principal,
  input: ConvertInput,
  ttlSeconds: number,
): Promise<ExchangeView> {
  // A user password token acts for its own account only.
  if (principal.accountId && principal.accountId !== input.account_id) throw accountNotFound();
  await requireAccount(em, principal, input.account_id);
  const db = pooled(em);
  const integrator = await integratorProfile(em, principal.integratorId);
  const { conversionFeeBps } = await integratorSettings(db, principal.integratorId);
  const quote = conversionQuote(input.amount, input.currency, integrator, conversionFeeBps);
  if (!quote.ok) {
    throw AppError.invalid(
      { [quote.field]: [quote.code] },
      quote.field === 'currency'
        ? `Only the integrator's token currency${integrator.tokenCurrency ? ` (${integrator.tokenCurrency})` : ''} converts.`
        : quoteRefusalMessage(quote.code, integrator.tokensPerUsd!, integrator.tokenCurrency!),
    );
  }
  await assertCanTransact(db, [input.account_id]);
  await requireKyc(db, input.account_id);
  await assertNoOpenDispute(db, input.account_id);
  const tokenCurrency = integrator.tokenCurrency!;
  const { convertible } = await walletsForExchange(db, input.account_id, tokenCurrency);
  const held = convertible ? ((await balancesOf(db, [convertible]))[0]?.balance ?? 0) : 0;
  if (held < quote.tokens) throw insufficientBalance(quote.tokens, held, tokenCurrency);
  const exchange = await insertExchange(
    db,
    {
      id: newId('tex'),
      integratorId: principal.integratorId,
      accountId: input.account_id,
      tokenAmount: quote.tokens,
      tokenCurrency,
      fiatAmount: quote.fiat,
      fiatCurrency: FIAT_CURRENCY,
      feeAmount: quote.fee,
    },
    ttlSeconds,
  );
  return exchangeView(exchange);
}

/** `GET /v2/token/convert/{token_exchange_id}`: the exchange as it stands. */
export async function getTokenExchange(em: EntityManager, principal: Principal, exchangeId: string): Promise<ExchangeView> {
  return exchangeView(await visibleExchange(em, principal, exchangeId));
}

/**
 * `POST /v2/token/convert/{token_exchange_id}`: executes the exchange as a `token.convert`
 * command (200 EXECUTED, or 202 with `Location` while it runs). Concurrent requests share one
 * command; executing an EXECUTED exchange answers it as it is.
 */
export async function executeTokenExchange(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  exchangeId: string,
  opts: { respondAsync: boolean; syncWaitMs: number },
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const exchange = await visibleExchange(em, principal, exchangeId);
  return runCommand(
    em,
    bus,
    { integratorId: principal.integratorId, kind: 'token.convert', targetId: exchange.id },
    {
      ...opts,
      location: `/v2/token/convert/${exchange.id}`,
      current: async () => success(exchangeView((await findExchange(pooled(em), principal.integratorId, exchange.id)) ?? exchange)),
    },
  );
}

/** The ledger accounts an exchange moves money between: the account's convertible and USD wallets, the integrator's USD wallet and token issuance. */
async function exchangeAccounts(db: Db, exchange: { integratorId: string; accountId: string; tokenCurrency: string }) {
  const { convertible, fiat } = await walletsForExchange(db, exchange.accountId, exchange.tokenCurrency);
  if (!fiat) throw new Error(`account ${exchange.accountId} has no ${FIAT_CURRENCY} wallet`);
  const publisher = await systemAccount(db, exchange.integratorId, 'publisher_wallet', FIAT_CURRENCY);
  const issuance = await systemAccount(db, exchange.integratorId, 'token_issuance', exchange.tokenCurrency);
  return { convertible, fiat, publisher, issuance };
}

/** The exchange's ledger accounts, locked (`lockForPosting`), with their balances. */
async function lockExchangeAccounts(db: Db, exchange: ExchangeRecord) {
  const accounts = await exchangeAccounts(db, exchange);
  const balances = await lockForPosting(db, [accounts.convertible, accounts.fiat, accounts.publisher, accounts.issuance]);
  return { ...accounts, balances };
}

/**
 * The ledger accounts reversing this exchange will lock (none when it has nothing to reverse), so
 * a caller that posts first (a payout's reversal) can lock them all at once, in the one order.
 */
export async function exchangeReversalAccounts(db: Db, exchangeId: string): Promise<string[]> {
  const exchange = await lockExchangeRow(db, exchangeId);
  if (exchange?.status !== 'EXECUTED') return [];
  const { convertible, fiat, publisher, issuance } = await exchangeAccounts(db, exchange);
  return [convertible, fiat, publisher, issuance].filter((a): a is string => !!a);
}

/** An exchange's execution posting (or, `reverse`, its undoing). */
function exchangePosting(
  exchange: ExchangeRecord,
  accounts: { convertible: string; fiat: string; publisher: string; issuance: string },
  phase: 'execute' | 'reverse',
): Posting {
  const sign = phase === 'execute' ? 1 : -1;
  const net = netAmount(exchange);
  const { tokenAmount: tokens, tokenCurrency } = exchange;
  return {
    integratorId: exchange.integratorId,
    reference: `exchange:${exchange.id}:${phase}`,
    description: `token exchange ${exchange.id}: ${tokens} ${tokenCurrency} for ${net} ${FIAT_CURRENCY} cents${phase === 'reverse' ? ' (reversed)' : ''}`,
    entries: [
      { account: accounts.convertible, currency: tokenCurrency, amount: -sign * tokens },
      { account: accounts.issuance, currency: tokenCurrency, amount: sign * tokens },
      // A fee of the whole fiat amount (10000 bps) leaves nothing to move in USD.
      ...(net > 0
        ? [
            { account: accounts.publisher, currency: FIAT_CURRENCY, amount: -sign * net },
            { account: accounts.fiat, currency: FIAT_CURRENCY, amount: sign * net },
          ]
        : []),
    ],
  };
}

/** Executes a locked OPEN exchange in the caller's transaction (the `token.convert` command); the exchange EXECUTED. */
export async function executeExchange(db: Db, exchange: ExchangeRecord): Promise<ExchangeView> {
  await holdAccounts(db, [exchange.accountId]);
  await assertCanTransact(db, [exchange.accountId]);
  await requireKyc(db, exchange.accountId);
  await assertNoOpenDispute(db, exchange.accountId);
  const { convertible, fiat, publisher, issuance, balances } = await lockExchangeAccounts(db, exchange);
  const held = convertible ? (balances.get(convertible) ?? 0) : 0;
  if (!convertible || held < exchange.tokenAmount) throw insufficientBalance(exchange.tokenAmount, held, exchange.tokenCurrency);
  if ((balances.get(publisher) ?? 0) < netAmount(exchange)) throw conversionRejected(exchangeView(exchange));
  const posting = exchangePosting(exchange, { convertible, fiat, publisher, issuance }, 'execute');
  // The reference is the exchange's own, posted once: anything else is a bug.
  if ((await post(db, posting)) !== 1) throw new Error(`token exchange ${exchange.id}: its execution posting exists already`);
  return completed(db, exchange.id, 'EXECUTED');
}

/** Moves an exchange to its new status and emits `token-exchange-completed` with it. */
async function completed(db: Db, exchangeId: string, status: ExchangeStatus): Promise<ExchangeView> {
  const exchange = await setExchangeStatus(db, exchangeId, status);
  const view = exchangeView(exchange);
  await insertEvent(db, exchange.integratorId, 'token-exchange-completed', view);
  return view;
}

/** Ends an OPEN exchange found past its `expires_at` (EXPIRED), in the caller's transaction; the exchange. */
export async function expireExchange(db: Db, exchangeId: string): Promise<ExchangeView> {
  return exchangeView(await setExchangeStatus(db, exchangeId, 'EXPIRED'));
}

/** What a payout needs of an exchange it names, read under its lock. */
export interface LockedExchange {
  id: string;
  integratorId: string;
  accountId: string;
  status: ExchangeStatus;
  fiatAmount: number;
  feeAmount: number;
  payoutId: string | null;
}

/** Locks an exchange (`for update`) in the caller's transaction, for a payout that names it; undefined when there is none. */
export async function lockExchange(db: Db, exchangeId: string): Promise<LockedExchange | undefined> {
  const x = await lockExchangeRow(db, exchangeId);
  return (
    x && {
      id: x.id,
      integratorId: x.integratorId,
      accountId: x.accountId,
      status: x.status,
      fiatAmount: x.fiatAmount,
      feeAmount: x.feeAmount,
      payoutId: x.payoutId,
    }
  );
}

/** Records, in the caller's transaction, the payout that took an exchange's money. */
export function linkExchangeToPayout(db: Db, exchangeId: string, payoutId: string): Promise<void> {
  return setExchangePayout(db, exchangeId, payoutId);
}

/**
 * Undoes an executed exchange in the caller's transaction (a payout that took its money was
 * reversed): one posting (`exchange:<id>:reverse`) moves the fiat amount less the fee from the
 * account's USD wallet back to the integrator's USD wallet and the tokens from token issuance
 * back to the convertible wallet; the exchange becomes REVERSED and `token-exchange-completed`
 * is emitted again. Locks the exchange, then the account's wallets, then the integrator's USD
 * wallet and token issuance (each in id order). A REVERSED exchange is left as it is; any
 * other status but EXECUTED answers 409 `EXCHANGE_STATE_ERROR`, a USD wallet that no longer
 * holds the money 409 `INSUFFICIENT_BALANCE`.
 */
export async function reverseTokenExchange(db: Db, exchangeId: string): Promise<void> {
  const exchange = await lockExchangeRow(db, exchangeId);
  if (!exchange) throw exchangeNotFound();
  if (exchange.status === 'REVERSED') return;
  if (exchange.status !== 'EXECUTED') throw stateError(exchangeView(exchange));
  const { convertible, fiat, publisher, issuance, balances } = await lockExchangeAccounts(db, exchange);
  if (!convertible) throw new Error(`account ${exchange.accountId} has no convertible ${exchange.tokenCurrency} wallet`);
  const net = netAmount(exchange);
  if ((balances.get(fiat) ?? 0) < net) {
    throw new AppError('invalid_state', `The ${FIAT_CURRENCY} wallet no longer holds the ${net} cents this exchange paid.`, {
      codes: ['INSUFFICIENT_BALANCE'],
      payload: exchangeView(exchange),
    });
  }
  const posting = exchangePosting(exchange, { convertible, fiat, publisher, issuance }, 'reverse');
  if ((await post(db, posting)) !== 1) throw new Error(`token exchange ${exchange.id}: its reversal posting exists already`);
  await completed(db, exchange.id, 'REVERSED');
}
