import type { Actor } from "./context";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** What one request's log line says, the same on REST and tRPC (snake_case, like the API). */
export interface RequestLogFields {
  request_id: string;
  surface: "rest" | "trpc" | "legacy";
  method: string;
  /** the route template (`/v1/matters/{matter_id}`) or tRPC procedure names; null when nothing matched */
  route: string | null;
  status: number;
  duration_ms: number;
  organization_id: string | null;
  environment: string | null;
  key_id: string | null;
}

export function requestLogFields(request: {
  requestId: string;
  surface: "rest" | "trpc" | "legacy";
  method: string;
  route: string | null;
  status: number;
  durationMs: number;
  actor: Actor | null | undefined;
}): RequestLogFields {
  return {
    request_id: request.requestId,
    surface: request.surface,
    method: request.method,
    route: request.route,
    status: request.status,
    duration_ms: Math.round(request.durationMs * 100) / 100,
    organization_id: request.actor?.organizationId ?? null,
    environment: request.actor?.environment ?? null,
    key_id: request.actor?.keyId ?? null,
  };
}
