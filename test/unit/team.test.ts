import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { hostName, NetworkPolicy } from '../../electron/transport/network';
import { jsonDepthOver, parseJsonBody } from '../../electron/transport/request';
import { hideServerPaths, uploadPath } from '../../electron/transport/uploads';
import { roleMayCall } from '../../shared/api/access';
import { auditSummary } from '../../electron/services/team/audit';
import { checkPaths } from '../../electron/services/team/reach';
import { LoginLimiter } from '../../electron/services/team/auth';
import { connectionUrl, redactStoreUrl, scrubSecrets } from '../../electron/services/team/store-url';

describe('the shared store address', () => {
  it('keeps no password, whether in the URL or its query', () => {
    expect(redactStoreUrl('postgres://ann:s3cret@db.example:5432/awb')).toBe('postgres://ann@db.example:5432/awb');
    expect(redactStoreUrl('postgresql://ann@db/awb?password=s3cret&sslmode=require')).toBe('postgresql://ann@db/awb?sslmode=require');
    expect(() => redactStoreUrl('mysql://x@y/z')).toThrow(/must start with postgres:\/\//);
    expect(scrubSecrets('connect to postgres://ann:s3cret@db:5432/awb failed')).toBe('connect to postgres://ann:***@db:5432/awb failed');
  });

  it('connects with the URL given now, then the environment, then the kept one; none is an error that says what to do', () => {
    expect(connectionUrl('postgres://a@now/x', 'postgres://a@kept/x', {})).toBe('postgres://a@now/x');
    expect(connectionUrl(undefined, 'postgres://a@kept/x', { AWB_POSTGRES_URL: 'postgres://a@env/x' })).toBe('postgres://a@env/x');
    expect(connectionUrl(undefined, 'postgres://a@kept/x', {})).toBe('postgres://a@kept/x');
    // What to do comes as a hint, which the CLI words as `awb team init --postgres URL`.
    expect(() => connectionUrl(undefined, undefined, {})).toThrow(expect.objectContaining({ message: expect.stringMatching(/No shared store is set up/), hint: { kind: 'operation', operation: 'sync:configure' } }));
  });
});

describe('access rules', () => {
  it('opens an operation nobody listed to maintainers only', () => {
    expect(roleMayCall('maintainer', 'something:new')).toBe(true);
    expect(roleMayCall('annotator', 'something:new')).toBe(false);
    expect(roleMayCall('viewer', 'instance:list')).toBe(true);
    expect(roleMayCall('viewer', 'judging:decide')).toBe(false);
    expect(roleMayCall('annotator', 'judging:decide')).toBe(true);
  });

  it('refuses server paths at any depth, but not an uploaded file given to an import', () => {
    expect(() => checkPaths('dataset:export', { path: '/tmp/x.jsonl' }, '/srv/uploads')).toThrow(/names a file on the server/);
    expect(() => checkPaths('judging:item', { session: { pack: '/a/b.awbpack' }, position: 0 }, '/srv/uploads')).toThrow(/session\.pack/);
    expect(() => checkPaths('dataset:import', { path: '/srv/uploads/1a2b/data.json' }, '/srv/uploads')).not.toThrow();
    expect(() => checkPaths('dataset:import', { path: '/srv/uploads/../etc/passwd' }, '/srv/uploads')).toThrow();
    expect(() => checkPaths('dataset:export', { path: '/srv/uploads/1a2b/out.jsonl' }, '/srv/uploads')).toThrow();
    expect(() => checkPaths('instance:list', { query: 'path' }, '/srv/uploads')).not.toThrow();
  });

  it('keeps secrets out of the audit trail and cuts paths to the file name', () => {
    expect(auditSummary({ name: 'ann', password: 'hunter2hunter2', path: '/home/maria/secret/plan.csv', nested: { token: 'awb_1_x' } })).toEqual({
      name: 'ann',
      password: '[hidden]',
      path: 'plan.csv',
      nested: { token: '[hidden]' },
    });
  });
});

describe('the sign-in limiter', () => {
  it('holds an account back after five failures in the window, and lets it go when the window has passed', () => {
    let now = 0;
    const limiter = new LoginLimiter(5, 20, 60_000, () => now);
    for (let i = 0; i < 5; i++) {
      expect(limiter.retryAfter('Ann', '10.0.0.1')).toBe(0);
      limiter.fail('ann', '10.0.0.1');
    }
    expect(limiter.retryAfter('ann', '10.0.0.2')).toBe(60);
    now = 30_000;
    expect(limiter.retryAfter('ann', '10.0.0.2')).toBe(30);
    now = 60_001;
    expect(limiter.retryAfter('ann', '10.0.0.2')).toBe(0);
  });
});

describe('the limiter under concurrency', () => {
  it('counts an attempt when it is let in, so that attempts at once cannot all pass; a success is taken back', () => {
    const limiter = new LoginLimiter(5, 20, 60_000, () => 0);
    const admitted = Array.from({ length: 8 }, () => limiter.admit('ann', '10.0.0.1'));
    expect(admitted.filter((a) => 'wait' in a)).toHaveLength(3);
    const first = admitted[0]!;
    if ('wait' in first) throw new Error('the first attempt is let in');
    limiter.succeed('ann', first);
    // The account starts afresh; the address keeps the four failures, not the success.
    expect(limiter.retryAfter('ann', '10.0.0.1')).toBe(0);
    for (let i = 0; i < 16; i++) expect('wait' in limiter.admit(`other-${i}`, '10.0.0.1')).toBe(false);
    expect(limiter.admit('someone', '10.0.0.1')).toEqual({ wait: 60 });
  });

  it('limits wrong tokens per address, and takes a right one back', () => {
    const limiter = new LoginLimiter(5, 3, 60_000, () => 0);
    const right = limiter.admitToken('10.0.0.9');
    if ('wait' in right) throw new Error('let in');
    limiter.tokenSucceeded(right);
    for (let i = 0; i < 3; i++) expect('wait' in limiter.admitToken('10.0.0.9')).toBe(false);
    expect(limiter.admitToken('10.0.0.9')).toEqual({ wait: 60 });
    expect('wait' in limiter.admitToken('10.0.0.10')).toBe(false);
  });
});

describe('the network policy', () => {
  const req = (headers: Record<string, string>, peer = '127.0.0.1') => ({ headers, socket: { remoteAddress: peer } }) as unknown as IncomingMessage;

  it('reads the host of a Host header, refusing malformed ones', () => {
    expect(hostName('AWB.example.org:4310')).toBe('awb.example.org');
    expect(hostName('[::1]:4310')).toBe('::1');
    expect(hostName('example.org.')).toBe('example.org');
    expect(hostName('evil.example@127.0.0.1')).toBeNull();
    expect(hostName('a b')).toBeNull();
    expect(hostName(undefined)).toBeNull();
  });

  it('believes X-Forwarded-* only from a trusted proxy, and of X-Forwarded-For only the entry it added', () => {
    const direct = new NetworkPolicy({ host: '127.0.0.1', trustedProxies: [] });
    expect(direct.clientAddress(req({ 'x-forwarded-for': '203.0.113.9' }))).toBe('127.0.0.1');
    expect(direct.behindTls(req({ 'x-forwarded-proto': 'https' }))).toBe(false);
    const proxied = new NetworkPolicy({ host: '127.0.0.1', trustedProxies: ['::ffff:127.0.0.1'] });
    expect(proxied.clientAddress(req({ 'x-forwarded-for': '198.51.100.1, 203.0.113.9' }))).toBe('203.0.113.9');
    expect(proxied.clientAddress(req({ 'x-forwarded-for': 'not an address' }))).toBe('127.0.0.1');
    expect(proxied.clientAddress(req({ 'x-forwarded-for': '203.0.113.9' }, '10.1.1.1'))).toBe('10.1.1.1');
    expect(proxied.behindTls(req({ 'x-forwarded-proto': 'https' }))).toBe(true);
    expect(() => new NetworkPolicy({ host: '127.0.0.1', trustedProxies: ['proxy.example'] })).toThrow(/not an IP address/);
  });
});

describe('request bodies', () => {
  it('measures JSON depth outside strings, stopping past the limit', () => {
    expect(jsonDepthOver('{"a": [[1]]}', 3)).toBe(false);
    expect(jsonDepthOver('{"a": [[[1]]]}', 3)).toBe(true);
    expect(jsonDepthOver('{"a": "[[[[[[[[", "b": "\\\\\\"[[[["}', 1)).toBe(false);
    expect(() => parseJsonBody(`${'['.repeat(5000)}${']'.repeat(5000)}`)).toThrow(/nests deeper than 64 levels/);
  });
});

describe('upload references', () => {
  it('names only files inside the upload folder, and turns their paths back into references', () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    expect(uploadPath(`upload:${id}/data.jsonl`, '/srv/uploads')).toBe(`/srv/uploads/${id}/data.jsonl`);
    expect(uploadPath(`upload:${id}/../../etc/passwd`, '/srv/uploads')).toBeNull();
    expect(uploadPath('upload:abc/data.jsonl', '/srv/uploads')).toBeNull();
    expect(hideServerPaths({ file: `/srv/uploads/${id}/data.jsonl`, note: 'No file at /srv/uploads/x/y' }, '/srv/uploads')).toEqual({ file: `upload:${id}/data.jsonl`, note: 'No file at upload:x/y' });
  });
});
