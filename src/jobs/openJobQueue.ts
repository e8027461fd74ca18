/**
 * The job queue of the state store's backend (jobQueue.ts describes the queue). Apart from the
 * interface so that the backends, which implement it, never import the module that picks them.
 */
import type { Clock } from '../lib/clock.js';
import type { StateStore } from '../store/database.js';
import type { JobQueue, JobQueueOptions } from './jobQueue.js';
import { PostgresJobQueue } from './postgresJobQueue.js';
import { SqliteJobQueue } from './sqliteJobQueue.js';

export function openJobQueue(state: StateStore, clock: Clock, options: JobQueueOptions = {}): JobQueue {
  return state.dialect === 'sqlite' ? new SqliteJobQueue(state, clock, options) : new PostgresJobQueue(state, clock, options);
}
