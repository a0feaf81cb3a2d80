// Runs one docs snippet as a reader would: bash blocks in bash (the blocks of one page share their
// variables and functions, as in one terminal), ts/js blocks as a program with tsx. Each run is its
// own process group, and whatever the snippet left running in it is killed when it ends.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface SnippetRun {
  /** Exit code; null when a signal ended it. */
  code: number | null;
  /** stdout and stderr, interleaved as they came. */
  output: string;
  /** True when the run passed its time bound and was killed. */
  timedOut: boolean;
}

export interface RunOptions {
  /** Working directory: the repository's root, where a reader runs the docs' commands. */
  cwd: string;
  env: Record<string, string>;
  /** A hanging snippet fails after this long (a bound, not a measurement). */
  timeoutMs: number;
}

/** Kills what is left of a process group we started; ESRCH means nothing was left. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function runProcess(command: string, args: string[], options: RunOptions): Promise<SnippetRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const pid = child.pid;
    if (pid === undefined) {
      child.once('error', reject);
      return;
    }
    let output = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(pid);
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      // A snippet may start something in the background (`… &`): it ends with the snippet.
      killGroup(pid);
      resolve({ code, output, timedOut });
    });
  });
}

/** Bash variables that belong to the shell, never to a snippet. */
const SHELL_OWN =
  '^(BASH.*|_|PIPESTATUS|COLUMNS|LINES|OPTIND|OPTARG|SECONDS|RANDOM|SRANDOM|LINENO|EPOCH.*|__snippet_.*)$';

/**
 * Runs a bash block after the state (variables, functions) the page's earlier blocks left in
 * stateFile, and on success writes the state it leaves for the next block. `set -euo pipefail`:
 * a command that fails fails the snippet, where a reader would see its error.
 */
export async function runBashBlock(
  code: string,
  blockFile: string,
  stateFile: string,
  options: RunOptions,
): Promise<SnippetRun> {
  await writeFile(blockFile, `${code}\n`);
  const wrapper = [
    '__snippet_before=$(compgen -v | sort)',
    `if [ -f ${quote(stateFile)} ]; then source ${quote(stateFile)}; fi`,
    'set -euo pipefail',
    `source ${quote(blockFile)}`,
    'set +eu',
    `{ declare -f; comm -13 <(printf '%s\\n' "$__snippet_before") <(compgen -v | sort) | grep -Ev '${SHELL_OWN}' | while read -r __snippet_v; do declare -p "$__snippet_v"; done; } > ${quote(stateFile)}.next`,
    `mv ${quote(stateFile)}.next ${quote(stateFile)}`,
  ].join('\n');
  return runProcess('bash', ['-c', wrapper], options);
}

/** Runs a ts/js block as a program with tsx, from a file in dir (inside the repository, so imports resolve). */
export async function runTsBlock(
  code: string,
  file: string,
  tsconfig: string,
  options: RunOptions,
): Promise<SnippetRun> {
  await writeFile(file, `${code}\n`);
  const tsx = path.join(options.cwd, 'node_modules', '.bin', 'tsx');
  return runProcess(tsx, ['--tsconfig', tsconfig, file], options);
}

function quote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
