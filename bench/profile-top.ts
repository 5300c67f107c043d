/**
 * `node --import tsx bench/profile-top.ts FILE.cpuprofile [N]`: what a V8 CPU profile (from
 * `BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR"` on a bench) spent its busy time on — self
 * time by owner (Holdfast's own files by folder, each npm package, Node's internals, the garbage
 * collector) and the N functions with the most self time. Idle time is left out of the shares.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Who a frame's time belongs to: `src/accounts`, `pkg express`, `node internals`, `(garbage collector)`… */
export function ownerOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `pkg ${pkg[1]}`;
  if (url.startsWith('node:')) return 'node internals';
  const own = /\/((?:src|workers|config|bench)(?:\/[^/]+)?)\/[^/]+$/.exec(url);
  if (own) return own[1];
  return url;
}

function main(): void {
  const [file, top = '25'] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node --import tsx bench/profile-top.ts FILE.cpuprofile [N]');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    busy += us;
    const owner = ownerOf(url, functionName);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
    const name = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*?(node_modules\/|\/src\/|\/workers\/)/, '$1')}:${lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const share = (us: number) => `${((us / busy) * 100).toFixed(1).padStart(5)}%`;
  console.log(`busy ${(busy / 1000).toFixed(0)} ms (idle and "(program)" left out)\n\nself time by owner`);
  for (const [owner, us] of [...owners].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${share(us)}  ${owner}`);
  console.log(`\nthe ${top} functions with the most self time`);
  for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) console.log(`${share(us)}  ${name}`);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) main();
