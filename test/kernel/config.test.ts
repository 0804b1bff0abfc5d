/**
 * Configuration (docs/architecture.md "Configuration"): cosmiconfig discovery and --config, one zod schema whose
 * errors name the key path, the precedence flag > environment > config > default, and profiles.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError, DEFAULT_LIMITS, loadConfig, resolveConfig, type EffectiveConfig } from '../../src/kernel/config';
import type { ConfigFile } from '../../src/kernel/config';
import { pluginSections } from '../../src/kernel/config/load';
import { absoluteOptions, optionsSchema as sessionsOptions } from '../../plugins/tools-sessions/src/homes';

let tmp: string;
beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgw-config-')));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function write(rel: string, text: string): string {
  const p = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
}

async function loadError(explicit: string | undefined, cwd: string): Promise<ConfigError> {
  try {
    await loadConfig(explicit, cwd);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected loadConfig to throw a ConfigError');
}

function resolveError(config: ConfigFile, flags = {}, env: NodeJS.ProcessEnv = {}, dir = '/cfg', cwd = '/cwd'): ConfigError {
  try {
    resolveConfig({ config, dir }, flags, env, cwd);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected resolveConfig to throw a ConfigError');
}

/** resolveConfig with a config that lives in /cfg and a cwd of /cwd (pure path arithmetic). */
function resolve(config: ConfigFile, flags = {}, env: NodeJS.ProcessEnv = {}): EffectiveConfig {
  return resolveConfig({ config, dir: '/cfg' }, flags, env, '/cwd');
}

describe('loadConfig: discovery', () => {
  test('.mcpgwrc (YAML, no extension)', async () => {
    const file = write('.mcpgwrc', 'root: ./data\nprofile: team\nprofiles:\n  team:\n    bundles: [explore]\nlimits:\n  maxItems: 50\n');
    const loaded = await loadConfig(undefined, tmp);
    expect(loaded.filepath).toBe(file);
    expect(loaded.dir).toBe(tmp);
    expect(loaded.config).toEqual({ root: './data', profile: 'team', profiles: { team: { bundles: ['explore'] } }, limits: { maxItems: 50 } });
  });

  test('.mcpgwrc.json', async () => {
    const file = write('.mcpgwrc.json', JSON.stringify({ root: 'files', builtins: false, plugins: ['./p.mjs', ['@acme/x', { a: 1 }]] }));
    const loaded = await loadConfig(undefined, tmp);
    expect(loaded.filepath).toBe(file);
    expect(loaded.config).toEqual({ root: 'files', builtins: false, plugins: ['./p.mjs', ['@acme/x', { a: 1 }]] });
  });

  test('"mcpgw" in package.json', async () => {
    const file = write('package.json', JSON.stringify({ name: 'proj', version: '1.0.0', mcpgw: { root: 'pkgdata', logLevel: 'info' } }));
    const loaded = await loadConfig(undefined, tmp);
    expect(loaded.filepath).toBe(file);
    expect(loaded.config).toEqual({ root: 'pkgdata', logLevel: 'info' });
  });

  test('a package.json without "mcpgw" is skipped in favour of .mcpgwrc.json', async () => {
    write('package.json', JSON.stringify({ name: 'proj', version: '1.0.0' }));
    const file = write('.mcpgwrc.json', JSON.stringify({ root: 'rc' }));
    const loaded = await loadConfig(undefined, tmp);
    expect(loaded.filepath).toBe(file);
    expect(loaded.config.root).toBe('rc');
  });

  test('discovery walks up from a subfolder to the config in a parent folder', async () => {
    const file = write('.mcpgwrc.json', JSON.stringify({ root: 'data' }));
    fs.mkdirSync(path.join(tmp, 'a', 'b'), { recursive: true });
    const loaded = await loadConfig(undefined, path.join(tmp, 'a', 'b'));
    expect(loaded.filepath).toBe(file);
    expect(loaded.dir).toBe(tmp);
  });

  test('no config anywhere: empty config, dir is the cwd', async () => {
    const loaded = await loadConfig(undefined, tmp);
    expect(loaded).toEqual({ config: {}, filepath: null, dir: tmp });
  });

  test('an empty .mcpgwrc is skipped by discovery (cosmiconfig ignores empty search places)', async () => {
    write('.mcpgwrc', '');
    const loaded = await loadConfig(undefined, tmp);
    expect(loaded).toEqual({ config: {}, filepath: null, dir: tmp });
  });
});

