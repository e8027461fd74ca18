/**
 * State store migration 0050: AI answer monitoring (the /answer-tool family, issue 25).
 *
 * - `answer_monitors`: a brand and its domain watched in AI answers for one location,
 *   language and platform, with the models asked and the settings of its reports; deleted
 *   ones stay (collection stopped, history readable) until purged.
 * - `answer_prompts`: the questions a monitor asks, each once per monitor.
 * - `answer_results`: one result per (prompt, model, UTC day): the answer it got (a reference
 *   to `answer_texts`) or why it failed, and what the monitor found in it.
 * - `answer_texts`: the answers bought from a model, one per (model, prompt, location,
 *   language, day) whoever asked: every account and process reads the same row. A row in
 *   state `buying` is a claim on the purchase, so two processes never pay for one answer.
 * - `answer_report_deliveries`: the periods a monitor's e-mail report was sent for.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export const answerMonitoringMigrations: Record<string, Migration> = {
  '0050_answer_monitoring': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('answer_monitors')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('brand', 'text', (c) => c.notNull())
        .addColumn('brand_variations', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('location_id', 'integer', (c) => c.notNull())
        .addColumn('language_id', 'integer', (c) => c.notNull())
        .addColumn('platform_id', 'integer', (c) => c.notNull())
        .addColumn('models', 'text', (c) => c.notNull())
        .addColumn('reports_active', 'text', (c) => c.notNull())
        .addColumn('display', 'text', (c) => c.notNull())
        .addColumn('status_notifications', 'integer', (c) => c.notNull())
        .addColumn('share_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .addColumn('is_deleted', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('deleted_at', 'integer')
        .addColumn('pending_changes', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_check_ms', 'integer')
        .addColumn('last_check_failed', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('answer_monitors_account').on('answer_monitors').columns(['account_id', 'created_at']).execute();
      await db.schema.createIndex('answer_monitors_deleted').on('answer_monitors').columns(['deleted_at']).where(sql.ref('is_deleted'), '=', 1).execute();
      await db.schema
        .createTable('answer_prompts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('monitor_id', 'text', (c) => c.notNull().references('answer_monitors.id').onDelete('cascade'))
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('prompt', 'text', (c) => c.notNull())
        .addColumn('prompt_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('answer_prompts_monitor_key').on('answer_prompts').columns(['monitor_id', 'prompt_key']).unique().execute();
      await db.schema.createIndex('answer_prompts_account').on('answer_prompts').columns(['account_id']).execute();
      await db.schema
        .createTable('answer_results')
        .addColumn('prompt_id', 'text', (c) => c.notNull().references('answer_prompts.id').onDelete('cascade'))
        .addColumn('monitor_id', 'text', (c) => c.notNull())
        .addColumn('model_id', 'integer', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('answer_model', 'text')
        .addColumn('answer_query', 'text')
        .addColumn('analysis', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('checked_ms', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('answer_results_pk', ['prompt_id', 'model_id', 'day'])
        .execute();
      await db.schema.createIndex('answer_results_monitor_day').on('answer_results').columns(['monitor_id', 'day']).execute();
      await db.schema
        .createTable('answer_texts')
        .addColumn('model_key', 'text', (c) => c.notNull())
        .addColumn('query_key', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('body', 'text')
        .addColumn('claimed_ms', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('answer_texts_pk', ['model_key', 'query_key', 'day'])
        .execute();
      await db.schema.createIndex('answer_texts_day').on('answer_texts').columns(['day']).execute();
      await db.schema
        .createTable('answer_report_deliveries')
        .addColumn('monitor_id', 'text', (c) => c.notNull().references('answer_monitors.id').onDelete('cascade'))
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('period_start', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('claimed_ms', 'integer', (c) => c.notNull())
        .addColumn('sent_ms', 'integer')
        .addColumn('message_id', 'text')
        .addColumn('error', 'text')
        .addPrimaryKeyConstraint('answer_report_deliveries_pk', ['monitor_id', 'type', 'period_start'])
        .execute();
    },
  },
};
