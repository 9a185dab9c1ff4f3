import { sql } from "drizzle-orm";
import type { Transaction } from "./client";

export interface EnqueueOptions {
  /** run no earlier than this */
  runAt?: Date;
  /** graphile-worker's attempts before the job is left failed (its default is 25) */
  maxAttempts?: number;
  /** at most one pending job per key (graphile-worker job_key, mode `replace`) */
  jobKey?: string;
  /** jobs of one named queue run one at a time, in order */
  queueName?: string;
  priority?: number;
}

/**
 * Adds a graphile-worker job in the caller's transaction: the job exists if and only if the write
 * that enqueued it commits, and workers hear of it (NOTIFY) at that commit.
 */
export async function enqueueJob(
  tx: Transaction,
  task: string,
  payload: unknown,
  options: EnqueueOptions = {},
): Promise<{ id: string }> {
  const [job] = await tx.execute<{ id: string }>(sql`
    select id::text as id from graphile_worker.add_job(
      ${task},
      ${JSON.stringify(payload ?? {})}::json,
      queue_name => ${options.queueName ?? null}::text,
      run_at => ${options.runAt?.toISOString() ?? null}::timestamptz,
      max_attempts => ${options.maxAttempts ?? null}::int,
      job_key => ${options.jobKey ?? null}::text,
      priority => ${options.priority ?? null}::int)`);
  if (!job) throw new Error(`graphile_worker.add_job returned no job for ${task}`);
  return job;
}
