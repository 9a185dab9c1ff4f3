import { AppError, type ErrorCode } from "./errors";

/**
 * The 2026-06-11 surface, served on a listener of its own (`LEGACY_PORT`) to `svc_legacy_test_` keys
 * during a compatibility window: every operation of the current surface, answered in its 2026-06-11
 * form, on the same records; and the version's own groups (LEGACY_OPERATION_GROUPS), each operation
 * naming the current-surface operation (or part of the reference) that replaces it.
 */

/** When 2026-06-11 was deprecated: the day 2026-07-05 was released (the `Deprecation` header). */
export const LEGACY_DEPRECATED_AT = "2026-07-05T00:00:00Z";
/** The window's default end; `LEGACY_SUNSET` moves it. From then on every legacy route answers 410. */
export const DEFAULT_LEGACY_SUNSET = "2026-10-03T00:00:00Z";

/** Statuses the legacy listener answers instead of the current ones: its gates refuse with 403. */
const LEGACY_STATUSES: Partial<Record<ErrorCode, number>> = { authority_required: 403, sanctions_gate: 403 };

/**
 * An error as the legacy listener answers it. Like a response shape, the status follows the caller:
 * a stored answer (an Idempotency-Key) keeps the current one and is answered in either form.
 */
export function asLegacyError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  const status = LEGACY_STATUSES[error.code];
  return status === undefined || status === error.status ? error : error.withStatus(status);
}

/** The successor of the groups the planned job verbs replace (claw, actions, monitoring, network attribution). */
export const JOB_VERBS_SUCCESSOR = {
  tag: "Jobs",
  note: "Replaced by the planned job verbs (POST /v1/jobs); no one-to-one operation yet.",
} as const;
