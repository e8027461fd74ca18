/**
 * State store migration 0018: lookups whose key has several parts (gap analysis, competitor
 * keywords) joined them with U+0000, which a PostgreSQL text column cannot hold; they now use
 * U+001F (policy/policyStore.ts lookupKey). Lookups still running are rewritten, so a repeat
 * within their 24 hours is still recognised (and not charged again) after the upgrade. Done
 * in JavaScript: SQLite's string functions are not defined on text holding U+0000.
 */
import type { Kysely, Migration } from 'kysely';

export const lookupKeySeparatorMigrations: Record<string, Migration> = {
  '0018_lookup_key_separator': {
    async up(db: Kysely<any>) {
      const rows = (await db.selectFrom('lookups').select(['account_id', 'kind', 'lookup_key']).execute()) as {
        account_id: string;
        kind: string;
        lookup_key: string;
      }[];
      for (const row of rows.filter((r) => r.lookup_key.includes('\u0000'))) {
        await db
          .updateTable('lookups')
          .set({ lookup_key: row.lookup_key.replaceAll('\u0000', '\u001f') })
          .where('account_id', '=', row.account_id)
          .where('kind', '=', row.kind)
          .where('lookup_key', '=', row.lookup_key)
          .execute();
      }
    },
  },
};
