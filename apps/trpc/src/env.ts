import { z } from "zod";

const Env = z.object({
  DATABASE_URL: z.string().min(1, "DATABASE_URL is required (pnpm start sets it for you)"),
  HOST: z.string().default("127.0.0.1"),
  TRPC_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
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
});
export type TrpcEnv = z.infer<typeof Env>;

export function parseTrpcEnv(source: NodeJS.ProcessEnv = process.env): TrpcEnv {
  const result = Env.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n  ");
    throw new Error(`Invalid environment:\n  ${problems}`);
  }
  return result.data;
}
