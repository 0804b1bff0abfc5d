import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { underCi } from './shared';

/**
 * A real ClickHouse cluster for tests: servers of Debian's clickhouse-server package (.ci/run installs it) on
 * 127.0.0.1 with free ports, each in a temporary folder, all in one cluster `mcpgw_test` (one shard each) so a
 * `Distributed` table over them is a real distributed query. Users: `default` (no password, for set-up) and a
 * read-only `reader` (profile readonly=2: it may set query settings, never write).
 */
export function clickhouseBinary(): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin']) {
    const p = path.join(dir, 'clickhouse-server');
    if (dir && fs.existsSync(p)) return p;
  }
  if (underCi()) throw new Error('clickhouse-server is not installed: .ci/run installs it with apt-get (Debian package clickhouse-server).');
  return null;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface ChServer { http: number; tcp: number; dir: string; process: ChildProcess }
export interface ChCluster { servers: ChServer[]; readerPassword: string; stop(): Promise<void> }

export async function startCluster(binary: string, count: number): Promise<ChCluster> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-ch-'));
  const ports = [];
  for (let i = 0; i < count; i++) ports.push({ http: await freePort(), tcp: await freePort() });
  const readerPassword = 'reader-secret-7';
  const shards = ports.map((p) => `<shard><replica><host>127.0.0.1</host><port>${p.tcp}</port></replica></shard>`).join('');
  const servers: ChServer[] = [];
  const stop = async () => {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => {
      if (s.process.exitCode !== null || s.process.signalCode !== null) { resolve(); return; }
      const kill = setTimeout(() => s.process.kill('SIGKILL'), 5000);
      s.process.once('exit', () => { clearTimeout(kill); resolve(); });
      s.process.kill('SIGTERM');
    })));
    fs.rmSync(base, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < count; i++) {
      const dir = path.join(base, `s${i}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'config.xml'), `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/server.log</log><errorlog>${dir}/error.log</errorlog><size>10M</size><count>1</count></logger>
  <http_port>${ports[i]!.http}</http_port>
  <tcp_port>${ports[i]!.tcp}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <mlock_executable>false</mlock_executable>
  <remote_servers><mcpgw_test>${shards}</mcpgw_test></remote_servers>
</yandex>
`);
      fs.writeFileSync(path.join(dir, 'users.xml'), `<?xml version="1.0"?>
<yandex>
  <profiles>
    <default><max_memory_usage>2000000000</max_memory_usage></default>
    <reader><readonly>2</readonly><max_execution_time>60</max_execution_time><max_memory_usage>1000000000</max_memory_usage></reader>
  </profiles>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default>
    <reader><password>${readerPassword}</password><networks><ip>127.0.0.1</ip></networks><profile>reader</profile><quota>default</quota><allow_databases><database>default</database></allow_databases></reader>
  </users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`);
      const child = spawn(binary, [`--config-file=${path.join(dir, 'config.xml')}`], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr!.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-4000); });
      servers.push({ http: ports[i]!.http, tcp: ports[i]!.tcp, dir, process: child });
      const started = Date.now();
      for (;;) {
        if (child.exitCode !== null) throw new Error(`clickhouse-server exited (${child.exitCode}): ${err}`);
        try {
          const r = await fetch(`http://127.0.0.1:${ports[i]!.http}/ping`);
          if ((await r.text()).startsWith('Ok')) break;
        } catch { /* not yet */ }
        if (Date.now() - started > 60_000) throw new Error(`clickhouse-server did not answer on port ${ports[i]!.http} within 60 s: ${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (e) {
    await stop();
    throw e;
  }
  return { servers, readerPassword, stop };
}

/** Runs SQL on a server over HTTP (`body` after the query, e.g. JSONEachRow rows); resolves to the body; rejects with ClickHouse's message. */
export async function exec(port: number, sql: string, options: { user?: string; password?: string; body?: string } = {}): Promise<string> {
  const url = new URL(`http://127.0.0.1:${port}/`);
  url.searchParams.set('user', options.user ?? 'default');
  url.searchParams.set('password', options.password ?? '');
  if (options.body !== undefined) url.searchParams.set('query', sql);
  const r = await fetch(url, { method: 'POST', body: options.body ?? sql });
  const text = await r.text();
  if (!r.ok) throw new Error(text);
  return text;
}
