// The seccomp profile the container runs with (docs/operations.md, Container): Playwright's documented
// profile for a sandboxed non-root Chromium, i.e. Docker's default profile plus one rule allowing the
// user-namespace calls Chromium's sandbox makes. Checked without a Docker engine: the file, the compose
// file and the documented run line that use it, and the service's rule that makes it needed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { launchArgs } from '../../src/browser/engine/browserResolve.js';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

interface Rule {
  names: string[];
  action: string;
  args: unknown[];
  comment?: string;
  includes: { caps?: string[]; arches?: string[]; minKernel?: string };
  excludes: { caps?: string[]; arches?: string[] };
}

interface Profile {
  defaultAction: string;
  archMap: unknown[];
  syscalls: Rule[];
}

/** Playwright's one rule on top of Docker's default profile (playwright.dev/docs/docker). */
const USER_NAMESPACE_RULE: Rule = {
  comment: 'Allow create user namespaces',
  names: ['clone', 'setns', 'unshare'],
  action: 'SCMP_ACT_ALLOW',
  args: [],
  includes: {},
  excludes: {},
};

/** Whether a container without extra capabilities may make this call with any arguments. */
function allowedWithoutCapabilities(profile: Profile, name: string): boolean {
  return profile.syscalls.some(
    (rule) =>
      rule.action === 'SCMP_ACT_ALLOW' &&
      rule.names.includes(name) &&
      rule.args.length === 0 &&
      (rule.includes.caps ?? []).length === 0 &&
      (rule.includes.arches ?? []).length === 0,
  );
}

const profile = JSON.parse(read('seccomp_profile.json')) as Profile;
const dockerDefault: Profile = { ...profile, syscalls: profile.syscalls.slice(1) };

describe('seccomp_profile.json', () => {
  it('denies by default and puts Playwright’s user-namespace rule first', () => {
    expect(profile.defaultAction).toBe('SCMP_ACT_ERRNO');
    expect(profile.archMap.length).toBeGreaterThan(0);
    expect(profile.syscalls[0]).toEqual(USER_NAMESPACE_RULE);
  });

  it('allows clone, setns and unshare without CAP_SYS_ADMIN; Docker’s default part alone does not', () => {
    for (const name of USER_NAMESPACE_RULE.names) {
      expect(allowedWithoutCapabilities(profile, name), name).toBe(true);
      expect(allowedWithoutCapabilities(dockerDefault, name), name).toBe(false);
    }
  });

  it('keeps everything else of Docker’s default: mount, bpf and reboot still need their capability', () => {
    for (const name of ['mount', 'bpf', 'reboot', 'init_module'])
      expect(allowedWithoutCapabilities(profile, name), name).toBe(false);
    // Ordinary calls stay allowed (a profile that refused them would stop every process).
    for (const name of ['read', 'write', 'openat', 'mmap', 'futex', 'chroot'])
      expect(
        profile.syscalls.some((r) => r.action === 'SCMP_ACT_ALLOW' && r.names.includes(name)),
        name,
      ).toBe(true);
  });
});

describe('why the container needs it', () => {
  it('the service keeps Chromium’s sandbox for a non-root user (pwuser) and drops it only as root', () => {
    expect(launchArgs(false)).not.toContain('--no-sandbox');
    expect(launchArgs(true)).toContain('--no-sandbox');
    expect(read('Dockerfile')).toMatch(/^USER pwuser$/m);
  });
});

describe('where it is used', () => {
  it('docker-compose.yml runs the service with it, by a path that exists next to the compose file', () => {
    const compose = parseYaml(read('docker-compose.yml')) as {
      services: Record<string, { security_opt?: string[] }>;
    };
    const options = compose.services.service?.security_opt ?? [];
    expect(options).toContain('seccomp=./seccomp_profile.json');
    for (const option of options.filter((o) => o.startsWith('seccomp=')))
      expect(() => read(option.slice('seccomp='.length))).not.toThrow();
    // The fixture app runs no browser: it keeps Docker's default.
    expect(compose.services.fixtures?.security_opt).toBeUndefined();
  });

  it('the documented docker run line uses it, with --init and a larger /dev/shm', () => {
    const section = /## Container\n([\s\S]*?)\n## /.exec(read('docs/operations.md'))?.[1] ?? '';
    const block = /```bash\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const run = block
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .find((line) => line.startsWith('docker run '));
    expect(run).toBeDefined();
    expect(run).toContain('--security-opt seccomp=seccomp_profile.json');
    expect(run).toContain('--init');
    expect(run).toContain('--shm-size=1g');
  });
});
