#!/usr/bin/env node
// Makes sure a Chromium exists before `npm start` / `npm test`, resolving it the way the service does
// (CHROMIUM_PATH, Playwright's own download, the system's). When none is found it installs one:
// Debian's chromium through apt-get when running as root, otherwise Playwright's download.
import { accessSync, constants } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const SYSTEM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
];

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function found() {
  if (process.env.CHROMIUM_PATH)
    return executable(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : undefined;
  const bundled = chromium.executablePath();
  if (bundled && executable(bundled)) return bundled;
  return SYSTEM_PATHS.find(executable);
}

function run(command, args) {
  process.stderr.write(`ensure-browser: ${command} ${args.join(' ')}\n`);
  return (
    spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
      .status === 0
  );
}

let path = found();
if (path === undefined && process.env.CHROMIUM_PATH) {
  process.stderr.write(
    `ensure-browser: CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable file\n`,
  );
  process.exit(1);
}
if (path === undefined) {
  const root = process.getuid?.() === 0;
  if (root && executable('/usr/bin/apt-get')) {
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', 'chromium']);
  } else {
    run('npx', ['--yes', 'playwright-core', 'install', 'chromium']);
  }
  path = found();
}
if (path === undefined) {
  process.stderr.write(
    'ensure-browser: no Chromium found or installed. Set CHROMIUM_PATH to a Chromium or Chrome binary.\n',
  );
  process.exit(1);
}
process.stderr.write(`ensure-browser: using ${path}\n`);
