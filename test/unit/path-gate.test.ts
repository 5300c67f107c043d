import assert from 'node:assert/strict';
import express from 'express';
import { servingOnly, underAny } from '../../src/http/path-gate.js';

describe('routers behind a path gate', () => {
  it('take a prefix itself and the paths under it, in any case, and nothing that only starts alike', () => {
    assert.ok(underAny('/console', ['/console']));
    assert.ok(underAny('/console/login', ['/console']));
    assert.ok(underAny('/Console/Login', ['/console']), 'Express routes case-insensitively by default');
    assert.ok(underAny('/widget.js', ['/ui', '/widget.js']));
    assert.ok(!underAny('/consoles', ['/console']));
    assert.ok(!underAny('/v1/user-info/x', ['/console', '/ui', '/healthz']));
    assert.ok(!underAny('/', ['/ui']));
  });

  it('run the router for its paths only; other requests never enter it', async () => {
    const entered: string[] = [];
    const router = express.Router();
    router.use((req, _res, next) => {
      entered.push(req.path);
      next();
    });
    router.get('/console/page', (_req, res) => {
      res.send('console');
    });
    const app = express();
    app.use(servingOnly(['/console'], router));
    app.get('/v1/thing', (_req, res) => {
      res.send('api');
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      assert.equal(await (await fetch(`${base}/console/page`)).text(), 'console');
      assert.equal(await (await fetch(`${base}/v1/thing`)).text(), 'api');
      assert.equal((await fetch(`${base}/consoles`)).status, 404);
      assert.deepEqual(entered, ['/console/page']);
    } finally {
      server.close();
    }
  });
});
