/** `holdfast client …`: OAuth clients — create and list them, revoke one, rotate its secret. */
import { ALL_SCOPES, parseScopeOption } from '../auth/auth.rules.js';
import { createClientReporting, listClients, revokeClient, rotateClientSecret } from '../auth/auth.service.js';
import { findIntegrator } from '../integrators/integrator.service.js';
import { SECRET_ROTATION_GRACE_HOURS, parseGraceHours } from '../auth/credential.rules.js';
import {
  type Command,
  UsageError,
  announce,
  auditOptions,
  auditUsage,
  cliAuditContext,
  notFound,
  onlyArgument,
  print,
  table,
  withOrm,
  stderr,
} from './cli-support.js';

/** A client's scopes in the table: "all" for every scope there is, else the list. */
function scopesCell(scopes: string[]): string {
  return ALL_SCOPES.every((scope) => scopes.includes(scope)) ? 'all' : scopes.join(',') || '-';
}

export const clientCommands: Record<string, Command> = {
  'client create': {
    summary: 'create an OAuth client (prints its credentials once)',
    usage: `holdfast client create --integrator NAME [--operator] [--scopes a,b|all] [--can-unblock] [--tos-signing] [--json]

Creates an OAuth client of integrator NAME (creating the integrator, with no token currency,
when missing: a line on stderr names it) and prints its credentials once: the secret is stored
only as a hash.
  --scopes        comma-separated scopes, or "all" (default: all)
  --operator      the client acts as the service operator (svc)
  --can-unblock   licence to unblock the integrator's own blocks
  --tos-signing   may sign the ToS for accounts
  --json          print {"client_id","client_secret","integrator","scopes"}`,
    options: {
      integrator: { type: 'string' },
      operator: { type: 'boolean' },
      scopes: { type: 'string' },
      'can-unblock': { type: 'boolean' },
      'tos-signing': { type: 'boolean' },
      json: { type: 'boolean' },
    },
    async run(v) {
      const integrator = typeof v.integrator === 'string' ? v.integrator.trim() : '';
      if (!integrator) throw new UsageError('--integrator NAME is required');
      const scopes = parseScopeOption(typeof v.scopes === 'string' ? v.scopes : 'all');
      if (!scopes.ok) throw new UsageError(`unknown scope(s): ${scopes.unknown.join(', ')}`);
      const { client: created, integratorCreated } = await withOrm('write', (orm) =>
        createClientReporting(orm.em.fork(), {
          integrator,
          scopes: scopes.scopes,
          isOperator: v.operator === true,
          canUnblock: v['can-unblock'] === true,
          tosSigning: v['tos-signing'] === true,
        }),
      );
      // A mistyped NAME makes a new integrator (as documented): say so, on stderr so that --json stays one JSON line.
      if (integratorCreated) stderr().write(`holdfast: created integrator "${created.integrator}" (no token currency)\n`);
      print(
        v.json === true,
        created,
        `client_id=${created.client_id}\nclient_secret=${created.client_secret}\nintegrator=${created.integrator}\nscopes=${created.scopes.join(',')}`,
      );
    },
  },
  'client list': {
    summary: 'list the OAuth clients (never a secret)',
    usage: `holdfast client list [--integrator NAME] [--json]

Lists every OAuth client, oldest first, or only those of integrator NAME (a name or id): its
client_id, integrator, scopes ("all" for every scope), whether it acts as the operator, may
unblock and may sign the ToS, when it was made and, if revoked, when. Never a secret: only
their hashes are stored, and those are not shown either. Only reads: a missing or unmigrated
database is an error.
  --json   print {"clients":[{"client_id","integrator_id","integrator","scopes","operator","can_unblock",
           "tos_signing","created_at","revoked_at"}]} (revoked_at null unless revoked)`,
    options: { integrator: { type: 'string' }, json: { type: 'boolean' } },
    async run(v) {
      const name = typeof v.integrator === 'string' ? v.integrator.trim() : undefined;
      if (name === '') throw new UsageError('--integrator needs a NAME');
      const clients = await withOrm({ read: 'client list' }, async (orm) => {
        if (name === undefined) return listClients(orm.em.fork());
        const integrator = await findIntegrator(orm.em.fork(), name);
        if (!integrator) throw notFound('integrator', name);
        return listClients(orm.em.fork(), integrator.id);
      });
      const yes = (flag: boolean) => (flag ? 'yes' : 'no');
      const rows = clients.map((c) => [
        c.client_id,
        c.integrator,
        scopesCell(c.scopes),
        yes(c.operator),
        yes(c.can_unblock),
        yes(c.tos_signing),
        c.created_at,
        c.revoked_at ?? '-',
      ]);
      const header = ['CLIENT ID', 'INTEGRATOR', 'SCOPES', 'OPERATOR', 'CAN-UNBLOCK', 'TOS-SIGNING', 'CREATED', 'REVOKED'];
      print(
        v.json === true,
        { clients },
        rows.length ? table(header, rows) : name === undefined ? 'no clients' : `integrator ${name} has no clients`,
      );
    },
  },
  'client revoke': {
    summary: 'revoke a client and every token it holds or minted',
    usage: `holdfast client revoke ID [--reason TEXT] [--actor NAME] [--json]

Revokes client ID for good: it gets no token any more (client credentials or refresh), its
refresh tokens and session links stop working, and every access token it holds or minted —
client tokens and the user password tokens of its sessions — is refused at once by every web
process. Revoking a revoked client changes nothing. An unknown client is an error (exit 1).
The revocation is recorded in the audit trail.
${auditUsage(false)}
  --json          print {"client_id","revoked_at","already_revoked"}`,
    options: { ...auditOptions, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const id = onlyArgument(positionals, 'client ID');
      const audit = cliAuditContext(v, false);
      const revoked = await withOrm({ read: 'client revoke' }, (orm) => revokeClient(orm.em.fork(), id, audit));
      if (!revoked) throw notFound('client', id);
      await announce({ clients: [id] });
      print(
        v.json === true,
        { client_id: id, revoked_at: revoked.revoked_at, already_revoked: revoked.already },
        revoked.already ? `client ${id} was already revoked (${revoked.revoked_at})` : `revoked client ${id}`,
      );
    },
  },
  'client rotate-secret': {
    summary: 'give a client a new secret (the old one works for a grace period)',
    usage: `holdfast client rotate-secret ID [--grace-hours N] [--reason TEXT] [--actor NAME] [--json]

Gives client ID a new secret and prints it once (stored only as a hash). The old secret keeps
working for a grace period — ${SECRET_ROTATION_GRACE_HOURS} hours by default — so the integrator can deploy the new one,
then stops; rotating again within the grace forgets the first old secret. Tokens already
issued are not affected (holdfast client revoke ends them). A revoked or unknown client is an
error (exit 1). The rotation is recorded in the audit trail (never the secret).
  --grace-hours N   how long the old secret still works: 0 (stops at once) to 168 (default ${SECRET_ROTATION_GRACE_HOURS})
${auditUsage(false)}
  --json            print {"client_id","client_secret"}`,
    options: { 'grace-hours': { type: 'string' }, ...auditOptions, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const id = onlyArgument(positionals, 'client ID');
      const grace = parseGraceHours(typeof v['grace-hours'] === 'string' ? v['grace-hours'] : undefined);
      if (!grace.ok) throw new UsageError('--grace-hours must be a whole number of hours from 0 to 168');
      const audit = cliAuditContext(v, false);
      const rotated = await withOrm({ read: 'client rotate-secret' }, (orm) => rotateClientSecret(orm.em.fork(), id, grace.hours, audit));
      if (!rotated) throw notFound('client', id);
      print(
        v.json === true,
        { client_id: rotated.client_id, client_secret: rotated.client_secret },
        `client_id=${rotated.client_id}\nclient_secret=${rotated.client_secret}\nold secret valid until ${rotated.previous_secret_expires_at}`,
      );
    },
  },
};
