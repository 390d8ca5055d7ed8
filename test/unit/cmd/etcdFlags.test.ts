import { describe, expect, it } from 'vitest';
import { DEFAULT_QUOTA_BYTES, etcdUsage, FlagError, parseEtcdFlags } from '../../../main/cmd/etcdFlags';

function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const parsed = parseEtcdFlags(argv, env);
  if (parsed.kind !== 'run') throw new Error(`expected run, got ${parsed.kind}`);
  return parsed;
}

function failure(argv: string[], env: NodeJS.ProcessEnv = {}): FlagError {
  try {
    parseEtcdFlags(argv, env);
  } catch (err) {
    if (err instanceof FlagError) return err;
    throw err;
  }
  throw new Error('expected a FlagError');
}

describe('parseEtcdFlags', () => {
  it('applies etcd 3.4 defaults', () => {
    const { config } = run([]);
    expect(config).toEqual({
      name: 'default',
      dataDir: 'default.etcd',
      listenClientUrls: ['http://localhost:2379'],
      advertiseClientUrls: ['http://localhost:2379'],
      listenPeerUrls: ['http://localhost:2380'],
      initialAdvertisePeerUrls: ['http://localhost:2380'],
      initialCluster: new Map([['default', ['http://localhost:2380']]]),
      initialClusterState: 'new',
      initialClusterToken: 'etcd-cluster',
      heartbeatInterval: 100,
      electionTimeout: 1000,
      snapshotCount: 100000,
      quotaBackendBytes: DEFAULT_QUOTA_BYTES,
      maxRequestBytes: 1572864,
      maxTxnOps: 128,
      watchProgressNotifyInterval: 600_000,
      strictReconfigCheck: true,
      cors: ['*'],
    });
  });

  it('parses --strict-reconfig-check (etcd default true)', () => {
    expect(run(['--strict-reconfig-check=false']).config.strictReconfigCheck).toBe(false);
    expect(run(['--strict-reconfig-check']).config.strictReconfigCheck).toBe(true);
  });

  it('parses --cors: "*" (the default) or comma-separated origins, as etcd 3.4 does', () => {
    expect(run(['--cors', 'http://a.com:80,https://b.com:8443']).config.cors).toEqual(['http://a.com:80', 'https://b.com:8443']);
    expect(run(['--cors=*']).config.cors).toEqual(['*']);
    expect(etcdUsage()).toContain("--cors '*'");
  });

  it('parses --experimental-watch-progress-notify-interval as a Go duration', () => {
    expect(run(['--experimental-watch-progress-notify-interval', '1s']).config.watchProgressNotifyInterval).toBe(1000);
    expect(run(['--experimental-watch-progress-notify-interval=1m30s']).config.watchProgressNotifyInterval).toBe(90_000);
    expect(run(['--experimental-watch-progress-notify-interval', '250ms']).config.watchProgressNotifyInterval).toBe(250);
  });

  const spellings = [
    { name: '--flag value', argv: ['--name', 'm1'] },
    { name: '--flag=value', argv: ['--name=m1'] },
    { name: '-flag value', argv: ['-name', 'm1'] },
    { name: '-flag=value', argv: ['-name=m1'] },
  ];
  for (const c of spellings) {
    it(`accepts ${c.name} as Go's flag package does`, () => {
      const { config } = run(c.argv);
      expect(config.name).toBe('m1');
      expect(config.dataDir).toBe('m1.etcd');
      expect(config.initialCluster).toEqual(new Map([['m1', ['http://localhost:2380']]]));
    });
  }

  it('parses a three-member command line', () => {
    const { config } = run([
      '--name', 'm2', '--data-dir', '/tmp/m2',
      '--listen-client-urls', 'http://127.0.0.1:2381', '--advertise-client-urls=http://127.0.0.1:2381',
      '--listen-peer-urls', 'http://127.0.0.1:2382', '--initial-advertise-peer-urls', 'http://127.0.0.1:2382',
      '--initial-cluster', 'm1=http://127.0.0.1:2380,m2=http://127.0.0.1:2382,m3=http://127.0.0.1:2384',
      '--initial-cluster-state', 'existing', '--initial-cluster-token', 'tok',
      '--heartbeat-interval', '50', '--election-timeout', '500', '--quota-backend-bytes', '1024',
    ]);
    expect(config.dataDir).toBe('/tmp/m2');
    expect([...config.initialCluster.keys()]).toEqual(['m1', 'm2', 'm3']);
    expect(config.initialCluster.get('m3')).toEqual(['http://127.0.0.1:2384']);
    expect(config.initialClusterState).toBe('existing');
    expect(config.heartbeatInterval).toBe(50);
    expect(config.electionTimeout).toBe(500);
    expect(config.quotaBackendBytes).toBe(1024);
  });

  it('reads ETCD_* environment variables and logs them as etcd does', () => {
    const logged: string[] = [];
    const parsed = parseEtcdFlags(['--name', 'flagname'], { ETCD_SNAPSHOT_COUNT: '10', ETCD_DATA_DIR: '/d', ETCD_NAME: '', ETCD_BOGUS: '1' }, (l) =>
      logged.push(l),
    );
    if (parsed.kind !== 'run') throw new Error('expected run');
    expect(parsed.config.name).toBe('flagname');
    expect(parsed.config.snapshotCount).toBe(10);
    expect(parsed.config.dataDir).toBe('/d');
    expect(logged).toEqual([
      'pkg/flags: recognized and used environment variable ETCD_DATA_DIR=/d',
      'pkg/flags: recognized and used environment variable ETCD_SNAPSHOT_COUNT=10',
      'pkg/flags: unrecognized environment variable ETCD_BOGUS=1',
    ]);
  });

  it('refuses a variable that a flag shadows, as etcd 3.4 does', () => {
    const err = failure(['--name', 'flagname'], { ETCD_NAME: 'envname' });
    expect(err.logPrefix + err.message).toBe(
      'pkg/flags: conflicting environment variable "ETCD_NAME" is shadowed by corresponding command-line flag (either unset environment variable or disable flag)',
    );
    expect(err.exitCode).toBe(1);
  });

  it('recognises help and version', () => {
    expect(parseEtcdFlags(['--help']).kind).toBe('help');
    expect(parseEtcdFlags(['-h']).kind).toBe('help');
    expect(parseEtcdFlags(['--version']).kind).toBe('version');
  });

  const errors = [
    { argv: ['--bogus'], code: 2, message: 'flag provided but not defined: -bogus' },
    { argv: ['--heartbeat-interval', 'abc'], code: 2, message: 'invalid value "abc" for flag -heartbeat-interval: parse error' },
    { argv: ['--initial-cluster-state', 'foo'], code: 2, message: 'invalid value "foo" for flag -initial-cluster-state: invalid value' },
    { argv: ['--listen-client-urls', 'foo'], code: 2, message: 'invalid value "foo" for flag -listen-client-urls: URL scheme must be http, https, unix, or unixs: foo' },
    { argv: ['--listen-peer-urls', 'http://127.0.0.1'], code: 2, message: 'invalid value "http://127.0.0.1" for flag -listen-peer-urls: URL address does not have the form "host:port": http://127.0.0.1' },
    // Debian's etcd 3.4, word for word.
    { argv: ['--cors', 'http://a.com'], code: 2, message: 'invalid value "http://a.com" for flag -cors: URL address does not have the form "host:port": http://a.com' },
    { argv: ['--cors', '*,http://a.com:1'], code: 2, message: 'invalid value "*,http://a.com:1" for flag -cors: URL scheme must be http, https, unix, or unixs: *' },
    { argv: ['--cors', ''], code: 2, message: 'invalid value "" for flag -cors: URL scheme must be http, https, unix, or unixs: ' },
    { argv: ['--experimental-watch-progress-notify-interval', 'x'], code: 2, message: 'invalid value "x" for flag -experimental-watch-progress-notify-interval: parse error' },
    { argv: ['--name'], code: 2, message: 'flag needs an argument: -name' },
    { argv: ['extra'], code: 1, message: "error verifying flags, 'extra' is not a valid flag. See 'etcd --help'." },
    { argv: ['--election-timeout', '100'], code: 1, message: "error verifying flags, --election-timeout[100ms] should be at least as 5 times as --heartbeat-interval[100ms]. See 'etcd --help'." },
    { argv: ['--election-timeout', '60000'], code: 1, message: "error verifying flags, --election-timeout[60000ms] is too long, and should be set less than 50000ms. See 'etcd --help'." },
    { argv: ['--listen-client-urls', 'http://127.0.0.1:9999'], code: 1, message: "error verifying flags, --advertise-client-urls is required when --listen-client-urls is set explicitly. See 'etcd --help'." },
  ];
  for (const c of errors) {
    it(`rejects ${c.argv.join(' ')} as etcd does`, () => {
      const err = failure(c.argv);
      expect(err.message).toBe(c.message);
      expect(err.exitCode).toBe(c.code);
    });
  }

  it('rejects a bad environment value with the variable name', () => {
    const err = failure([], { ETCD_HEARTBEAT_INTERVAL: 'x' });
    expect(err.message).toBe(`error verifying flags, invalid value "x" for ETCD_HEARTBEAT_INTERVAL: parse error. See 'etcd --help'.`);
  });

  describe('auto-compaction', () => {
    it('is off by default and with retention 0', () => {
      expect(run([]).config.autoCompaction).toBeUndefined();
      expect(run(['--auto-compaction-mode=revision', '--auto-compaction-retention=0']).config.autoCompaction).toBeUndefined();
      expect(run(['--auto-compaction-retention=0s']).config.autoCompaction).toBeUndefined();
      expect(run(['--auto-compaction-retention=']).config.autoCompaction).toBeUndefined();
    });

    it('periodic (default mode): a plain number is hours, otherwise a Go duration', () => {
      expect(run(['--auto-compaction-retention=1']).config.autoCompaction).toEqual({ mode: 'periodic', retention: 3_600_000 });
      expect(run(['--auto-compaction-retention', '30m']).config.autoCompaction).toEqual({ mode: 'periodic', retention: 1_800_000 });
      expect(run(['--auto-compaction-mode=periodic', '--auto-compaction-retention=1h30m']).config.autoCompaction).toEqual({
        mode: 'periodic',
        retention: 5_400_000,
      });
      expect(run([], { ETCD_AUTO_COMPACTION_RETENTION: '2.5s' }).config.autoCompaction).toEqual({ mode: 'periodic', retention: 2500 });
    });

    it('revision: a plain number of revisions; the test-only interval comes from PILOTHOUSE_AUTO_COMPACTION_INTERVAL_MS', () => {
      expect(run(['--auto-compaction-mode=revision', '--auto-compaction-retention=1000']).config.autoCompaction).toEqual({
        mode: 'revision',
        retention: 1000,
      });
      const env = { PILOTHOUSE_AUTO_COMPACTION_INTERVAL_MS: '200' };
      expect(run(['--auto-compaction-mode', 'revision', '--auto-compaction-retention', '10'], env).config.autoCompaction).toEqual({
        mode: 'revision',
        retention: 10,
        revisionIntervalMs: 200,
      });
    });

    // Texts and exit codes as Debian's etcd 3.4 prints them.
    const bad = [
      { argv: ['--auto-compaction-mode=foo'], message: `error verifying flags, unknown auto-compaction-mode "foo". See 'etcd --help'.` },
      { argv: ['--auto-compaction-retention=bad'], message: 'error parsing CompactionRetention: time: invalid duration "bad"' },
      { argv: ['--auto-compaction-retention=-1'], message: 'error parsing CompactionRetention: time: missing unit in duration "-1"' },
      { argv: ['--auto-compaction-retention=1x'], message: 'error parsing CompactionRetention: time: unknown unit "x" in duration "1x"' },
      { argv: ['--auto-compaction-retention=.h'], message: 'error parsing CompactionRetention: time: invalid duration ".h"' },
    ];
    for (const c of bad) {
      it(`rejects ${c.argv.join(' ')} as etcd does`, () => {
        const err = failure(c.argv);
        expect(err.logPrefix + err.message).toBe(`etcdmain: ${c.message}`);
        expect(err.exitCode).toBe(1);
        expect(err.showUsage).toBe(false);
      });
    }
  });
});
