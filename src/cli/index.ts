/** The `holdfast` process: runs its command line (main.ts) and exits with its code. */
import { runCli } from './main.js';

process.exit(await runCli(process.argv.slice(2)));
