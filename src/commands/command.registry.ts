/**
 * The command kinds and the registry that maps each to its runner. Runners live in their
 * modules (`escrow/escrow.commands.ts`, …); a worker process puts them together at boot with
 * `commandRegistry`, which refuses any kind without exactly one runner.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Reply } from '../envelope.js';

/** Every kind of command Holdfast runs. */
export const COMMAND_KINDS = [
  'escrow.pay',
  'escrow.commit',
  'escrow.cancel',
  'invoice.pay',
  'invoice.confirm',
  'invoice.refund',
  'account.merge',
  'payout.request',
  'payout.execute',
  'payout.settle',
  'payout.reverse',
  'token.convert',
  'provider-event.apply',
  'dispute.open',
  'dispute.close',
  'dispute.notice',
] as const;

export type CommandKind = (typeof COMMAND_KINDS)[number];

/**
 * A command's result is the reply its request gets, stored on the command row. A runner may
 * also name commands it submitted in its transaction (`next`, not stored): the worker enqueues
 * their jobs once it has run (a job lost before that is found by the sweeper).
 */
export type CommandResult = Reply & { next?: Array<{ commandId: string; kind: CommandKind }> };

/**
 * Runs one command to its end and returns its stored result (null: no such command). It throws
 * an AppError for an answer that is a refusal (the pipeline stores it as the command's result)
 * and anything else for a failure worth retrying. Safe to run any number of times.
 */
export type CommandRunner = (em: EntityManager, commandId: string) => Promise<CommandResult | null>;

/** The runners one module provides. */
export type CommandRunners = Partial<Record<CommandKind, CommandRunner>>;

/** Exactly one runner for every kind. */
export type CommandRegistry = Readonly<Record<CommandKind, CommandRunner>>;

export function isCommandKind(kind: string): kind is CommandKind {
  return (COMMAND_KINDS as readonly string[]).includes(kind);
}

/**
 * The registry of the modules' runners (keyed by module name, for the message). Throws, naming
 * every problem, unless each kind has exactly one runner and no runner has an unknown kind.
 */
export function commandRegistry(modules: Record<string, CommandRunners>): CommandRegistry {
  const providers = new Map<string, string[]>();
  for (const [module, runners] of Object.entries(modules)) {
    for (const [kind, runner] of Object.entries(runners)) {
      if (typeof runner !== 'function') continue;
      providers.set(kind, [...(providers.get(kind) ?? []), module]);
    }
  }
  const problems = [
    ...COMMAND_KINDS.filter((kind) => !providers.has(kind)).map((kind) => `no runner for ${kind}`),
    ...[...providers]
      .filter(([, from]) => from.length > 1)
      .map(([kind, from]) => `${kind} has ${from.length} runners (${from.join(', ')})`),
    ...[...providers]
      .filter(([kind]) => !isCommandKind(kind))
      .map(([kind, from]) => `${from.join(', ')} runs ${kind}, which is no command kind`),
  ];
  if (problems.length) throw new Error(`command registry: ${problems.join('; ')}`);
  const registry = {} as Record<CommandKind, CommandRunner>;
  for (const runners of Object.values(modules)) Object.assign(registry, runners);
  return Object.freeze(registry);
}
