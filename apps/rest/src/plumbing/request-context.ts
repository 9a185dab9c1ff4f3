import type { ApiVersion } from "@crs/contract";
import type { Transaction } from "@crs/db";
import type { Actor, ServiceDeps, WriteResponse, WriteResult } from "@crs/services";

export interface RouteContext<Authenticated extends boolean = true> {
  deps: ServiceDeps;
  requestId: string;
  version: ApiVersion;
  actor: Authenticated extends true ? Actor : Actor | null;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  baseUrl: string;
  /** Runs a write in one transaction under the request's Idempotency-Key (DECISIONS §5). */
  write: (execute: (tx: Transaction) => Promise<WriteResult>) => Promise<WriteResponse>;
}

export type RouteReply = { status: number; body: unknown } | WriteResponse;
