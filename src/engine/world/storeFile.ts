/**
 * How a research store built from scratch becomes `<dataDir>/research.db`: it is built under a
 * name of its own (`research.db.building-<pid>`), written without a journal on disk nor syncs
 * (buildWorld.ts), then synced and renamed into place. Whatever a crash leaves is never the
 * store: either no research.db at all (the next start builds again) or a complete one.
 *
 * @example
 * removeAbandonedBuilds(file);
 * const temporary = buildingFile(file);
 * await buildWorld({ ...options, file: temporary });
 * installBuiltStore(temporary, file);
 */
import fs from 'node:fs';
import path from 'node:path';

/** The files SQLite may keep beside a database. */
const SIDE_FILES = ['-wal', '-shm', '-journal'];

/** Where this process builds the store `file`. */
export function buildingFile(file: string, pid = process.pid): string {
  return `${file}.building-${pid}`;
}

/** Whether a process with this id is running (a build's owner). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Deletes the half-built stores that builds of `file` left when their process died (killed,
 * out of memory, the machine stopped): ~1 GB each on `small`, never to be used. A build whose
 * process still runs (`quarry world build` beside a start) is left alone. Answers the names deleted.
 */
export function removeAbandonedBuilds(file: string): string[] {
  const dir = path.dirname(file);
  const pattern = new RegExp(`^${path.basename(file).replace(/\./g, '\\.')}\\.building-(\\d+)(?:${SIDE_FILES.join('|')})?$`);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(name.match(pattern)?.[1] ?? NaN);
    if (!Number.isInteger(pid) || (pid !== process.pid && isRunning(pid))) continue;
    fs.rmSync(path.join(dir, name), { force: true });
    removed.push(name);
  }
  return removed;
}

/** Deletes a build's file and whatever SQLite kept beside it. */
export function removeBuild(temporary: string): void {
  for (const suffix of ['', ...SIDE_FILES]) fs.rmSync(`${temporary}${suffix}`, { force: true });
}

function fsyncPath(target: string, flags: string): void {
  const fd = fs.openSync(target, flags);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Makes the closed, complete build `temporary` the store `file`: its pages reach the disk
 * first (the build never synced), then the rename (atomic) and the directory entry. Renamed
 * unsynced, a power cut could leave a research.db whose world_meta says 'ready' over pages
 * that were never written.
 */
export function installBuiltStore(temporary: string, file: string): void {
  fsyncPath(temporary, 'r');
  // A WAL or shared-memory file of an earlier store would be taken for this one's.
  for (const suffix of SIDE_FILES) fs.rmSync(`${file}${suffix}`, { force: true });
  fs.renameSync(temporary, file);
  removeBuild(temporary);
  if (process.platform !== 'win32') fsyncPath(path.dirname(file), 'r');
}
