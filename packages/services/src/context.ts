import type { KeyObject } from "node:crypto";
import type { AnyScope, ApiVersion, EventType } from "@crs/contract";
import type { Environment, IdKind, SanctionsEntry } from "@crs/core";
import type { Database, EnqueueOptions, Transaction } from "@crs/db";
import type { Sql } from "postgres";
import type { TraceProviders } from "./crypto/trace-providers";
import type { ArtifactStore } from "./packets/artifact-store";
import type { ResolveHostname } from "./webhooks/resolve-hostname";

/** The sanctions lists parties are screened against, loaded once when the process starts. */
export interface SanctionsLists {
  /** the synthetic list that ships with the service (every entry fictional) */
  sandbox: readonly SanctionsEntry[];
  /** the file named by SANCTIONS_LIST_PATH; null when none is configured, and live screening then finds nothing */
  live: { entries: readonly SanctionsEntry[]; source: string } | null;
}

/** The list an environment's parties are screened against. */
export function sanctionsListFor(lists: SanctionsLists, environment: Environment): readonly SanctionsEntry[] {
  return environment === "sandbox" ? lists.sandbox : (lists.live?.entries ?? []);
}

/** What every service function needs from the outside world; each process builds it once. */
export interface ServiceDeps {
  db: Database;
  /** the raw postgres.js client behind `db`, for cursors (streamed chain verification) */
  sql: Sql;
  clock: () => Date;
  newId: (kind: IdKind) => string;
  eventSigningKey: KeyObject;
  keySigningSecret: string;
  /** the origin REST clients use (sandbox-key base_url, download URLs, doc URLs) */
  publicBaseUrl: string;
  sanctionsLists: SanctionsLists;
  /** the AES-256 key (32 bytes) that encrypts webhook signing secrets at rest */
  webhookSecretKey: Buffer;
  /** how webhook target host names are resolved, at create time and at every delivery */
  resolveHostname: ResolveHostname;
  /** where export artifacts are kept; the Postgres store when not given */
  artifactStore?: ArtifactStore;
  /**
   * where traces run within a request read chain data (the 2026-06-11 analyses); default: the synthetic
   * chain for sandboxes and no live provider, as a worker without CHAIN_RPC_URL
   */
  traceProviders?: TraceProviders;
  /**
   * the most JSON the objects of one page of jobs or events may hold before the page stops short of its
   * limit; default LIST_PAGE_MAX_BYTES (pagination.ts)
   */
  listPageMaxBytes?: number;
}

/** The authenticated caller of one request, or the system acting for an organization (a worker task). */
export interface Actor {
  organizationId: string;
  environment: Environment;
  /** the key id, or `system:<task>` for work the service does on its own */
  keyId: string;
  scopes: ReadonlySet<AnyScope>;
  apiVersion: ApiVersion;
  /** recorded as audit_ref on the events the call appends */
  requestId: string;
}

/** What a read receives: the pooled handles, the caller, and the listener it called. */
export interface ReadContext extends ServiceDeps {
  actor: Actor;
  /** absent for a read the service makes on its own (a worker task): the current surface */
  surface?: Surface;
}

/** What an operation that needs no key receives: the caller only if a key was sent. */
export interface PublicContext extends ServiceDeps {
  actor: Actor | null;
  surface: Surface;
}

export type Surface = "current" | "legacy";

export interface RecordEventInput {
  type: EventType;
  /** the resource's id field, e.g. `matter_id` */
  idField: string;
  /** the resource's id, when the object carries none of its own (a judgment's validation is the judgment's) */
  resourceId?: string;
  /** the resource as the API returns it */
  object: { id?: string; status?: string } & Record<string, unknown>;
  matterId: string | null;
  extra?: Record<string, unknown>;
}

/**
 * What a write receives: its transaction and nothing pooled, so every read and write of the
 * operation is inside it. Events and jobs go through the same transaction: they exist if and
 * only if the write commits.
 */
export interface WriteContext {
  tx: Transaction;
  actor: Actor;
  clock: () => Date;
  newId: (kind: IdKind) => string;
  publicBaseUrl: string;
  /** the sanctions list of the actor's environment */
  sanctionsList: readonly SanctionsEntry[];
  webhookSecretKey: Buffer;
  resolveHostname: ResolveHostname;
  /** the event-signing key (exports publish its public half and check the chain with it) */
  eventSigningKey: KeyObject;
  artifactStore: ArtifactStore;
  /** where a trace run within the request reads chain data: the provider an asset map's job would read */
  traceProviders: TraceProviders;
  /**
   * Records one event for the actor's chain: it is signed and appended, with its webhook deliveries, when
   * the write's own work is done and before it commits (nothing of it exists if the write rolls back).
   */
  recordEvent(input: RecordEventInput): void;
  /** adds a graphile-worker job */
  enqueue(task: string, payload: unknown, options?: EnqueueOptions): Promise<{ id: string }>;
}
