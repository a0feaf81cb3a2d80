#!/usr/bin/env node
// Printed by `npm start` before its build (`tsc -b tsconfig.build.json`), which prints nothing while
// it works: a first start compiles everything (tens of seconds on a small machine) and would
// otherwise sit silent, looking hung. Later starts compile only what changed since the last build.
import { existsSync } from 'node:fs';

/** The record tsc -b keeps of the last build: without it, the build is a first one. */
const BUILD_INFO = new URL('../dist/tsconfig.build.tsbuildinfo', import.meta.url);

console.log(
  existsSync(BUILD_INFO)
    ? 'building the service (tsc -b: only what changed since the last build) …'
    : 'building the service (tsc): the first build compiles everything and takes a while …',
);
