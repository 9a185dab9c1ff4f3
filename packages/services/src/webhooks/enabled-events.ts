import { type ApiVersion, EVENT_TYPES } from "@crs/contract";
import { ALL_WEBHOOK_EVENTS, normalizeEnabledEvents } from "@crs/core";

export interface InvalidField {
  param: string;
  message: string;
}

/**
 * An `enabled_events` input as stored: omitted is `["*"]`, a list holding `*` is `["*"]`, and a former name
 * the caller's version accepts (`judgment.intaken` on 2026-06-11) is stored as its current name. Unknown
 * names are all reported at once.
 */
export function readEnabledEvents(
  input: readonly string[] | undefined,
  apiVersion: ApiVersion,
): { ok: true; enabledEvents: string[] } | { ok: false; invalid: InvalidField; unknown: string[] } {
  const normalized = normalizeEnabledEvents(input, apiVersion, EVENT_TYPES);
  if (normalized.ok) return normalized;
  if (normalized.reason === "empty") {
    return {
      ok: false,
      invalid: { param: "enabled_events", message: `must list at least one event type, or "${ALL_WEBHOOK_EVENTS}"` },
      unknown: [],
    };
  }
  return {
    ok: false,
    invalid: {
      param: "enabled_events",
      message: `unknown event type${normalized.unknown.length > 1 ? "s" : ""}: ${normalized.unknown.join(", ")}`,
    },
    unknown: normalized.unknown,
  };
}
