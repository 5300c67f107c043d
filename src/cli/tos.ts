/** `holdfast tos publish`: a new terms-of-service version. */
import { readFileSync } from 'node:fs';
import { publishTos } from '../tos/tos.service.js';
import { type Command, UsageError, print, withOrm } from './cli-support.js';

export const tosCommands: Record<string, Command> = {
  'tos publish': {
    summary: 'publish a new terms-of-service version',
    usage: `holdfast tos publish --file F [--json]

Publishes the text of file F as a new ToS version. Every account then reads signed_tos: false
until it signs again.`,
    options: { file: { type: 'string' }, json: { type: 'boolean' } },
    async run(v) {
      if (typeof v.file !== 'string') throw new UsageError('--file F is required');
      let content: string;
      try {
        content = readFileSync(v.file, 'utf8');
      } catch {
        throw new UsageError(`cannot read ${v.file}`);
      }
      const tos = await withOrm('write', (orm) => publishTos(orm.em.fork(), content));
      print(v.json === true, tos, `published ToS version ${tos.tos_version}`);
    },
  },
};
