/**
 * The `holdfast` command line: operator tasks against the database named by DATABASE_URL (or the
 * PostgreSQL that `npm start` finds). This file only dispatches: it finds the command, prints
 * help, names the closest known word for a mistyped one and turns every failure into one line
 * and an exit code (2 for a usage mistake). The commands are in one file per group beside it;
 * index.ts runs one command line as a process.
 */
import { parseArgs } from 'node:util';
import { ConfigError } from '../../config/index.js';
import { ServiceUnavailableError } from '../db/postgres-failures.js';
import { AppError } from '../errors.js';
import { describeError } from '../runtime/describe-error.js';
import { type Command, LedgerBreach, NotFound, Refused, UsageError, type Values, stderr, stdout } from './cli-support.js';
import { auditCommands } from './audit.js';
import { clientCommands } from './client.js';
import { exportCommands } from './export.js';
import { consoleCommands } from './console.js';
import { integratorCommands } from './integrator.js';
import { keysCommands } from './keys.js';
import { kycCommands } from './kyc.js';
import { ledgerCommands } from './ledger.js';
import { migrateCommands } from './migrate.js';
import { payoutsCommands } from './payouts.js';
import { providerEventsCommands } from './provider-events.js';
import { tosCommands } from './tos.js';
import { webhooksCommands } from './webhooks.js';

/** Every command by its words, in the order `holdfast --help` lists their groups. */
const commands: Record<string, Command> = {
  ...auditCommands,
  ...clientCommands,
  ...exportCommands,
  ...consoleCommands,
  ...integratorCommands,
  ...kycCommands,
  ...keysCommands,
  ...ledgerCommands,
  ...migrateCommands,
  ...payoutsCommands,
  ...providerEventsCommands,
  ...tosCommands,
  ...webhooksCommands,
};

/** The command groups (`holdfast client`, `holdfast ledger`, …) and their commands. */
const groups: Record<string, string[]> = {};
for (const name of Object.keys(commands)) {
  const [group] = name.split(' ');
  if (group === name) continue;
  groups[group] ??= [];
  groups[group].push(name);
}

const firstWord = (name: string) => name.split(' ')[0];
const groupOrder = [...new Set(Object.keys(commands).map(firstWord))];
// Groups in the table's order, each group's commands alphabetically: a new command finds its own line.
const listed = Object.keys(commands).sort(
  (a, b) => groupOrder.indexOf(firstWord(a)) - groupOrder.indexOf(firstWord(b)) || (a < b ? -1 : 1),
);

// The summaries start in one column, two spaces past the longest command.
const width = Math.max(...listed.map((name) => name.length)) + 2;
const overview = `holdfast <command> [options]

Commands:
${listed.map((name) => `  ${name.padEnd(width)}${commands[name].summary}`).join('\n')}

Run "holdfast <command> --help" for a command's options ("holdfast client --help" for a
group's). The database is DATABASE_URL, or the PostgreSQL on 127.0.0.1:5432 (database
holdfast); only client create, integrator create, migrate and tos publish create or migrate it.`;

const HELP = new Set(['--help', '-h', 'help']);

function groupHelp(group: string): string {
  return `holdfast ${group} <command>\n\n${groups[group].map((name) => commands[name].usage).join('\n\n')}`;
}

/** Edit distance between two words (insertions, deletions, substitutions). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const next = [i];
    for (let j = 1; j <= b.length; j += 1) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

/** The known word a mistyped one most likely meant: a near spelling or a word it begins. */
function closest(word: string, known: string[]): string | undefined {
  const scored = known
    .map((candidate) => ({ candidate, d: candidate.startsWith(word) || word.startsWith(candidate) ? 0.5 : distance(word, candidate) }))
    .filter(({ candidate, d }) => d <= Math.max(1, Math.floor(Math.min(word.length, candidate.length) / 3)))
    .sort((x, y) => x.d - y.d);
  return scored[0]?.candidate;
}

function unknownCommand(words: string, known: string[]): UsageError {
  const guess = closest(words, known);
  return new UsageError(`unknown command "${words}"${guess ? `; did you mean "${guess}"?` : ''} (see holdfast --help)`);
}

/** The help text shown instead of running a command; `usage` = shown because the command was incomplete (exit 2). */
class Help extends Error {
  constructor(
    readonly text: string,
    readonly usage: boolean,
  ) {
    super(text);
  }
}

async function main(argv: string[]): Promise<void> {
  if (argv.length === 0) throw new Help(overview, true);
  if (HELP.has(argv[0])) {
    const topic = argv.slice(1).join(' ');
    if (!topic) throw new Help(overview, false);
    if (commands[topic]) throw new Help(commands[topic].usage, false);
    if (groups[topic]) throw new Help(groupHelp(topic), false);
    throw unknownCommand(topic, [...Object.keys(commands), ...Object.keys(groups)]);
  }
  // The longest command its first words name (`console user add` is three words).
  const name = [argv.slice(0, 3).join(' '), argv.slice(0, 2).join(' '), argv[0]].find((n) => n && commands[n]);
  if (!name) {
    const group = groups[argv[0]];
    if (!group) throw unknownCommand(argv[0], [...Object.keys(commands), ...Object.keys(groups)]);
    if (argv.length === 1) throw new Help(groupHelp(argv[0]), true);
    if (HELP.has(argv[1])) throw new Help(groupHelp(argv[0]), false);
    if (argv[1].startsWith('-')) throw new UsageError(`give a command first: ${group.map((n) => `holdfast ${n}`).join(', ')}`);
    throw unknownCommand(argv.slice(0, 2).join(' '), group);
  }
  const command = commands[name];
  const rest = argv.slice(name.split(' ').length);
  if (rest.includes('--help') || rest.includes('-h')) throw new Help(command.usage, false);
  // parseArgs names an unknown option but suggests nothing: look first, with the known names.
  const known = Object.keys(command.options);
  for (const token of parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: false, tokens: true }).tokens ??
    []) {
    if (token.kind !== 'option' || known.includes(token.name)) continue;
    const guess = closest(token.name, [...known, 'help']);
    throw new UsageError(`unknown option ${token.rawName}${guess ? `; did you mean --${guess}?` : ''} (see holdfast ${name} --help)`);
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
  if (!command.positionals && parsed.positionals.length) {
    throw new UsageError(`unexpected argument "${parsed.positionals[0]}"`);
  }
  await command.run(parsed.values as Values, parsed.positionals);
}

/** Runs one command line (the words after `holdfast`) and answers its exit code: 0, 1, or 2 for a usage mistake. */
export async function runCli(argv: string[]): Promise<number> {
  try {
    await main(argv);
    return 0;
  } catch (err) {
    if (err instanceof Help) {
      (err.usage ? stderr() : stdout()).write(`${err.text}\n`);
      return err.usage ? 2 : 0;
    }
    const known =
      err instanceof UsageError ||
      err instanceof ConfigError ||
      err instanceof ServiceUnavailableError ||
      err instanceof AppError ||
      err instanceof LedgerBreach ||
      err instanceof Refused ||
      err instanceof NotFound;
    const described = describeError(err);
    const unknown = described.message ?? `failed (${described.type}${described.code ? ` ${described.code}` : ''})`;
    stderr().write(`holdfast: ${known ? (err as Error).message : unknown}\n`);
    return err instanceof UsageError || err instanceof ConfigError ? 2 : 1;
  }
}
