/**
 * The roles of a Quarry process: `api` answers HTTP, `worker` runs background jobs
 * (backlink exports), `scheduler` runs the daily rank checks and e-mail reports. `quarry
 * serve` runs all three by default (the single-process setup); `--roles` picks some, and
 * `quarry worker` / `quarry scheduler` run one each, so they can be placed apart.
 */
import { InvalidArgumentError } from 'commander';

export const ROLES = ['api', 'worker', 'scheduler'] as const;
export type Role = (typeof ROLES)[number];

/** `api,worker` → the set of roles; anything else is refused with the valid names. */
export function parseRoles(text: string): ReadonlySet<Role> {
  const names = text.split(',').map((name) => name.trim().toLowerCase());
  const roles = new Set<Role>();
  for (const name of names) {
    if (!(ROLES as readonly string[]).includes(name)) {
      throw new InvalidArgumentError(`roles are a comma-separated list of ${ROLES.join(', ')} (got ${JSON.stringify(name)})`);
    }
    roles.add(name as Role);
  }
  return roles;
}

export const ALL_ROLES: ReadonlySet<Role> = new Set(ROLES);
