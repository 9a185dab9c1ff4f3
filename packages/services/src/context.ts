import type { KeyObject } from "node:crypto";
import type { AnyScope, ApiVersion } from "@crs/contract";
import type { Environment, IdKind } from "@crs/core";
import type { Database } from "@crs/db";
import type { Sql } from "postgres";

/** What every service function needs from the outside world; apps build it once. */
export interface ServiceDeps {
  db: Database;
  /** the raw postgres.js client behind `db`, for cursors (streamed chain verification) */
  sql: Sql;
  clock: () => Date;
  newId: (kind: IdKind) => string;
  eventSigningKey: KeyObject;
  keySigningSecret: string;
}

/** The authenticated caller of one request. */
export interface Actor {
  organizationId: string;
  environment: Environment;
  keyId: string;
  scopes: ReadonlySet<AnyScope>;
  apiVersion: ApiVersion;
  requestId: string;
}