describe('loadConfig: --config FILE', () => {
  test('explicit file, relative to cwd; dir is the file\'s folder', async () => {
    const file = write('conf/team.yaml', 'root: ../shared-data\n');
    write('.mcpgwrc.json', JSON.stringify({ root: 'not-this-one' }));
    const loaded = await loadConfig('conf/team.yaml', tmp);
    expect(loaded.filepath).toBe(file);
    expect(loaded.dir).toBe(path.join(tmp, 'conf'));
    expect(loaded.config).toEqual({ root: '../shared-data' });
  });

  test('explicit JSON file given as an absolute path', async () => {
    const file = write('elsewhere/my-config.json', JSON.stringify({ root: '/abs/root' }));
    const loaded = await loadConfig(file, '/');
    expect(loaded.filepath).toBe(file);
    expect(loaded.config.root).toBe('/abs/root');
  });

  test('an empty explicit file is an empty config with its folder as dir', async () => {
    const file = write('conf/empty.yaml', '');
    const loaded = await loadConfig(file, tmp);
    expect(loaded).toEqual({ config: {}, filepath: file, dir: path.join(tmp, 'conf') });
  });

  test('a missing explicit file is a ConfigError naming it', async () => {
    const err = await loadError('nope/.mcpgwrc.json', tmp);
    expect(err.message).toContain('nope/.mcpgwrc.json');
    expect(err.message).toMatch(/does not exist/);
  });

  test('malformed JSON is a ConfigError naming the file', async () => {
    const file = write('.mcpgwrc.json', '{ "root": ');
    const err = await loadError(undefined, tmp);
    expect(err.message).toContain(file);
  });
});

describe('loadConfig: validation names the key path', () => {
  test('unknown top-level key `rooot`', async () => {
    const file = write('.mcpgwrc.json', JSON.stringify({ rooot: './data' }));
    const err = await loadError(undefined, tmp);
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/\(top level\): unknown key "rooot"/);
  });

  test('unknown key inside a profile: profiles.analysts.limitz', async () => {
    write('.mcpgwrc', 'root: d\nprofiles:\n  analysts:\n    bundles: [explore]\n    limitz: { maxItems: 5 }\n');
    const err = await loadError(undefined, tmp);
    expect(err.message).toMatch(/profiles\.analysts: unknown key "limitz"/);
  });

  test('unknown limit inside a profile names the full path', async () => {
    write('.mcpgwrc.json', JSON.stringify({ profiles: { analysts: { limits: { maxItemz: 5 } } } }));
    const err = await loadError(undefined, tmp);
    expect(err.message).toMatch(/profiles\.analysts\.limits: unknown key "maxItemz"/);
  });

  test('wrong type: limits.maxItems: "x"', async () => {
    write('.mcpgwrc.json', JSON.stringify({ root: 'd', limits: { maxItems: 'x' } }));
    const err = await loadError(undefined, tmp);
    expect(err.message).toMatch(/limits\.maxItems: .*expected number/i);
  });

  test('wrong type deep in a profile: profiles.analysts.limits.maxResultBytes', async () => {
    write('.mcpgwrc.json', JSON.stringify({ profiles: { analysts: { limits: { maxResultBytes: -1 } } } }));
    const err = await loadError(undefined, tmp);
    expect(err.message).toContain('profiles.analysts.limits.maxResultBytes');
  });

  test('recordFormat and resultText take only their values, in a profile and at the top level', async () => {
    write('.mcpgwrc.json', JSON.stringify({ resultText: 'short', profiles: { analysts: { recordFormat: 'tight' } } }));
    const err = await loadError(undefined, tmp);
    expect(err.message).toContain('resultText: Invalid option: expected one of "auto"|"full"|"summary"');
    expect(err.message).toContain('profiles.analysts.recordFormat: Invalid option: expected one of "pretty"|"compact"');
  });

  test('every problem is listed, one per line', async () => {
    write('.mcpgwrc.json', JSON.stringify({ rooot: 'x', limits: { maxItems: 'x' }, builtins: 'yes' }));
    const err = await loadError(undefined, tmp);
    expect(err.message).toContain('rooot');
    expect(err.message).toContain('limits.maxItems');
    expect(err.message).toContain('builtins');
    expect(err.message.split('\n').length).toBeGreaterThanOrEqual(4);
  });
});

