/** `holdfast client …`: OAuth clients — create one, revoke one, rotate its secret. */
import { parseScopeOption } from '../auth/auth.rules.js';
import { createClient, revokeClient, rotateClientSecret } from '../auth/auth.service.js';
import { SECRET_ROTATION_GRACE_HOURS, parseGraceHours } from '../auth/credential.rules.js';
import { type Command, NotFound, UsageError, announce, onlyArgument, print, withOrm } from './cli-support.js';

const noClient = (id: string) => new NotFound(`no client "${id}" (the client_id that holdfast client create printed)`);

export const clientCommands: Record<string, Command> = {
  'client create': {
    summary: 'create an OAuth client (prints its credentials once)',
    usage: `holdfast client create --integrator NAME [--operator] [--scopes a,b|all] [--can-unblock] [--tos-signing] [--json]

Creates an OAuth client of integrator NAME (creating the integrator, with no token currency,
when missing) and prints its credentials once: the secret is stored only as a hash.
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
      const created = await withOrm('write', (orm) =>
        createClient(orm.em.fork(), {
          integrator,
          scopes: scopes.scopes,
          isOperator: v.operator === true,
          canUnblock: v['can-unblock'] === true,
          tosSigning: v['tos-signing'] === true,
        }),
      );
      print(
        v.json === true,
        created,
        `client_id=${created.client_id}\nclient_secret=${created.client_secret}\nintegrator=${created.integrator}\nscopes=${created.scopes.join(',')}`,
      );
    },
  },
  'client revoke': {
    summary: 'revoke a client and every token it holds or minted',
    usage: `holdfast client revoke ID [--json]

Revokes client ID for good: it gets no token any more (client credentials or refresh), its
refresh tokens and session links stop working, and every access token it holds or minted —
client tokens and the user password tokens of its sessions — is refused at once by every web
process. Revoking a revoked client changes nothing. An unknown client is an error (exit 1).
  --json   print {"client_id","revoked_at","already_revoked"}`,
    options: { json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const id = onlyArgument(positionals, 'client ID');
      const revoked = await withOrm({ read: 'client revoke' }, (orm) => revokeClient(orm.em.fork(), id));
      if (!revoked) throw noClient(id);
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
    usage: `holdfast client rotate-secret ID [--grace-hours N] [--json]

Gives client ID a new secret and prints it once (stored only as a hash). The old secret keeps
working for a grace period — ${SECRET_ROTATION_GRACE_HOURS} hours by default — so the integrator can deploy the new one,
then stops; rotating again within the grace forgets the first old secret. Tokens already
issued are not affected (holdfast client revoke ends them). A revoked or unknown client is an
error (exit 1).
  --grace-hours N   how long the old secret still works: 0 (stops at once) to 168 (default ${SECRET_ROTATION_GRACE_HOURS})
  --json            print {"client_id","client_secret"}`,
    options: { 'grace-hours': { type: 'string' }, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const id = onlyArgument(positionals, 'client ID');
      const grace = parseGraceHours(typeof v['grace-hours'] === 'string' ? v['grace-hours'] : undefined);
      if (!grace.ok) throw new UsageError('--grace-hours must be a whole number of hours from 0 to 168');
      const rotated = await withOrm({ read: 'client rotate-secret' }, (orm) => rotateClientSecret(orm.em.fork(), id, grace.hours));
      if (!rotated) throw noClient(id);
      print(
        v.json === true,
        { client_id: rotated.client_id, client_secret: rotated.client_secret },
        `client_id=${rotated.client_id}\nclient_secret=${rotated.client_secret}\nold secret valid until ${rotated.previous_secret_expires_at}`,
      );
    },
  },
};
