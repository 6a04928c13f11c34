import { describe, expect, it } from 'vitest';
import { auditSummary, checkPaths, roleMayCall } from '../../electron/services/team/access';
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
