/**
 * The daily settlement report (`GET /v2/reports/settlement`, `holdfast report settlement`): per
 * integrator and currency, one UTC day's gross charges, refunds, disputes opened, won and lost,
 * dispute fees, payouts sent and returned, conversions and the net. Each line is a sum of
 * ledger postings — the references and account kinds `SETTLEMENT_PARTS` names — made that day,
 * summed by the ledger's repository in one aggregate; nothing is counted from any other table.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/sql.js';
import { AppError } from '../errors.js';
import { postingSums } from '../ledger/ledger.repository.js';
import { postingSumSpecs, type SettlementRow, settlementRows, utcDay } from './report.rules.js';

/** The day a report is asked for, as its UTC range, or 400 naming `date`. */
export function reportDay(date: string): { from: string; to: string } {
  const day = utcDay(date);
  if (!day) throw AppError.invalid({ date: ['INVALID_VALUE'] }, 'date must be a day as YYYY-MM-DD (UTC).');
  return day;
}

/** One integrator's settlement for a day: every line of every currency that moved. */
export interface SettlementReport {
  integrator_id: string;
  date: string;
  from: string;
  to: string;
  lines: SettlementRow[];
}

/**
 * The settlement of `date` for one integrator (`integratorId`), or for every integrator that
 * had postings that day (null: the CLI's report of all).
 */
export async function settlementReports(em: EntityManager, date: string, integratorId: string | null): Promise<SettlementReport[]> {
  const day = reportDay(date);
  const sums = await postingSums(db(em), postingSumSpecs(), day.from, day.to, integratorId);
  const integrators = integratorId === null ? [...new Set(sums.map((s) => s.integrator_id))] : [integratorId];
  return integrators.map((id) => ({
    integrator_id: id,
    date,
    ...day,
    lines: settlementRows(
      sums
        .filter((s) => s.integrator_id === id)
        .map((s) => ({ currency: s.currency, line: s.line, amount: Number(s.amount), postings: Number(s.postings) })),
    ),
  }));
}

/** `GET /v2/reports/settlement`: the caller's integrator's settlement of one day (no lines when nothing moved). */
export async function settlementReport(em: EntityManager, integratorId: string, date: string): Promise<SettlementReport> {
  const [report] = await settlementReports(em, date, integratorId);
  return report;
}
