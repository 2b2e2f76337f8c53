import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { haproxyDialect } from '#haproxy-bin';
import {
  checkConfig,
  cliCommand,
  describeForMajors,
  freePort,
  type HaproxyUnderTest,
  startHaproxy,
  waitUntil,
} from '#testbed/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificate, makeSiteFiles, servedCommonName, siteConfig } from './fixtures.js';

// The raw behaviour of each HAProxy major that haptic's agent and escaper depend on: config
// checks, master-worker start, both reload dialects and both payload framings.
describeForMajors(['2.6', '3.0'], 'HAProxy dialects', (haproxy) => {
  const dialect = haproxyDialect(haproxy.version);
  const synchronousReload = dialect.reload === 'synchronous';
  const customTerminator = dialect.customPayloadTerminator;
  let site: ReturnType<typeof makeSiteFiles>;
  let port: number;
  let h: HaproxyUnderTest;
  let config: string;

  beforeAll(async () => {
    site = makeSiteFiles();
    port = await freePort();
    h = await startHaproxy({
      bin: haproxy.bin,
      config: ({ adminSocket }) => (config = siteConfig({ adminSocket, port, ...site })),
    });
  });
  afterAll(async () => {
    await h?.stop();
    rmSync(site.dir, { recursive: true, force: true });
  });

  describe('haproxy -c', () => {
    it('accepts a valid configuration', async () => {
      const result = await checkConfig(haproxy.bin, h.configPath);
      expect(result.code).toBe(0);
    });

    it('rejects an invalid one, naming the line', async () => {
      const bad = join(site.dir, 'bad.cfg');
      writeFileSync(bad, config.replace('server s1 127.0.0.1:9', 'server s1 127.0.0.1:abc'));
      const result = await checkConfig(haproxy.bin, bad);
      expect(result.code).not.toBe(0);
      expect(result.output).toMatch(/\[ALERT\].*bad\.cfg:\d+/);
    });
  });

  describe('master-worker', () => {
    it('is the binary the one switch selects while the suite runs', () => {
      expect(process.env['HAPTIC_HAPROXY_BIN']).toBe(haproxy.bin);
    });

    it(`runs a ${haproxy.branch} worker under a master socket`, async () => {
      const proc = await h.showProc();
      expect(proc.master.version).toBe(haproxy.version.text);
      expect(proc.workers.map((w) => w.version)).toEqual([haproxy.version.text]);
    });

    it(
      synchronousReload
        ? 'answers reload synchronously with Success=1'
        : 'reloads silently, seen through show proc',
      async () => {
        const before = await h.showProc();
        const reply = await cliCommand(h.masterSocket, 'reload', { timeoutMs: 30_000 });
        const after = await waitUntil('a new current worker', async () => {
          const proc = await h.showProc();
          return proc.workers.some((w) => w.pid !== before.workers[0]!.pid) ? proc : undefined;
        });
        // 3.0 answers the reload synchronously with its outcome; 2.6 answers nothing
        expect(reply).toMatch(synchronousReload ? /^Success=1\n--\n[\s\S]*Loading success/ : /^$/);
        expect(after.master.reloads).toBe(before.master.reloads + 1);
        expect(after.master.failed).toBe(0);
      },
    );

    it(
      synchronousReload
        ? 'answers Success=0 to a failed reload'
        : 'counts a failed reload in show proc',
      async () => {
        const before = await h.showProc();
        writeFileSync(
          h.configPath,
          config.replace('server s1 127.0.0.1:9', 'server s1 127.0.0.1:abc'),
        );
        try {
          const reply = await cliCommand(h.masterSocket, 'reload', { timeoutMs: 30_000 });
          expect(reply).toMatch(synchronousReload ? /^Success=0\n/ : /^$/);
          const after = await waitUntil('the failed reload to be counted', async () => {
            const proc = await h.showProc();
            return proc.master.failed > 0 ? proc : undefined;
          });
          // The old worker keeps serving.
          expect(after.workers.map((w) => w.pid)).toEqual(before.workers.map((w) => w.pid));
          expect(await servedCommonName(port)).toBeTruthy();
        } finally {
          writeFileSync(h.configPath, config);
        }
      },
    );
  });

  describe('CLI payloads', () => {
    it('adds map entries from a << payload ended by an empty line', async () => {
      const reply = await cliCommand(
        h.adminSocket,
        `add map ${site.mapPath} <<\na.example.com be_a\nb.example.com be_b\n\n`,
      );
      expect(reply).toBe('\n');
      const map = await cliCommand(h.adminSocket, `show map ${site.mapPath}`);
      expect(map).toMatch(/ a\.example\.com be_a\n/);
      expect(map).toMatch(/ b\.example\.com be_b\n/);
    });

    it('applies nothing from a payload missing its closing empty line (empty reply)', async () => {
      const reply = await cliCommand(
        h.adminSocket,
        `add map ${site.mapPath} <<\nunterminated.example.com be_u\n`,
      );
      expect(reply).toBe('');
      expect(await cliCommand(h.adminSocket, `show map ${site.mapPath}`)).not.toContain(
        'unterminated',
      );
    });

    it(
      customTerminator
        ? 'accepts a custom <<%EOF% terminator'
        : 'rejects a custom <<%EOF% terminator',
      async () => {
        const reply = await cliCommand(
          h.adminSocket,
          `add map ${site.mapPath} <<%EOF%\nc.example.com be_c\n%EOF%\n`,
        );
        const map = await cliCommand(h.adminSocket, `show map ${site.mapPath}`);
        // a dialect with the custom terminator adds the entry; the other refuses the payload
        expect(reply).toMatch(customTerminator ? /^\n$/ : /'add map' expects three parameters/);
        expect(/ c\.example\.com be_c\n/.test(map)).toBe(customTerminator);
      },
    );

    it('replaces the served certificate from a set ssl cert << payload', async () => {
      const { cert, key } = makeCertificate('two.example.com');
      const set = await cliCommand(
        h.adminSocket,
        `set ssl cert ${site.certPath} <<\n${cert}${key}\n`,
      );
      expect(set).toMatch(/^Transaction (created|updated) for certificate /);
      const commit = await cliCommand(h.adminSocket, `commit ssl cert ${site.certPath}`);
      expect(commit).toContain('Success!');
      expect(await servedCommonName(port)).toBe('two.example.com');
    });

    it(
      customTerminator
        ? 'keeps a PEM with a blank line whole inside <<%EOF%'
        : 'cuts a PEM at its blank line (the key is lost)',
      async () => {
        const { cert, key } = makeCertificate('three.example.com');
        const payload = customTerminator
          ? `<<%EOF%\n${cert}\n${key}%EOF%\n`
          : `<<\n${cert}\n${key}\n`;
        await cliCommand(h.adminSocket, `set ssl cert ${site.certPath} ${payload}`);
        const commit = await cliCommand(h.adminSocket, `commit ssl cert ${site.certPath}`);
        expect(commit).toContain(
          customTerminator ? 'Success!' : 'must contain at least a certificate and a private key',
        );
        if (!customTerminator) await cliCommand(h.adminSocket, `abort ssl cert ${site.certPath}`);
        expect(await servedCommonName(port)).toBe(
          customTerminator ? 'three.example.com' : 'two.example.com',
        );
      },
    );

    it(
      dialect.runsEveryLine
        ? 'runs every line of a message as a command'
        : 'runs only the first command line of a message',
      async () => {
        const lines = ['one', 'two'].map(
          (n) => `add map ${site.mapPath} line-${n}.example.com be_${n}`,
        );
        await cliCommand(h.adminSocket, `${lines.join('\n')}\n`);
        const map = await cliCommand(h.adminSocket, `show map ${site.mapPath}`);
        expect(map).toContain('line-one.example.com');
        expect(map.includes('line-two.example.com')).toBe(dialect.runsEveryLine);
      },
    );

    it(
      dialect.waitSrvRemovable ? 'knows wait srv-removable' : 'does not know wait srv-removable',
      async () => {
        const reply = await cliCommand(h.adminSocket, 'wait 100 srv-removable be_default/s1');
        expect(/Unknown command/.test(reply)).toBe(!dialect.waitSrvRemovable);
      },
    );
  });
});
