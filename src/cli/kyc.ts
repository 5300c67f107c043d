/** `holdfast kyc …`: the operator's side of identity checks — decide one, erase its personal data. */
import { DECISIONS, type Decision } from '../kyc/kyc.rules.js';
import { decideKyc, eraseKycData } from '../kyc/kyc.service.js';
import { type Command, UsageError, onlyArgument, orNotFound, print, withOrm } from './cli-support.js';

export const kycCommands: Record<string, Command> = {
  'kyc decide': {
    summary: "decide an account's identity (KYC) check",
    usage: `holdfast kyc decide ACCOUNT_ID --state ACCEPT|DENY|CANCEL [--json]

Decides the identity (KYC) check of account ACCOUNT_ID. In production only a check in
MANUAL_REVIEW can be decided; in staging a check in any state (one is made when the account
has none), so that payouts can be tried without the hosted form. Emits kyc-webhook; DENY and
CANCEL block the account's payouts (unless a payouts block is already active), ACCEPT lifts a
payouts block that a KYC outcome set. Deciding the state the check has changes nothing.
  --json   print {"account_id","kyc_id","state","pii_level","kyc_requirements"}`,
    options: { state: { type: 'string' }, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const accountId = onlyArgument(positionals, 'ACCOUNT_ID');
      const state = typeof v.state === 'string' ? v.state : '';
      if (!(DECISIONS as readonly string[]).includes(state)) {
        throw new UsageError(
          state ? `--state must be one of ${DECISIONS.join(', ')}` : `--state is required: one of ${DECISIONS.join(', ')}`,
        );
      }
      const decided = await orNotFound(
        'account',
        accountId,
        withOrm({ read: 'kyc decide' }, (orm, _applied, environment) =>
          decideKyc(orm.em.fork(), accountId, state as Decision, environment === 'production'),
        ),
      );
      print(v.json === true, { ...decided }, `account ${decided.account_id}: KYC ${decided.state} (pii_level ${decided.pii_level})`);
    },
  },
  'kyc erase': {
    summary: "erase the personal data behind an account's KYC check",
    usage: `holdfast kyc erase ACCOUNT_ID [--json]

Erases the personal data behind the KYC check of account ACCOUNT_ID (a person's request to be
forgotten, with the gdpr block reason): the data is deleted for good; the check keeps its state.
  --json   print {"account_id","erased"}`,
    options: { json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const accountId = onlyArgument(positionals, 'ACCOUNT_ID');
      const erased = await withOrm({ read: 'kyc erase' }, (orm) => eraseKycData(orm.em.fork(), accountId));
      print(
        v.json === true,
        { account_id: accountId, erased },
        erased ? `erased the KYC personal data of account ${accountId}` : `account ${accountId} has no KYC personal data`,
      );
    },
  },
};
