/** Request histories on SQLite: each tool's last N entries per account, in the tool's order. */
import type SqliteDatabase from 'better-sqlite3';
import { HISTORY_TOOLS, type HistoryWrite } from '../history.js';

export class SqliteHistories {
  private readonly insert;
  private readonly cap;
  private readonly asc;
  private readonly desc;

  constructor(db: SqliteDatabase.Database) {
    this.insert = db.prepare('INSERT INTO history (account_id, tool, entry, created_ms) VALUES (?, ?, ?, ?)');
    this.cap = db.prepare(
      `DELETE FROM history WHERE account_id = ? AND tool = ? AND seq <= (
         SELECT seq FROM history WHERE account_id = ? AND tool = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
    );
    this.asc = db.prepare<[string, string], { entry: string }>('SELECT entry FROM history WHERE account_id = ? AND tool = ? ORDER BY seq ASC');
    this.desc = db.prepare<[string, string], { entry: string }>('SELECT entry FROM history WHERE account_id = ? AND tool = ? ORDER BY seq DESC');
  }

  append(accountId: string, h: HistoryWrite, nowMs: number): void {
    this.insert.run(accountId, h.tool, JSON.stringify(h.entry), nowMs);
    this.cap.run(accountId, h.tool, accountId, h.tool, HISTORY_TOOLS[h.tool].cap);
  }

  list(accountId: string, tool: HistoryWrite['tool']): unknown[] {
    const stmt = HISTORY_TOOLS[tool].order === 'oldest-first' ? this.asc : this.desc;
    return stmt.all(accountId, tool).map((row) => JSON.parse(row.entry));
  }
}
