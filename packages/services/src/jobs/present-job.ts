import type { Job, TraceJobResult } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import type { schema } from "@crs/db";

export type JobRow = typeof schema.jobs.$inferSelect;

const stamp = (date: Date | null) => (date ? formatTimestamp(date) : null);

/** The job as the API returns it and its events carry it. */
export function presentJob(row: JobRow): Job {
  return {
    object: "job",
    id: row.id,
    job_id: row.id,
    type: row.type,
    status: row.status,
    input: row.input,
    // Written by the job type's executor; crypto.trace, the one type, returns a TraceJobResult (execute-job.ts).
    result: row.status === "succeeded" ? ((row.result as TraceJobResult | null) ?? null) : null,
    error: row.status === "failed" ? (row.error ?? null) : null,
    matter_id: row.matterId,
    attempts: row.attempts,
    livemode: row.environment === "live",
    created_at: formatTimestamp(row.createdAt),
    updated_at: formatTimestamp(row.updatedAt),
    started_at: stamp(row.startedAt),
    finished_at: stamp(row.finishedAt),
  };
}