describe('resolveConfig: root', () => {
  test('missing root is a ConfigError mentioning --root and MCPGW_ROOT', () => {
    const err = resolveError({});
    expect(err.message).toMatch(/No root folder/);
    expect(err.message).toContain('--root');
    expect(err.message).toContain('MCPGW_ROOT');
  });

  test('config root is relative to the config file\'s folder', () => {
    expect(resolve({ root: './data' }).root).toBe('/cfg/data');
    expect(resolve({ root: '../up' }).root).toBe('/up');
    expect(resolve({ root: '/abs' }).root).toBe('/abs');
  });

  test('MCPGW_ROOT beats the config and is relative to cwd', () => {
    expect(resolve({ root: './data' }, {}, { MCPGW_ROOT: 'envdata' }).root).toBe('/cwd/envdata');
  });

  test('--root beats MCPGW_ROOT and the config and is relative to cwd', () => {
    expect(resolve({ root: './data' }, { root: 'flagdata' }, { MCPGW_ROOT: 'envdata' }).root).toBe('/cwd/flagdata');
    expect(resolve({}, { root: '../x' }).root).toBe('/x');
  });

  test('an empty MCPGW_ROOT does not count as set', () => {
    expect(resolve({ root: 'data' }, {}, { MCPGW_ROOT: '' }).root).toBe('/cfg/data');
  });

  test('real loaded config: relative root resolved against the config\'s folder, not cwd', async () => {
    write('conf/.mcpgwrc.json', JSON.stringify({ root: './data' }));
    const loaded = await loadConfig('conf/.mcpgwrc.json', tmp);
    const eff = resolveConfig(loaded, {}, {}, '/somewhere/else');
    expect(eff.root).toBe(path.join(tmp, 'conf', 'data'));
  });
});

describe('resolveConfig: profile and log level precedence', () => {
  const profiles = { a: { bundles: ['explore'] }, b: { bundles: ['reader'] }, c: { bundles: ['x'] } };

  test('profile: flag > MCPGW_PROFILE > config > "default" > none', () => {
    const cfg: ConfigFile = { root: 'r', profiles: { ...profiles, default: { bundles: ['d'] } }, profile: 'c' };
    expect(resolve(cfg, { profile: 'a' }, { MCPGW_PROFILE: 'b' }).profile).toBe('a');
    expect(resolve(cfg, {}, { MCPGW_PROFILE: 'b' }).profile).toBe('b');
    expect(resolve(cfg).profile).toBe('c');
    expect(resolve(cfg).bundles).toEqual(['x']);
    const { profile: _p, ...noProfile } = cfg;
    expect(resolve(noProfile).profile).toBe('default');
    expect(resolve(noProfile).bundles).toEqual(['d']);
    expect(resolve({ root: 'r', profiles }).profile).toBeNull();
  });

  test('log level: flag > MCPGW_LOG > config > warn', () => {
    const cfg: ConfigFile = { root: 'r', logLevel: 'info' };
    expect(resolve(cfg, { logLevel: 'error' }, { MCPGW_LOG: 'debug' }).logLevel).toBe('error');
    expect(resolve(cfg, {}, { MCPGW_LOG: 'debug' }).logLevel).toBe('debug');
    expect(resolve(cfg).logLevel).toBe('info');
    expect(resolve({ root: 'r' }).logLevel).toBe('warn');
  });

  test('a bad MCPGW_LOG is a ConfigError naming the value and the choices', () => {
    const err = resolveError({ root: 'r' }, {}, { MCPGW_LOG: 'loud' });
    expect(err.message).toContain('"loud"');
    expect(err.message).toMatch(/error, warn, info, debug/);
  });

  test('unknown profile is a ConfigError listing the known ones', () => {
    const err = resolveError({ root: 'r', profiles }, { profile: 'nope' });
    expect(err.message).toContain('"nope"');
    expect(err.message).toContain('Profiles: a, b, c.');
    const fromEnv = resolveError({ root: 'r', profiles }, {}, { MCPGW_PROFILE: 'ghost' });
    expect(fromEnv.message).toContain('"ghost"');
  });

  test('selecting a profile when the config has none is a ConfigError saying so', () => {
    const err = resolveError({ root: 'r' }, { profile: 'x' });
    expect(err.message).toContain('"x"');
    expect(err.message).toMatch(/no profiles/);
  });
});

