import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { parseBasicAuth } from '@loupe/auth';
import { JOB_POLICY } from '@loupe/jobs';
import { openDashboardQueues } from '@loupe/queue';
import type { NextFunction, Request, Response } from 'express';
import { timingSafeEqual } from 'node:crypto';

export const ADMIN_QUEUES_PATH = '/admin/queues';

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What each queue's concurrency rule is, shown beside it on the board. */
function limitOf(kind: string): string {
  const cls = JOB_POLICY.classOf(kind);
  return cls === 'write'
    ? `write job: ${JOB_POLICY.limit(cls)} at a time per account, the rest wait in arrival order`
    : `read job: ${JOB_POLICY.limit(cls)} at a time per account and service, the rest wait in arrival order`;
}

/**
 * bull-board over the BullMQ queues, behind its own Basic credentials (ADMIN_USER / ADMIN_PASSWORD): queue
 * administration can retry and delete jobs, which no customer account may do.
 */
export function adminQueuesRouter(opts: { redisUrl: string; prefix: string; kinds: readonly string[]; user: string; password: string }) {
  const { queues, close } = openDashboardQueues({ redisUrl: opts.redisUrl, prefix: opts.prefix, kinds: opts.kinds });
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
  createBullBoard({
    queues: queues.map((queue) => new BullMQAdapter(queue, { description: limitOf(queue.name) })),
    serverAdapter,
  });
  const guard = (req: Request, res: Response, next: NextFunction) => {
    const credentials = parseBasicAuth(req.headers.authorization);
    if (credentials && sameText(credentials.username, opts.user) && sameText(credentials.password, opts.password)) return next();
    res.status(401).set('www-authenticate', 'Basic realm="Loupe admin", charset="UTF-8"').send('Admin credentials required.');
  };
  return { guard, router: serverAdapter.getRouter(), close };
}
