import { AsyncLocalStorage } from "node:async_hooks";
import type { Actor } from "@crs/services";
import type { Logger } from "pino";

/** What every answer of one HTTP request needs, even one refused before tRPC builds a context. */
export interface RequestScope {
  requestId: string;
  publicBaseUrl: string;
  /** the caller, once a procedure has admitted it (for the request's log line) */
  actor?: Actor | null;
  /** the server's JSON logger, bound to this request's id */
  logger: Logger;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();