describe('resolveConfig: no profiles', () => {
  test('bundles and allow are null (every bundle), deny empty, limits equal DEFAULT_LIMITS', () => {
    const eff = resolve({ root: 'r' });
    expect(eff).toEqual({ root: '/cfg/r', profile: null, bundles: null, allow: null, deny: [], limits: { ...DEFAULT_LIMITS }, answers: { recordFormat: 'compact', resultText: 'auto', redactSecrets: true }, logLevel: 'warn', cache: { dir: path.join(os.homedir(), '.cache', 'mcpgw', 'index'), maxBytes: 1024 ** 3 } });
  });

  test('recordFormat and resultText at the top level apply without profiles', () => {
    expect(resolve({ root: 'r', recordFormat: 'compact', resultText: 'summary' }).answers).toEqual({ recordFormat: 'compact', resultText: 'summary', redactSecrets: true });
  });

  test('sessions: a plugin section (the session plugin\'s options); homes and cacheDir relative to the config file, ~/ to the user\'s home folder', () => {
    const { own, sections } = pluginSections({ root: 'r', sessions: { enabled: true, cacheDir: 'cache', sources: { claude: { home: '~/alt-claude' }, codex: { home: '/abs/codex', enabled: false }, kimi: { enabled: true } } } });
    expect(own).toEqual({ root: 'r' });
    expect(absoluteOptions(sessionsOptions.parse(sections.sessions), '/cfg')).toEqual({
      enabled: true,
      cacheDir: '/cfg/cache',
      sources: { claude: { home: path.join(os.homedir(), 'alt-claude') }, codex: { home: '/abs/codex', enabled: false }, kimi: { enabled: true } },
    });
  });

  test('rootOptional: a missing root is null instead of an error', () => {
    expect(resolveConfig({ config: {}, dir: '/cfg' }, {}, {}, '/cwd', { rootOptional: true }).root).toBeNull();
  });

  test('DEFAULT_LIMITS are the values of the limits table in docs/architecture.md', () => {
    expect(DEFAULT_LIMITS).toEqual({
      maxFileBytes: null,
      maxRecordBytes: 64 * 1024 * 1024,
      maxDepth: 2000,
      maxNodes: 200000,
      maxResultBytes: 65536,
      maxMessageBytes: 16 * 1024 * 1024,
      maxItems: 1000,
      maxRecordPreviewBytes: 16384,
      maxOpenFiles: 32,
      maxCursors: 128,
      handleIdleMs: 900000,
      cursorIdleMs: 300000,
      maxConcurrentScans: 4,
      requestTimeoutMs: 30000,
      detailTimeMs: 1000,
      probeBytes: 4 * 1024 * 1024,
      probeRecords: 32,
    });
    expect(Object.isFrozen(DEFAULT_LIMITS)).toBe(true);
  });

  test('config limits override the defaults key by key', () => {
    const eff = resolve({ root: 'r', limits: { maxItems: 10, maxFileBytes: 1000 } });
    expect(eff.limits).toEqual({ ...DEFAULT_LIMITS, maxItems: 10, maxFileBytes: 1000 });
  });
});

