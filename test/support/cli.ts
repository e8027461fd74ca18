/**
 * Runs the `quarry` CLI as operators do: a child process of src/main.ts, with the
 * given environment on top of this process's, silent logs, output captured.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `timeoutMs` only catches a hung command: on a loaded 2-core machine a tsx child takes a minute to start. */
export function runQuarry(args: readonly string[], env: Record<string, string> = {}, timeoutMs = 300_000): CliResult {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, QUARRY_LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}
