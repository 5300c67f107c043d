/**
 * The provider_event table (plain SQL): storing an event once is an INSERT … ON CONFLICT on
 * (provider, provider_event_id), so concurrent deliveries of one event store one row; its
 * command's runner locks the row (FOR UPDATE) before acting, so two runs never act at once.
 */
import type { Db } from '../db/sql.js';
import { withoutProviderSecrets } from '../rails/provider-secrets.rules.js';
import type { Outcome, Provider, ProviderEventRecord } from './provider-event.rules.js';

const COLUMNS = `id, provider, provider_event_id as "providerEventId", type, payload, received_at as "receivedAt",
  command_id as "commandId", outcome, outcome_reason as "outcomeReason", outcome_at as "outcomeAt"`;

/** The columns without the payload, for lists. */
const SUMMARY_COLUMNS = COLUMNS.replace('payload, ', '');

/** A row as read (timestamps may come back as text) → the record. */
function fromRow<T extends Omit<ProviderEventRecord, 'payload'>>(row: T): T {
  return { ...row, receivedAt: new Date(row.receivedAt), outcomeAt: row.outcomeAt ? new Date(row.outcomeAt) : null };
}

/** A new event to store. */
export interface NewProviderEvent {
  id: string;
  provider: Provider;
  providerEventId: string;
  type: string;
  payload: Record<string, unknown>;
}

/** Stores the event (without its secrets: `withoutProviderSecrets`) unless (provider, provider event id) is stored already; true when this call stored it. */
export async function insertProviderEvent(db: Db, event: NewProviderEvent): Promise<boolean> {
  const rows = await db.execute<Array<{ id: string }>>(
    `insert into provider_event (id, provider, provider_event_id, type, payload) values (?, ?, ?, ?, ?::jsonb)
     on conflict (provider, provider_event_id) do nothing returning id`,
    [event.id, event.provider, event.providerEventId, event.type, JSON.stringify(withoutProviderSecrets(event.payload))],
  );
  return rows.length > 0;
}

/** The stored event of a provider's event id (no payload). */
export async function providerEventByProviderId(
  db: Db,
  provider: Provider,
  providerEventId: string,
): Promise<Omit<ProviderEventRecord, 'payload'> | undefined> {
  const [row] = await db.execute<Array<Omit<ProviderEventRecord, 'payload'>>>(
    `select ${SUMMARY_COLUMNS} from provider_event where provider = ? and provider_event_id = ?`,
    [provider, providerEventId],
  );
  return row && fromRow(row);
}

/** Names the command that acts on the event (its latest, when replayed). */
export async function setProviderEventCommand(db: Db, id: string, commandId: string): Promise<void> {
  await db.execute('update provider_event set command_id = ? where id = ?', [commandId, id]);
}

/** Locks an event for its command's runner; undefined when there is none. */
export async function lockProviderEvent(db: Db, id: string): Promise<ProviderEventRecord | undefined> {
  const [row] = await db.execute<ProviderEventRecord[]>(`select ${COLUMNS} from provider_event where id = ? for update`, [id]);
  return row && fromRow(row);
}

/** Records what the worker made of an event; returns the time recorded. */
export async function recordProviderEventOutcome(db: Db, id: string, outcome: Outcome, reason: string | null): Promise<Date> {
  const [row] = await db.execute<Array<{ at: Date }>>(
    'update provider_event set outcome = ?, outcome_reason = ?, outcome_at = now() where id = ? returning outcome_at as at',
    [outcome, reason, id],
  );
  return new Date(row.at);
}

/** The latest events (of one provider, when named), newest first, `limit` at most (no payloads). */
export async function latestProviderEvents(
  db: Db,
  filter: { provider?: Provider; limit: number },
): Promise<Array<Omit<ProviderEventRecord, 'payload'>>> {
  const rows = await db.execute<Array<Omit<ProviderEventRecord, 'payload'>>>(
    `select ${SUMMARY_COLUMNS} from provider_event where (?::varchar is null or provider = ?) order by received_at desc, id desc limit ?`,
    [filter.provider ?? null, filter.provider ?? null, filter.limit],
  );
  return rows.map(fromRow);
}

/** The events an operator's id names: Holdfast's own id, or a provider's event id (of `provider`, when given). */
export async function providerEventsNamed(db: Db, id: string, provider?: Provider): Promise<Array<Omit<ProviderEventRecord, 'payload'>>> {
  const rows = await db.execute<Array<Omit<ProviderEventRecord, 'payload'>>>(
    `select ${SUMMARY_COLUMNS} from provider_event
      where (id = ? or provider_event_id = ?) and (?::varchar is null or provider = ?) order by received_at`,
    [id, id, provider ?? null, provider ?? null],
  );
  return rows.map(fromRow);
}