describe('resolveConfig: profiles and extends', () => {
  const profiles: NonNullable<ConfigFile['profiles']> = {
    base: {
      bundles: ['explore', 'reader'],
      allow: ['open_file', 'get_record', 'search'],
      deny: ['json_read'],
      root: './base-root',
      limits: { maxItems: 100, maxDepth: 50, maxResultBytes: 8192 },
    },
    mid: { extends: 'base', deny: ['get_schema'], limits: { maxItems: 20 } },
    analysts: { extends: 'mid', bundles: ['explore'], deny: ['search'], limits: { maxResultBytes: 262144 } },
    rooted: { extends: 'base', root: '/elsewhere', allow: ['open_file'] },
  };

  test('recordFormat and resultText: the profile\'s, else its parent\'s, else the config\'s, else compact and auto', () => {
    const answers = { base: { recordFormat: 'compact' as const }, child: { extends: 'base', resultText: 'summary' as const }, again: { extends: 'child', recordFormat: 'pretty' as const }, plain: {} };
    expect(resolve({ root: 'r', profiles: answers, profile: 'child' }).answers).toEqual({ recordFormat: 'compact', resultText: 'summary', redactSecrets: true });
    expect(resolve({ root: 'r', profiles: answers, profile: 'again' }).answers).toEqual({ recordFormat: 'pretty', resultText: 'summary', redactSecrets: true });
    expect(resolve({ root: 'r', profiles: answers, profile: 'plain', resultText: 'summary' }).answers).toEqual({ recordFormat: 'compact', resultText: 'summary', redactSecrets: true });
    expect(resolve({ root: 'r', profiles: answers, profile: 'plain' }).answers).toEqual({ recordFormat: 'compact', resultText: 'auto', redactSecrets: true });
    expect(resolve({ root: 'r', profiles: answers, profile: 'plain', recordFormat: 'pretty', resultText: 'full' }).answers).toEqual({ recordFormat: 'pretty', resultText: 'full', redactSecrets: true });
  });

  test('redactSecrets: the profile\'s, else its parent\'s, else the config\'s, else true', () => {
    const profiles = { base: { redactSecrets: false }, child: { extends: 'base' }, on: { extends: 'base', redactSecrets: true }, plain: {} };
    expect(resolve({ root: 'r', profiles, profile: 'child' }).answers.redactSecrets).toBe(false);
    expect(resolve({ root: 'r', profiles, profile: 'on' }).answers.redactSecrets).toBe(true);
    expect(resolve({ root: 'r', profiles, profile: 'plain', redactSecrets: false }).answers.redactSecrets).toBe(false);
    expect(resolve({ root: 'r', profiles, profile: 'plain' }).answers.redactSecrets).toBe(true);
  });

  test('a profile without extends is taken as written; its limits beat the config\'s', () => {
    const eff = resolve({ root: 'r', profiles, profile: 'base', limits: { maxItems: 7, maxOpenFiles: 3 } });
    expect(eff.profile).toBe('base');
    expect(eff.bundles).toEqual(['explore', 'reader']);
    expect(eff.allow).toEqual(['open_file', 'get_record', 'search']);
    expect(eff.deny).toEqual(['json_read']);
    expect(eff.root).toBe('/cfg/base-root');
    expect(eff.limits).toEqual({ ...DEFAULT_LIMITS, maxOpenFiles: 3, maxItems: 100, maxDepth: 50, maxResultBytes: 8192 });
  });

  test('extends chain: bundles/allow/root inherited unless replaced, deny joined, limits merged child first', () => {
    const eff = resolve({ root: 'r', profiles, profile: 'analysts' });
    expect(eff.bundles).toEqual(['explore']); // replaced by analysts
    expect(eff.allow).toEqual(['open_file', 'get_record', 'search']); // inherited from base through mid
    expect(eff.root).toBe('/cfg/base-root'); // inherited, relative to the config file
    expect([...eff.deny].sort()).toEqual(['get_schema', 'json_read', 'search']);
    expect(eff.deny).toHaveLength(3);
    expect(eff.limits).toEqual({ ...DEFAULT_LIMITS, maxItems: 20, maxDepth: 50, maxResultBytes: 262144 });
  });

  test('the child\'s root and allow replace the parent\'s', () => {
    const eff = resolve({ root: 'r', profiles, profile: 'rooted' });
    expect(eff.root).toBe('/elsewhere');
    expect(eff.allow).toEqual(['open_file']);
    expect(eff.bundles).toEqual(['explore', 'reader']);
  });

  test('--root and MCPGW_ROOT still beat a profile\'s root', () => {
    expect(resolve({ profiles, profile: 'base' }, { root: 'f' }).root).toBe('/cwd/f');
    expect(resolve({ profiles, profile: 'base' }, {}, { MCPGW_ROOT: 'e' }).root).toBe('/cwd/e');
  });

  test('a profile root satisfies the root requirement on its own', () => {
    expect(resolve({ profiles, profile: 'base' }).root).toBe('/cfg/base-root');
  });

  test('a cycle is a ConfigError naming the cycle', () => {
    const cyclic = { a: { extends: 'b' }, b: { extends: 'c' }, c: { extends: 'a' } };
    const err = resolveError({ root: 'r', profiles: cyclic, profile: 'a' });
    expect(err.message).toMatch(/cycle/);
    expect(err.message).toContain('a → b → c → a');
  });

  test('a profile extending itself is a cycle', () => {
    const err = resolveError({ root: 'r', profiles: { self: { extends: 'self' } }, profile: 'self' });
    expect(err.message).toContain('self → self');
  });

  test('extending an unknown profile is a ConfigError naming both', () => {
    const err = resolveError({ root: 'r', profiles: { kid: { extends: 'ghost' } }, profile: 'kid' });
    expect(err.message).toContain('"kid"');
    expect(err.message).toContain('"ghost"');
  });
});
