import type { z } from "zod";
import { ListQuery, listOf } from "./schemas/common";
import { ChainVerification, Event, ListEventsQuery } from "./schemas/events";
import { CloseMatterBody, CreateMatterBody, Matter, MatterDashboard, UpdateMatterBody } from "./schemas/matters";
import { Capabilities, Health, Organization, SandboxKey, SandboxKeyBody } from "./schemas/platform";
import type { AnyScope } from "./scopes";

/**
 * Every operation the service answers, with its scope and wire schemas. The REST routes take
 * their scope from here and the OpenAPI document is built from here, so docs and behaviour agree.
 */
export interface Operation {
  id: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** OpenAPI path template, e.g. /v1/matters/{matter_id} */
  path: string;
  /** `none`: no key needed; `any`: any valid key */
  scope: AnyScope | "none" | "any";
  tag: string;
  summary: string;
  successStatus: number;
  body?: z.ZodType;
  query?: z.ZodType;
  response: z.ZodType;
  /** takes an Idempotency-Key (every write that creates or changes a record; not key minting, whose key is shown once) */
  idempotent?: boolean;
  /** statuses this operation answers beyond the common ones, with why */
  alsoAnswers?: Record<number, { description: string; schema?: z.ZodType }>;
}

const MatterList = listOf(Matter, "MatterList");
const EventList = listOf(Event, "EventList");

export const OPERATIONS = {
  mintSandboxKey: {
    id: "mintSandboxKey",
    method: "POST",
    path: "/api/sandbox-key",
    scope: "none",
    tag: "Keys",
    summary: "Mint a sandbox key for a new sandbox organization (10 per minute per IP).",
    successStatus: 201,
    body: SandboxKeyBody,
    response: SandboxKey,
  },
  getHealth: {
    id: "getHealth",
    method: "GET",
    path: "/v1/health",
    scope: "none",
    tag: "Control plane",
    summary: "Service health. No key needed; a key, if sent, must be valid.",
    successStatus: 200,
    response: Health,
    alsoAnswers: {
      503: { description: "The database does not answer: the health object with status degraded", schema: Health },
    },
  },
  getCapabilities: {
    id: "getCapabilities",
    method: "GET",
    path: "/v1/capabilities",
    scope: "capabilities:read",
    tag: "Control plane",
    summary: "What this deployment offers, and the public key that verifies event signatures.",
    successStatus: 200,
    response: Capabilities,
  },
  getOrganization: {
    id: "getOrganization",
    method: "GET",
    path: "/v1/organization",
    scope: "any",
    tag: "Control plane",
    summary: "The organization of the calling key.",
    successStatus: 200,
    response: Organization,
  },
  createMatter: {
    id: "createMatter",
    method: "POST",
    path: "/v1/matters",
    scope: "matters:write",
    tag: "Matters",
    summary: "Create a matter.",
    successStatus: 201,
    body: CreateMatterBody,
    response: Matter,
    idempotent: true,
  },
  listMatters: {
    id: "listMatters",
    method: "GET",
    path: "/v1/matters",
    scope: "matters:read",
    tag: "Matters",
    summary: "List matters, most recent first.",
    successStatus: 200,
    query: ListQuery,
    response: MatterList,
  },
  retrieveMatter: {
    id: "retrieveMatter",
    method: "GET",
    path: "/v1/matters/{matter_id}",
    scope: "matters:read",
    tag: "Matters",
    summary: "Retrieve a matter.",
    successStatus: 200,
    response: Matter,
  },
  updateMatter: {
    id: "updateMatter",
    method: "PATCH",
    path: "/v1/matters/{matter_id}",
    scope: "matters:write",
    tag: "Matters",
    summary: "Update a matter's name, status (active or on_hold), counsel, economics, notes or retention policy.",
    successStatus: 200,
    body: UpdateMatterBody,
    response: Matter,
    idempotent: true,
  },
  retrieveMatterDashboard: {
    id: "retrieveMatterDashboard",
    method: "GET",
    path: "/v1/matters/{matter_id}/dashboard",
    scope: "matters:read",
    tag: "Matters",
    summary: "The matter's figures: judgment value, exposure, open work, alerts, recovery phase.",
    successStatus: 200,
    response: MatterDashboard,
  },
  closeMatter: {
    id: "closeMatter",
    method: "POST",
    path: "/v1/matters/{matter_id}/close",
    scope: "matters:write",
    tag: "Matters",
    summary: "Close a matter; afterwards it refuses writes to itself and its children.",
    successStatus: 200,
    body: CloseMatterBody,
    response: Matter,
    idempotent: true,
  },
  listEvents: {
    id: "listEvents",
    method: "GET",
    path: "/v1/events",
    scope: "events:read",
    tag: "Events",
    summary: "List events, most recent first.",
    successStatus: 200,
    query: ListEventsQuery,
    response: EventList,
  },
  verifyEventChain: {
    id: "verifyEventChain",
    method: "GET",
    path: "/v1/events/verify-chain",
    scope: "events:read",
    tag: "Events",
    summary: "Walk the whole event log, recompute every hash and signature, and report the first break.",
    successStatus: 200,
    response: ChainVerification,
  },
  retrieveEvent: {
    id: "retrieveEvent",
    method: "GET",
    path: "/v1/events/{event_id}",
    scope: "events:read",
    tag: "Events",
    summary: "Retrieve an event exactly as it was signed.",
    successStatus: 200,
    response: Event,
  },
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof OPERATIONS;
