import assert from 'node:assert/strict';
import type { Job } from 'bullmq';
import { UnrecoverableError } from 'bullmq';
import { COMMAND_KINDS, commandRegistry, type CommandRunner } from '../../src/commands/command.registry.js';
import { AppError, ERROR_STATUS, errorReply, type ErrorKind } from '../../src/errors.js';
import { escrowStateConflict, type EscrowRecord } from '../../src/escrow/escrow.rules.js';
import { railAdapters } from '../../src/rails/rail-adapters.js';
import { commandRunners, commandsProcessor } from '../../workers/commands.processor.js';
import { startWorkers, type WorkerDeps } from '../../workers/index.js';

const run: CommandRunner = async () => null;
const other: CommandRunner = async () => null;
const COMMAND_RUNNERS = commandRunners(railAdapters({ cards: 'sandbox', identity: 'sandbox', payouts: 'sandbox' }));

describe('command registry', () => {
  it('maps every kind to the one runner its module provides', () => {
    const registry = commandRegistry(COMMAND_RUNNERS);
    assert.deepEqual(Object.keys(registry).sort(), [...COMMAND_KINDS].sort());
    assert.equal(registry['invoice.pay'], COMMAND_RUNNERS.invoices['invoice.pay']);
  });

  it('refuses a kind without a runner, a kind with two, and a runner of no known kind, naming each', () => {
    assert.throws(
      () =>
        commandRegistry({
          escrow: { 'escrow.pay': run, 'escrow.commit': run, 'escrow.cancel': run },
          merge: { 'account.merge': run, 'escrow.pay': other },
          invoices: { 'invoice.refund': run, 'invoice.confirm': run },
          payouts: { 'payout.request': run, 'payout.execute': run, 'payout.settle': run, 'payout.reverse': run },
          tokens: { 'token.convert': run },
          refunds: { ['refund.run' as never]: run },
        }),
      {
        message:
          'command registry: no runner for invoice.pay; no runner for provider-event.apply; no runner for dispute.open; no runner for dispute.close; no runner for dispute.notice; escrow.pay has 2 runners (escrow, merge); refunds runs refund.run, which is no command kind',
      },
    );
  });

  it('stops the worker process before it connects to anything when a kind has no runner', async () => {
    const { invoices: _left, ...withoutInvoices } = COMMAND_RUNNERS;
    const deps = { commandRunners: withoutInvoices, redisUrl: 'redis://127.0.0.1:1', queuePrefix: 'never' } as unknown as WorkerDeps;
    await assert.rejects(startWorkers(deps), { message: 'command registry: no runner for invoice.pay; no runner for invoice.confirm' });
  });

  it('fails a job of an unknown kind for good (no retry can help)', async () => {
    const processor = commandsProcessor(undefined as never, undefined as never, commandRegistry(COMMAND_RUNNERS));
    await assert.rejects(processor({ data: { commandId: 'cmd_x', kind: 'escrow.refund' } } as Job), UnrecoverableError);
  });
});

describe('errorReply (the one status map)', () => {
  it('answers each AppError kind with its status and the envelope', () => {
    const table: Array<[ErrorKind, number]> = [
      ['invalid_input', 400],
      ['unauthorized', 401],
      ['declined', 402],
      ['forbidden', 403],
      ['not_found', 404],
      ['method_not_allowed', 405],
      ['conflict', 409],
      ['invalid_state', 409],
      ['payload_too_large', 413],
      ['unsupported_media_type', 415],
      ['idempotency_key_reused', 422],
      ['rate_limited', 429],
      ['unavailable', 503],
    ];
    assert.deepEqual(Object.keys(ERROR_STATUS).sort(), table.map(([kind]) => kind).sort());
    for (const [kind, status] of table) {
      assert.deepEqual(errorReply(new AppError(kind, 'Why.', { codes: ['CODE'] })), {
        status,
        body: { status: 'Failure', message: ['Why.'], codes: ['CODE'], payload: null },
      });
    }
    assert.deepEqual(errorReply(AppError.invalid({ name: ['REQUIRED'] })).body, {
      status: 'Failure',
      message: ['The request is invalid.'],
      codes: ['INPUT_ERROR'],
      payload: { errors: { name: ['REQUIRED'] } },
    });
    assert.deepEqual(errorReply(new AppError('conflict', 'Taken.', { bare: true, payload: { field: 'username' } })).body, {
      status: 'Failure',
      message: [],
      codes: [],
      payload: { field: 'username' },
    });
  });

  it('answers anything else with a 500 that carries the request id and nothing internal', () => {
    assert.deepEqual(errorReply(new Error('select * from secret'), 'req_1'), {
      status: 500,
      body: { status: 'Failure', message: ['Internal server error.'], codes: ['INTERNAL_ERROR'], payload: { request_id: 'req_1' } },
    });
  });

  it('makes an escrow state conflict the 409 clients get: ESCROW_STATE_ERROR with the escrow', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    const escrow: EscrowRecord = {
      id: 'esc_1',
      integratorId: 'int_1',
      accountId: 'acct_1',
      status: 'COMMITTED',
      currency: 'USD',
      totalAmount: 5,
      escrowInvoiceId: 'inv_1',
      commitInvoiceId: 'inv_2',
      cancelInvoiceId: null,
      metadata: {},
      createdAt: at,
      updatedAt: at,
    };
    assert.deepEqual(errorReply(escrowStateConflict(escrow, 'cancel', 'acme')), {
      status: 409,
      body: {
        status: 'Failure',
        message: ['The escrow is COMMITTED; cancel is not allowed.'],
        codes: ['ESCROW_STATE_ERROR'],
        payload: {
          id: 'esc_1',
          account_id: 'acct_1',
          escrow_invoice_id: 'inv_1',
          commit_invoice_id: 'inv_2',
          cancel_invoice_id: '',
          status: 'COMMITTED',
          integrator: 'acme',
          metadata: {},
          created: '2026-01-02T03:04:05.000Z',
          updated: '2026-01-02T03:04:05.000Z',
        },
      },
    });
  });
});
