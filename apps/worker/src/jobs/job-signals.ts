import { JOB_CANCEL_CHANNEL } from "@crs/services";
import type { Sql } from "postgres";
import type { WorkerLogger } from "../logger";

/** Cancel signals for the runs of this process: a cancel's NOTIFY aborts the matching run at once. */
export interface JobSignals {
  /** calls `onCancel` when the job's run of this attempt is canceled; returns the unsubscribe */
  watch(jobId: string, attempt: number, onCancel: () => void): () => void;
  close(): Promise<void>;
}

/**
 * Listens on the cancel channel over a dedicated connection of the deps' client. A signal missed
 * (the connection dropped) is still caught by the run's lease renewal, which finds the row canceled.
 */
export async function listenForJobSignals(sql: Sql, logger: WorkerLogger): Promise<JobSignals> {
  const watchers = new Map<string, { attempt: number; onCancel: () => void }>();
  const listening = await sql.listen(JOB_CANCEL_CHANNEL, (payload) => {
    try {
      const signal = JSON.parse(payload) as { job_id?: unknown; attempt?: unknown };
      const watcher = typeof signal.job_id === "string" ? watchers.get(signal.job_id) : undefined;
      if (watcher && watcher.attempt === signal.attempt) watcher.onCancel();
    } catch (error) {
      logger.warn("ignored a malformed job cancel signal", { error: String(error) });
    }
  });
  return {
    watch(jobId, attempt, onCancel) {
      const entry = { attempt, onCancel };
      watchers.set(jobId, entry);
      return () => {
        if (watchers.get(jobId) === entry) watchers.delete(jobId);
      };
    },
    close: () => listening.unlisten(),
  };
}
