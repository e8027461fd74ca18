/**
 * GET /downloads/:jobId — the export download behind a signed `downloadURL`. It lives
 * outside /v3 and takes no API key: the URL's signature is the authorisation (it is
 * opened by browsers and mail clients). Answers:
 * - 200 the CSV, streamed from where exports live (disk or PostgreSQL, openExportFiles)
 *   (`text/csv`, `Content-Disposition: attachment`);
 * - 410 when the link or the export has expired (the signature was valid);
 * - 404 when the signature is missing, bad or tampered with, or the export is unknown —
 *   the same answer for all three, so a guessed URL learns nothing.
 *
 * @example
 * await app.register(downloadRoutes, { queue, signer, files: openExportFiles(state, config.dataDir), clock });
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ApiError } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';
import type { UrlSigner } from '../lib/signedUrl.js';
import { downloadPath, EXPORT_JOB_KIND, exportExpiresMs, exportFileName } from './exportJobs.js';
import type { ExportFiles } from './exportFiles.js';
import type { JobQueue } from './jobQueue.js';

export interface DownloadRoutesOptions {
  queue: JobQueue;
  signer: UrlSigner;
  /** Where the exports are (openExportFiles): the same answers whichever it is. */
  files: ExportFiles;
  clock: Clock;
}

const notFound = () => new ApiError(404, 'Error', 'Download not found');
const expired = () => new ApiError(410, 'Expired', 'This download link has expired; exports are kept for 60 days');

function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.statusCode).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(error.body()));
}

export async function downloadRoutes(app: FastifyInstance, options: DownloadRoutesOptions): Promise<void> {
  const { queue, signer, files, clock } = options;

  // HEAD is declared rather than derived from GET, whose derived form would read the
  // whole file only to discard it.
  app.route<{ Params: { jobId: string } }>({
    method: ['GET', 'HEAD'],
    url: '/downloads/:jobId',
    schema: { hide: true },
    handler: async (req, reply) => {
      const now = clock.now();
      const check = signer.verify(req.url, now);
      if (check.status === 'bad-signature' || check.path !== downloadPath(req.params.jobId)) return sendError(reply, notFound());
      const job = await queue.byId(req.params.jobId);
      if (!job || job.kind !== EXPORT_JOB_KIND) return sendError(reply, notFound());
      if (check.status === 'expired' || job.state === 'expired') return sendError(reply, expired());
      const expiresMs = exportExpiresMs(job);
      if (expiresMs === null) return sendError(reply, notFound());
      if (now >= expiresMs) return sendError(reply, expired());

      const file = await files.open(exportFileName(job.id));
      // The sweep removed the file a moment before it marked the job expired.
      if (!file) return sendError(reply, expired());
      reply
        .code(200)
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="backlinks-${job.id}.csv"`)
        .header('content-length', String(file.size))
        .header('cache-control', 'private, no-store');
      if (req.method === 'HEAD') {
        await file.close();
        return reply.send();
      }
      return reply.send(file.stream());
    },
  });
}
