/** Decodes a Stripe form body (`application/x-www-form-urlencoded` with bracket notation) into nested params. */
export function parseStripeForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const head = rawKey.match(/^[^[]+/)?.[0];
    if (!head) continue;
    const path = [head, ...Array.from(rawKey.slice(head.length).matchAll(/\[([^\]]*)\]/g), (m) => m[1])];
    let node: Record<string, unknown> = root;
    path.forEach((segment, i) => {
      // `key[]=a&key[]=b` appends, as Stripe reads it.
      const name = segment === '' ? String(Object.keys(node).length) : segment;
      if (i === path.length - 1) {
        node[name] = value;
        return;
      }
      if (typeof node[name] !== 'object' || node[name] === null) node[name] = {};
      node = node[name] as Record<string, unknown>;
    });
  }
  return arrays(root) as Record<string, unknown>;
}

// An object whose keys are exactly 0..n-1 was an array (`expand[0]=…&expand[1]=…`).
function arrays(node: unknown): unknown {
  if (typeof node !== 'object' || node === null) return node;
  const entries = Object.entries(node as Record<string, unknown>).map(([k, v]) => [k, arrays(v)] as const);
  const isList = entries.length > 0 && entries.every(([k], i) => k === String(i));
  return isList ? entries.map(([, v]) => v) : Object.fromEntries(entries);
}
