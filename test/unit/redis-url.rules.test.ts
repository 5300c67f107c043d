import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config/index.js';
import { describeRedisUrl, parseRedisUrl, RedisUrlError } from '../../src/queues/redis-url.rules.js';

describe('REDIS_URL forms (redis-url.rules)', () => {
  it('one server: redis:// and rediss:// are passed to ioredis as they are', () => {
    assert.deepEqual(parseRedisUrl('redis://127.0.0.1:6379'), { kind: 'single', url: 'redis://127.0.0.1:6379' });
    assert.deepEqual(parseRedisUrl('rediss://:s3cret@cache.example:6380/2'), {
      kind: 'single',
      url: 'rediss://:s3cret@cache.example:6380/2',
    });
  });

  it('a Sentinel set: sentinels, master name, db, passwords', () => {
    assert.deepEqual(parseRedisUrl('redis+sentinel://10.0.0.1:26379,10.0.0.2:26380,sentinel-3/mymaster'), {
      kind: 'sentinel',
      sentinels: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
        { host: 'sentinel-3', port: 26379 },
      ],
      name: 'mymaster',
      db: 0,
    });
    assert.deepEqual(parseRedisUrl('redis+sentinel://app:p%40ss@[::1]:5000/main?db=3&sentinel_password=s%26p'), {
      kind: 'sentinel',
      sentinels: [{ host: '::1', port: 5000 }],
      name: 'main',
      db: 3,
      username: 'app',
      password: 'p@ss',
      sentinelPassword: 's&p',
    });
    assert.deepEqual(parseRedisUrl('redis+sentinel://:pw@h:1/m'), {
      kind: 'sentinel',
      sentinels: [{ host: 'h', port: 1 }],
      name: 'm',
      db: 0,
      password: 'pw',
    });
  });

  it('a Cluster: seed nodes, optional password', () => {
    assert.deepEqual(parseRedisUrl('redis+cluster://127.0.0.1:7000,127.0.0.1:7001,node-c'), {
      kind: 'cluster',
      nodes: [
        { host: '127.0.0.1', port: 7000 },
        { host: '127.0.0.1', port: 7001 },
        { host: 'node-c', port: 6379 },
      ],
    });
    assert.deepEqual(parseRedisUrl('REDIS+CLUSTER://:pw@a:1/'), { kind: 'cluster', nodes: [{ host: 'a', port: 1 }], password: 'pw' });
  });

  const bad: Array<[string, RegExp]> = [
    ['http://x', /must start with redis:\/\/, rediss:\/\/, redis\+sentinel/],
    ['not a url', /must start with/],
    ['redis+sentinel://h1:1,h2:2', /must end with \/<master name>/],
    ['redis+sentinel://h1:1/', /must end with \/<master name>/],
    ['redis+sentinel:///mymaster', /at least one host:port/],
    ['redis+sentinel://h1:1,,h2:2/m', /bad host:port \(entry 2/],
    ['redis+sentinel://h1:99999/m', /bad host:port \(entry 1/],
    ['redis+sentinel://h1:x/m', /bad host:port/],
    ['redis+sentinel://h1:1/m?db=two', /db must be a whole number/],
    ['redis+sentinel://h1:1/m?timeout=3', /does not take "timeout" \(only db, sentinel_password\)/],
    ['redis+sentinel://h1:1/a/b', /must end with \/<master name>/],
    ['redis+cluster://', /at least one host:port/],
    ['redis+cluster://h:1/3', /takes no path/],
    ['redis+cluster://h:1?db=1', /does not take "db" \(no parameters\)/],
    ['redis+cluster://:%zz@h:1', /badly escaped password/],
  ];
  for (const [value, message] of bad) {
    it(`refuses ${value}, naming REDIS_URL`, () => {
      assert.throws(
        () => parseRedisUrl(value),
        (err: Error) => err instanceof RedisUrlError && err.message.startsWith('REDIS_URL') && message.test(err.message),
      );
      assert.throws(
        () => loadConfig({ REDIS_URL: value }),
        (err: Error) => err instanceof ConfigError && err.message.startsWith('REDIS_URL'),
      );
    });
  }

  it('never repeats a password in its message', () => {
    for (const value of [
      'redis+cluster://:hunter2secret@h:1/5',
      'redis+sentinel://:hunter2secret,h:1/m',
      'redis+sentinel://:hunter2secret@h:1',
    ]) {
      assert.throws(
        () => parseRedisUrl(value),
        (err: Error) => err instanceof RedisUrlError && !err.message.includes('hunter2secret'),
      );
    }
  });

  it("describes the URL for the start banner with no password: neither the data servers' nor the sentinels'", () => {
    const cases: Array<[string, string]> = [
      ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
      ['redis://:hunter2secret@h:6379/2', 'redis://***@h:6379/2'],
      ['rediss://app:hunter2secret@h:6380', 'rediss://***@h:6380'],
      ['redis://:hunter2@secret@h:6379', 'redis://***@h:6379'],
      ['redis://h:6379?password=hunter2secret&db=1', 'redis://h:6379?password=***&db=1'],
      [
        'redis+sentinel://app:hunter2secret@s1:26379,s2:26379/mymaster?db=1&sentinel_password=hunter2secret',
        'redis+sentinel://***@s1:26379,s2:26379/mymaster?db=1&sentinel_password=***',
      ],
      ['redis+sentinel://s1,s2/m?sentinel_password=hunter2secret', 'redis+sentinel://s1,s2/m?sentinel_password=***'],
      ['redis+cluster://:hunter2secret@a:1,b:2', 'redis+cluster://***@a:1,b:2'],
      // A password pasted unescaped (`#`, `?`, `/` in it): the URL points nowhere, and the
      // banner that says Redis is unreachable must still not show it.
      ['redis://:hunter2#secret@h:6379', 'redis://***@h:6379'],
      ['redis://:hunter2?secret@h:6379', 'redis://***@h:6379'],
      ['redis://:hunter2/secret@h:6379', 'redis://***@h:6379'],
      ['redis://h:6379?password=hunter2#secret', 'redis://h:6379?password=***'],
      ['redis+sentinel://s1/m?sentinel_password=hunter2@secret', 'redis+sentinel://s1/m?sentinel_password=***'],
    ];
    for (const [url] of cases) assert.ok(!describeRedisUrl(url).includes('secret'), url);
    for (const [url, shown] of cases) assert.equal(describeRedisUrl(url), shown);
  });

  it('on a cluster, QUEUE_PREFIX must hold a hash tag (every key of a queue in one slot)', () => {
    assert.equal(loadConfig({ REDIS_URL: 'redis+cluster://a:1' }).queuePrefix, '{holdfast}');
    assert.equal(loadConfig({ REDIS_URL: 'redis+cluster://a:1', QUEUE_PREFIX: 'app:{q}' }).queuePrefix, 'app:{q}');
    assert.equal(loadConfig({ REDIS_URL: 'redis://a:1', QUEUE_PREFIX: 'plain' }).queuePrefix, 'plain');
    assert.throws(
      () => loadConfig({ REDIS_URL: 'redis+cluster://a:1', QUEUE_PREFIX: 'plain' }),
      (err: Error) => err instanceof ConfigError && err.message.startsWith('QUEUE_PREFIX must hold a hash tag'),
    );
  });

  it('the config takes every form and keeps the URL as given', () => {
    for (const value of ['redis://127.0.0.1:6379', 'redis+sentinel://a:1,b:2/mymaster?db=1', 'redis+cluster://a:1,b:2']) {
      assert.equal(loadConfig({ REDIS_URL: value }).redisUrl, value);
    }
  });
});
