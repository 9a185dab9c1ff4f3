import { z } from "zod";
import { Environment, Timestamp } from "./common";

export const Health = z
  .object({
    object: z.literal("health"),
    status: z.enum(["ok", "degraded"]),
    version: z.string(),
    environment: Environment,
    store: z.object({ kind: z.literal("postgres"), status: z.enum(["ok", "unavailable"]) }),
    timestamp: Timestamp,
  })
  .meta({ id: "Health" });
export type Health = z.infer<typeof Health>;

export const Capabilities = z
  .object({
    object: z.literal("capabilities"),
    capabilities: z.array(z.string()),
    modules: z.array(z.string()),
    environments: z.array(Environment),
    versions: z.array(z.string()),
    scopes: z.array(z.string()),
    notes: z.string(),
    event_signing_key: z.object({
      algorithm: z.literal("ed25519"),
      public_key: z.string().meta({ description: "raw 32-byte Ed25519 public key, lowercase hex" }),
      signature_input: z.string(),
    }),
  })
  .meta({ id: "Capabilities" });
export type Capabilities = z.infer<typeof Capabilities>;

export const Organization = z
  .object({
    object: z.literal("organization"),
    id: z.string(),
    organization_id: z.string(),
    name: z.string(),
    environment: Environment,
    plan: z.enum(["sandbox", "operator", "institutional"]),
    rate_limit: z.object({ per_second: z.number(), burst: z.number().int() }),
    api_version: z.string(),
    created_at: Timestamp,
    webhook_fallback_url: z.string().nullable(),
  })
  .meta({ id: "Organization" });
export type Organization = z.infer<typeof Organization>;

export const SandboxKeyBody = z.object({}).meta({ id: "SandboxKeyBody" });

export const SandboxKey = z
  .object({
    object: z.literal("sandbox_key"),
    key: z.string(),
    key_id: z.string(),
    organization_id: z.string(),
    environment: z.literal("sandbox"),
    scope: z.string(),
    base_url: z.string(),
    rate_limit: z.string(),
    note: z.string(),
    docs: z.string(),
  })
  .meta({ id: "SandboxKey" });
export type SandboxKey = z.infer<typeof SandboxKey>;
