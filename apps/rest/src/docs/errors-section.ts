import { DOC_BASE_URL, docUrlFor, ERROR_CODES, type ErrorCode } from "@crs/contract";

/** When each code happens. Typed by ErrorCode, so a new code cannot go undocumented. */
const WHEN: Record<ErrorCode, string> = {
  invalid_request:
    "**400** when the request itself is unusable: unparseable JSON, a bad query parameter (e.g. `limit` outside 1..100), an unknown `Svc-Version`. " +
    "**422** when the body parses but fails validation: missing required fields (`details.missing` lists every one, and the message names them), wrong types, an invalid enum value (`details.allowed` lists the values), negative amounts, `share` outside 0..1. `param` names the first offending field.",
  unauthenticated: "The `Authorization: Bearer` key is missing, malformed, forged or revoked.",
  insufficient_scope: "The key is valid but lacks the scope the operation needs (each operation lists its `x-scope`).",
  not_found:
    "Unknown id, or an id that belongs to another organization or environment (those are indistinguishable from unknown ids). Also an unrecognized URL.",
  conflict:
    "An `Idempotency-Key` reused with a different body, or whose first request is still in flight; a write to a closed matter; a remittance above what is available.",
  authority_required:
    "A legal-process packet or enforcement write on a matter without granted authority (legacy 2026-06-11 keys get 403 instead).",
  sanctions_gate:
    "A sanctions hit on the matter blocks ordinary collection (remittances, non-sanctions packets) pending review.",
  stay_in_effect: "An appeal stay or bankruptcy stay on the judgment blocks enforcement writes.",
  endpoint_retired: "A legacy operation called after its sunset date; the body's `doc_url` points at the replacement.",
  rate_limited: "The key's organization exceeded its rate limit. `Retry-After` gives the wait in whole seconds.",
  internal_error:
    "Anything unexpected. The body never contains stack traces or SQL; quote `request_id` when reporting it.",
};

/** The fragment a code's `doc_url` points at, e.g. `errors-invalid-request`. */
export function errorAnchor(code: ErrorCode): string {
  const url = docUrlFor(code);
  return url.slice(url.indexOf("#") + 1);
}

/** Scalar's slug of each Errors heading (the code itself, and "errors") mapped to the anchor `doc_url` uses. */
export function errorHeadingAnchors(): Record<string, string> {
  const anchors: Record<string, string> = { errors: DOC_BASE_URL.slice(DOC_BASE_URL.indexOf("#") + 1) };
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) anchors[code] = errorAnchor(code);
  return anchors;
}

/** The markdown paragraph saying when `code` happens. */
export function errorCircumstances(code: ErrorCode): string {
  return WHEN[code];
}

export function statusesOf(code: ErrorCode): string {
  return code === "invalid_request" ? "400 or 422" : String(ERROR_CODES[code].status);
}

/** The markdown "## Errors" section of the reference page: one heading per code, anchored where `doc_url` points. */
export function errorsMarkdown(publicBaseUrl = ""): string {
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];
  const lines = [
    "## Errors",
    "",
    "Every error response has the same body:",
    "",
    "```json",
    JSON.stringify(
      {
        error: {
          type: ERROR_CODES.not_found.type,
          code: "not_found",
          message: "No such matter: 'matter_…'.",
          doc_url: docUrlFor("not_found", publicBaseUrl),
          request_id: "req_…",
        },
        audit_ref: "req_…",
      },
      null,
      2,
    ),
    "```",
    "",
    "`param` (the offending field) and `details` (e.g. `missing`, `allowed`) appear only when they apply. `doc_url` points at the code's entry below. `request_id` and `audit_ref` match the `Svc-Request-Id` response header.",
    "Bad input never yields a 5xx and never half-writes: a failed request changes nothing.",
    "",
    "| status | code | type |",
    "|---|---|---|",
    ...codes.map(
      (code) => `| ${statusesOf(code)} | [\`${code}\`](#${errorAnchor(code)}) | \`${ERROR_CODES[code].type}\` |`,
    ),
    "",
  ];
  for (const code of codes) {
    lines.push(
      `### ${code}`,
      "",
      `Status **${statusesOf(code)}**, type \`${ERROR_CODES[code].type}\`.`,
      "",
      WHEN[code],
      "",
    );
  }
  return lines.join("\n");
}
