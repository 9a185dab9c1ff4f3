/**
 * The job plane's rules: the types a caller may dispatch, the states of a job, which of them are
 * terminal, and the retry schedule. Pure: the worker and the services apply them.
 */

/** The job types the API accepts; anything else is refused with this list. */
export const JOB_TYPES = ["crypto.trace"] as const;
export type JobType = (typeof JOB_TYPES)[number];

export const JOB_STATUSES = ["queued", "running", "succeeded", "failed", "canceled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_JOB_STATUSES: ReadonlySet<JobStatus> = new Set(["succeeded", "failed", "canceled"]);

export function isTerminalJobStatus(status: JobStatus): boolean {
  return TERMINAL_JOB_STATUSES.has(status);
}

/** Runs of one job, the first included: a failing run is retried until this many have failed. */
export const JOB_MAX_ATTEMPTS = 3;

/** The wait before run n+1 after run n failed (n = 1, 2, …): base · 4^(n−1), so 5 s then 20 s by default. */
export function jobRetryDelayMs(failedAttempt: number, baseMs = 5_000): number {
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) throw new RangeError("failedAttempt must be 1 or more");
  return baseMs * 4 ** (failedAttempt - 1);
}

/** What a failed job reports: a stable code, a message for people, and whether sending it again may help. */
export interface JobError {
  code: string;
  message: string;
  retryable: boolean;
}

/**
 * After a run failed with `error`: retry when the error is retryable and runs remain, otherwise the
 * job ends `failed`.
 */
export function afterFailedRun(
  attempts: number,
  error: JobError,
  maxAttempts = JOB_MAX_ATTEMPTS,
): { next: "retry"; delayAttempt: number } | { next: "failed" } {
  return error.retryable && attempts < maxAttempts ? { next: "retry", delayAttempt: attempts } : { next: "failed" };
}
