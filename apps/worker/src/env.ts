import { z } from "zod";

/** Unset and empty are the same: `FOO=` in a compose file must not mean "0". */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : value), schema);

const WorkerEnvSchema = z.object({
  DATABASE_URL: z.string({ error: "DATABASE_URL is required" }).min(1, "DATABASE_URL is required"),
  WORKER_CONCURRENCY: optional(z.coerce.number().int().min(1).max(100).default(5)),
  SKIP_MIGRATIONS: optional(z.enum(["0", "1"]).default("0")),
});

export interface WorkerEnv {
  databaseUrl: string;
  /** jobs run at once by this process */
  concurrency: number;
  /** SKIP_MIGRATIONS=1: another process (a deploy step) migrates the database */
  skipMigrations: boolean;
}

/** The worker's whole configuration, parsed once at startup. The only reader of process.env in this app. */
export function parseWorkerEnv(env: Record<string, string | undefined> = process.env): WorkerEnv {
  const parsed = WorkerEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid worker environment:\n${z.prettifyError(parsed.error)}`);
  }
  return {
    databaseUrl: parsed.data.DATABASE_URL,
    concurrency: parsed.data.WORKER_CONCURRENCY,
    skipMigrations: parsed.data.SKIP_MIGRATIONS === "1",
  };
}
