/**
 * `quarry answers check [--monitor ID]`: runs a round of answer checks now (every live
 * monitor, or one) and exits when it is done: what the scheduler does daily, on demand.
 */
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { closeContext, createContext } from '../service.js';
import { BACKGROUND_BUSY_TIMEOUT_MS } from '../store/database.js';

/** An operator's mistake on the command line: one line, exit code 2. */
export class AnswerCommandError extends Error {}

export function answersCommand(): Command {
  const answers = new Command('answers').description('AI answer monitoring');
  answers
    .command('check')
    .option('--monitor <id>', 'check this monitor only')
    .description('ask every due prompt of every live monitor (or one) of each of its models now, and exit when done')
    .action(async (opts: { monitor?: string }) => {
      // Loaded only here, as `serve` is: the other operator commands start without the answer models.
      const { answerServices } = await import('../answers/answerService.js');
      const ctx = await createContext(loadConfig(), { busyTimeoutMs: BACKGROUND_BUSY_TIMEOUT_MS });
      try {
        const services = answerServices(ctx);
        if (opts.monitor !== undefined && !(await services.store.live()).some((m) => m.id === opts.monitor)) {
          throw new AnswerCommandError(`no live monitor ${opts.monitor}`);
        }
        const started = Date.now();
        const result = await services.checks.runDue(ctx.clock.now(), opts.monitor);
        console.log(
          `checked ${result.monitors} monitor(s) in ${((Date.now() - started) / 1000).toFixed(1)} s: ${result.answered} answer(s) recorded, ${result.failed} failed`,
        );
      } finally {
        await closeContext(ctx);
      }
    });
  return answers;
}
