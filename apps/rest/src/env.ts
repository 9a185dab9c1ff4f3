import { z } from "zod";

const Port = z.coerce.number().int().min(0).max(65535);

const Env = z.object({
  DATABASE_URL: z.string().min(1, "DATABASE_URL is required (pnpm start sets it for you)"),
  HOST: z.string().default("127.0.0.1"),
  REST_PORT: Port.default(3000),
  LEGACY_PORT: Port.default(3002),
  PUBLIC_BASE_URL: z.string().url().optional(),
  APP_ENV: z.enum(["development", "production"]).default("development"),
  DATA_DIR: z.string().default(".data"),
  KEY_SIGNING_SECRET: z.string().min(32).optional(),
  EVENT_SIGNING_SEED: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "64 lowercase hex characters")
    .optional(),
  WEBHOOK_SECRET_KEY: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "64 lowercase hex characters")
    .optional(),
  SKIP_MIGRATIONS: z.enum(["0", "1"]).default("0"),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).default(10),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});
export type RestEnv = z.infer<typeof Env>;

/** The REST app's whole configuration, parsed once at start. */
export function parseRestEnv(source: NodeJS.ProcessEnv = process.env): RestEnv {
  const result = Env.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n  ");
    throw new Error(`Invalid environment:\n  ${problems}`);
  }
  return result.data;
}
