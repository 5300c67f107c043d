/**
 * Debian's Chromium driven by playwright-core (DESIGN §5: never a downloaded browser), and a
 * stand-in integrator site on its own origin that embeds the widget.
 */
import { existsSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean) as string[];

export async function launchChromium(): Promise<Browser> {
  const executablePath = CANDIDATES.find((p) => existsSync(p));
  if (!executablePath) throw new Error("The browser tests need Debian's Chromium: apt-get install chromium (or set CHROMIUM_PATH).");
  // Without the background-networking flags Chromium keeps dialling out, which this closed network refuses.
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * An integrator's shop page on another origin: `/shop?redirect=…&flow=…&config=…&theme=…` loads
 * the widget from `holdfast` and runs `execute`, recording every callback in `window.events`;
 * `/back` is where a top-level flow may send the user.
 */
export async function startShop(holdfast: string): Promise<{ url: string; close: () => Promise<void> }> {
  const page = `<!doctype html><html><body><h1>Shop</h1><div id="pay"></div>
<script src="${holdfast}/widget.js"></script>
<script>
  window.events = [];
  const q = new URLSearchParams(location.search);
  const json = (name) => q.get(name) ? JSON.parse(q.get(name)) : undefined;
  HoldfastWidget.execute({
    rootId: 'pay', flow: q.get('flow') || undefined, redirect: q.get('redirect'), flowConfig: json('config'), theme: json('theme'),
    onComplete: (e) => window.events.push(['complete', e]), onError: (e) => window.events.push(['error', e]),
  });
</script></body></html>`;
  const server: Server = http.createServer((req, res) => {
    if (req.url?.startsWith('/shop')) res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    else if (req.url?.startsWith('/back')) res.writeHead(200, { 'content-type': 'text/html' }).end('<p>back in the app</p>');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
