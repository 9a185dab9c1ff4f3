import { z } from "zod";
import { defineOperation } from "../operation";
import { Environment, Timestamp } from "../schemas/common";

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
    sanctions_screening: z
      .object({
        sandbox: z.object({ list: z.literal("synthetic"), entries: z.number().int() }),
        live: z.object({
          configured: z
            .boolean()
            .meta({ description: "false: no list is configured and live screening finds nothing" }),
          entries: z.number().int(),
        }),
        notes: z.string(),
      })
      .meta({ description: "what parties' names, wallets and identifiers are screened against, per environment" }),
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

export const SandboxKeyBody = z.object({}).meta({ id: "SandboxKeyBody", example: {} });

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

export const platformOperations = {
  mintSandboxKey: defineOperation({
    id: "mintSandboxKey",
    method: "POST",
    path: "/api/sandbox-key",
    rpc: false,
    scope: "none",
    tag: "Keys",
    summary: "Mint a sandbox key for a new sandbox organization (10 per minute per IP).",
    successStatus: 201,
    body: SandboxKeyBody,
    response: SandboxKey,
    // A replay would have to show the minted key a second time: each call mints.
    idempotent: false,
    events: [],
    rateLimit: "sandbox-key-mint",
  }),
  health: defineOperation({
    id: "getHealth",
    outlivesLegacyWindow: true,
    method: "GET",
    path: "/v1/health",
    scope: "none",
    tag: "Control plane",
    summary: "Service health. No key needed; a key, if sent, must be valid.",
    successStatus: 200,
    statusOf: (health: Health) => (health.status === "ok" ? 200 : 503),
    response: Health,
    idempotent: false,
    events: [],
    alsoAnswers: {
      503: { description: "The database does not answer: the health object with status degraded", schema: Health },
    },
  }),
  capabilities: defineOperation({
    id: "getCapabilities",
    method: "GET",
    path: "/v1/capabilities",
    scope: "capabilities:read",
    tag: "Control plane",
    summary: "What this deployment offers, and the public key that verifies event signatures.",
    successStatus: 200,
    response: Capabilities,
    idempotent: false,
    events: [],
  }),
  organization: defineOperation({
    id: "getOrganization",
    method: "GET",
    path: "/v1/organization",
    scope: "any",
    tag: "Control plane",
    summary: "The organization of the calling key.",
    successStatus: 200,
    response: Organization,
    idempotent: false,
    events: [],
  }),
};
