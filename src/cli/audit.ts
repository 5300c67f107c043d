/** `holdfast audit …`: the audit trail of operator actions — prove its chains whole, list its records. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { listAudit, UNSEALED_GRACE_SECONDS, verifyAudit } from '../audit/audit.service.js';
import { findIntegrator } from '../integrators/integrator.service.js';
import { type Command, LedgerBreach, UsageError, notFound, table, withOrm, stdout } from './cli-support.js';

/** A time option: ISO 8601, or undefined when not given; a usage mistake when unreadable. */
function timeOption(value: unknown, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(String(value));
  if (Number.isNaN(at.getTime())) throw new UsageError(`--${name} must be a time (ISO 8601, e.g. 2026-11-28T00:00:00Z)`);
  return at;
}

/** `--integrator NAME` (a name or id) as the integrator's id; undefined when not given. */
async function integratorOption(em: EntityManager, value: unknown): Promise<string | undefined> {
  const name = typeof value === 'string' ? value.trim() : '';
  if (!name) return undefined;
  const integrator = await findIntegrator(em, name);
  if (!integrator) throw notFound('integrator', name);
  return integrator.id;
}

/** A whole-number option within bounds, or its default. */
function countOption(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = /^\d{1,9}$/.test(String(value)) ? Number(value) : Number.NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
}

export const auditCommands: Record<string, Command> = {
  'audit verify': {
    summary: "prove the audit trail whole: every integrator's sealed chain",
    usage: `holdfast audit verify [--integrator NAME] [--json]

Recomputes every integrator's audit chain (or only NAME's, a name or id) from its first sealed record: each record must carry
the next sequence number, the hash of the record before it and the SHA-256 of its own content,
and the last must be the chain's head — so a sealed record edited, removed or re-sealed (which
the database refuses unless its triggers are bypassed) breaks the chain. Names the first break of
each chain and exits 1 when there is one. Also reports records left unsealed for more than
${UNSEALED_GRACE_SECONDS} seconds (the sealing worker, a maintenance job, is not running): a warning, exit 0.
Only reads: a missing or unmigrated database is an error.
  --json   print {"ok","integrators","sealed","breaks":[{"integrator_id","seq","audit_id","problem"}],"unsealed":{"count","oldest"}}`,
    options: { integrator: { type: 'string' }, json: { type: 'boolean' } },
    async run(v) {
      const report = await withOrm({ read: 'audit verify' }, async (orm) =>
        verifyAudit(orm.em.fork(), { integratorId: await integratorOption(orm.em.fork(), v.integrator) }),
      );
      const ok = report.breaks.length === 0;
      if (v.json === true) {
        stdout().write(
          `${JSON.stringify({
            ok,
            integrators: report.integrators,
            sealed: report.sealed,
            breaks: report.breaks.map((b) => ({ integrator_id: b.integratorId, seq: b.seq, audit_id: b.auditId, problem: b.problem })),
            unsealed: report.unsealed,
          })}\n`,
        );
      } else {
        const summary = `${report.sealed} sealed record${report.sealed === 1 ? '' : 's'} of ${report.integrators} integrator${report.integrators === 1 ? '' : 's'}`;
        const lines = ok
          ? [`audit trail ok: ${summary}`]
          : [
              `audit trail BROKEN (${summary}):`,
              ...report.breaks.map(
                (b) => `  - integrator ${b.integratorId}, seq ${b.seq}${b.auditId ? ` (${b.auditId})` : ''}: ${b.problem}`,
              ),
            ];
        if (report.unsealed.count)
          lines.push(
            `warning: ${report.unsealed.count} record${report.unsealed.count === 1 ? '' : 's'} unsealed for over ${UNSEALED_GRACE_SECONDS} s (oldest ${report.unsealed.oldest}): is the workers' maintenance queue running?`,
          );
        stdout().write(`${lines.join('\n')}\n`);
      }
      if (!ok) throw new LedgerBreach(`the audit trail breaks in ${report.breaks.length} chain${report.breaks.length === 1 ? '' : 's'}`);
    },
  },
  'audit list': {
    summary: 'list audit records (operator actions), newest first',
    usage: `holdfast audit list [--integrator NAME] [--action ACTION] [--target ID] [--actor NAME] [--from TIME] [--to TIME]
                    [--limit N] [--offset N] [--json]

Lists audit records, newest first: when, who (actor kind:name), what (action, target), why, and
whether sealed (its sequence number). The filters are those of GET /v2/audit; without
--integrator every integrator's records are listed. Only reads.
  --integrator NAME   one integrator's (a name or id)
  --action ACTION     one action (payout.approve, kyc.decide, block.apply, …)
  --target ID         one target (a payout, account, invoice, dispute, client, event… id)
  --actor NAME        one actor (its id or name: an OS user, a client id)
  --from TIME         at or after TIME (ISO 8601)
  --to TIME           before TIME (ISO 8601)
  --limit N           at most N records (1 to 1000, default 50)
  --offset N          skip the first N (default 0)
  --json              print {"records":[…],"limit","offset","total"} (each record as GET /v2/audit shows it)`,
    options: {
      integrator: { type: 'string' },
      action: { type: 'string' },
      target: { type: 'string' },
      actor: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      limit: { type: 'string' },
      offset: { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(v) {
      const from = timeOption(v.from, 'from');
      const to = timeOption(v.to, 'to');
      const page = { limit: countOption(v.limit, 'limit', 50, 1, 1000), offset: countOption(v.offset, 'offset', 0, 0, 1e9) };
      const text = (name: string) => (typeof v[name] === 'string' && (v[name] as string).trim() ? (v[name] as string).trim() : undefined);
      const listed = await withOrm({ read: 'audit list' }, async (orm) => {
        const integratorId = await integratorOption(orm.em.fork(), v.integrator);
        return listAudit(
          orm.em.fork(),
          { integratorId, action: text('action'), targetId: text('target'), actor: text('actor'), from, to },
          page,
        );
      });
      if (v.json === true) {
        stdout().write(`${JSON.stringify(listed)}\n`);
        return;
      }
      const rows = listed.records.map((r) => [
        r.at,
        r.seq === null ? '-' : String(r.seq),
        `${r.actor.kind}:${r.actor.name}`,
        r.action,
        `${r.target.type} ${r.target.id}`,
        r.reason ?? '-',
      ]);
      stdout().write(
        `${table(['at', 'seq', 'actor', 'action', 'target', 'reason'], rows)}\n${listed.records.length} of ${listed.total} record${listed.total === 1 ? '' : 's'}\n`,
      );
    },
  },
};
