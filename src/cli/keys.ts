/** `holdfast keys rotate`: a new token signing key, announced to every web process. */
import { rotateSigningKey } from '../auth/auth.service.js';
import { TOKEN_MEMORY_SECONDS, TOKEN_STATE_RELOAD_MS } from '../auth/credential.rules.js';
import { type Command, announce, print, withOrm } from './cli-support.js';

export const keysCommands: Record<string, Command> = {
  'keys rotate': {
    summary: 'sign new tokens with a new key (old keys verify until their tokens expire)',
    usage: `holdfast keys rotate [--retire-now] [--json]

Makes a new HS256 signing key with its own kid: every web process signs new tokens with it from
now on. Older keys still verify the tokens they signed until those expire (${TOKEN_MEMORY_SECONDS / 60} minutes after
being replaced: the token lifetime and a margin); keys replaced longer ago are deleted.
  --retire-now   for a leaked key: delete every older key at once, so every token they signed is
                 refused by every web process as soon as it hears (within ${TOKEN_STATE_RELOAD_MS / 1000} s at most);
                 holders of those tokens must get new ones
  --json         print {"kid","verifying","dropped"}: the new kid, the older kids still verifying, the deleted ones`,
    options: { 'retire-now': { type: 'boolean' }, json: { type: 'boolean' } },
    async run(v) {
      const retireNow = v['retire-now'] === true;
      const rotated = await withOrm({ read: 'keys rotate' }, (orm) => rotateSigningKey(orm.em.fork(), { retireNow }));
      await announce(retireNow ? { keys: true, retiredKeys: rotated.dropped } : { keys: true });
      const dropped = rotated.dropped.length ? `; ${retireNow ? 'retired at once' : 'deleted'} ${rotated.dropped.join(', ')}` : '';
      print(
        v.json === true,
        rotated,
        `signing with new key ${rotated.kid}${rotated.verifying.length ? `; still verifying ${rotated.verifying.join(', ')}` : ''}${dropped}`,
      );
    },
  },
};
