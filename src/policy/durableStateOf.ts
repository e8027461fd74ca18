/**
 * The durable policy state on the state store's backend (durableState.ts describes it). Apart
 * from the seam so that the backends, which implement it, never import the module that picks them.
 */
import type { StateStore } from '../store/database.js';
import type { DurablePolicyState } from './durableState.js';
import { PostgresDurableState } from './postgres/durableState.js';
import { SqliteDurableState } from './sqlite/durableState.js';

export function durableStateOf(state: StateStore): DurablePolicyState {
  return state.dialect === 'sqlite' ? new SqliteDurableState(state.raw) : new PostgresDurableState(state.db);
}
