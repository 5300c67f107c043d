/**
 * The tokens module's command runner: a token exchange's execution (`token.convert`), in the one
 * command transaction. It locks the exchange: an EXECUTED one answers as it is; one past
 * `expires_at` becomes EXPIRED (409 `EXCHANGE_EXPIRED`, recorded: the refusal is the exchange's
 * end, not a failure to roll back). Otherwise `executeExchange` holds the account (a merge or
 * block waits), checks its blocks and KYC again, locks its ledger accounts in the one order,
 * checks both balances and posts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { inCommandTransaction } from '../commands/command.service.js';
import type { CommandResult, CommandRunners } from '../commands/command.registry.js';
import { success } from '../envelope.js';
import { errorReply } from '../errors.js';
import { executeDecision, exchangeView } from './conversion.rules.js';
import { lockExchangeRow } from './conversion.repository.js';
import { executeExchange, exchangeNotFound, expiredError, expireExchange, stateError } from './conversion.service.js';

/** The `token.convert` runner. */
export function runConvertCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const exchange = await lockExchangeRow(db, command.target_id);
    if (!exchange) throw exchangeNotFound();
    switch (executeDecision(exchange.status, exchange.expired)) {
      case 'answer':
        return { status: 200, body: success(exchangeView(exchange)) };
      case 'expired':
        return errorReply(expiredError(exchangeView(exchange)));
      case 'refuse':
        return errorReply(stateError(exchangeView(exchange)));
      case 'expire':
        return errorReply(expiredError(await expireExchange(db, exchange.id)));
      case 'execute':
        return { status: 200, body: success(await executeExchange(db, exchange)) };
    }
  });
}

export const tokenCommands: CommandRunners = {
  'token.convert': runConvertCommand,
};
