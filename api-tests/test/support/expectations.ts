import { API_VERSIONS, docUrlFor, ERROR_CODES, type ErrorCode } from "@crs/contract";
import type postgres from "postgres";
import { expect } from "vitest";
import { z } from "zod";
import { PUBLIC_BASE_URL, type TestResponse } from "./test-app";

/** The one error envelope, strictly: nothing else at either level. */
export const ErrorEnvelope = z
  .object({
    error: z
      .object({
        type: z.string().min(1),
        code: z.string().min(1),
        message: z.string().min(1),
        param: z.string().optional(),
        details: z.record(z.string(), z.unknown()).optional(),
        doc_url: z.string().min(1),
        request_id: z.string(),
      })
      .strict(),
    audit_ref: z.string(),
  })
  .strict();
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

const InvalidField = z.object({ param: z.string(), message: z.string() });
export const ValidationDetails = z.object({
  missing: z.array(z.string()).optional(),
  invalid: z.array(InvalidField).optional(),
  allowed: z.array(z.unknown()).optional(),
});

const REQUEST_ID = /^req_[0-9a-z]{26}$/;

/** Svc-Request-Id, Svc-Version and the rate-limit pair: on every response. */
export function expectStandardHeaders(response: TestResponse): void {
  const requestId = response.headers.get("svc-request-id");
  expect(requestId, "Svc-Request-Id").toMatch(REQUEST_ID);
  expect(API_VERSIONS as readonly (string | null)[], "Svc-Version").toContain(response.headers.get("svc-version"));
  const limit = response.headers.get("svc-ratelimit-limit");
  const remaining = response.headers.get("svc-ratelimit-remaining");
  expect(limit, "Svc-RateLimit-Limit").toMatch(/^[1-9]\d*$/);
  expect(remaining, "Svc-RateLimit-Remaining").toMatch(/^\d+$/);
  expect(Number(remaining)).toBeLessThanOrEqual(Number(limit));
}

/**
 * Asserts status, code and the full envelope: audit_ref equal to the Svc-Request-Id header, and a
 * doc_url that is absolute, built from the listener's public base URL.
 */
export function expectError(response: TestResponse, status: number, code: ErrorCode): ErrorEnvelope {
  expect({ status: response.status, body: response.json }).toMatchObject({ status, body: { error: { code } } });
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const envelope = ErrorEnvelope.parse(response.json);
  expect(envelope.error.type).toBe(ERROR_CODES[code].type);
  expect(envelope.audit_ref).toBe(response.headers.get("svc-request-id"));
  expect(envelope.error.request_id).toBe(envelope.audit_ref);
  // Each listener builds it from its own public origin (the legacy listener's /docs leads to the reference).
  expect(envelope.error.doc_url).toBe(docUrlFor(code, response.publicBaseUrl ?? PUBLIC_BASE_URL));
  return envelope;
}

/** A success body carries audit_ref equal to its Svc-Request-Id. */
export function expectAuditRef(response: TestResponse): string {
  const body = record(response.json);
  expect(body.audit_ref).toBe(response.headers.get("svc-request-id"));
  expect(body.audit_ref).toMatch(REQUEST_ID);
  return String(body.audit_ref);
}

export function record(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`expected a JSON object, got ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

/** The body without its top-level audit_ref: what an event's data.object must equal. */
export function withoutAuditRef(value: unknown): Record<string, unknown> {
  const { audit_ref: _auditRef, ...rest } = record(value);
  return rest;
}

export const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export async function countEvents(sql: postgres.Sql, organizationId: string, type?: string): Promise<number> {
  const [row] = type
    ? await sql<
        { n: number }[]
      >`select count(*)::int as n from events where organization_id = ${organizationId} and type = ${type}`
    : await sql<{ n: number }[]>`select count(*)::int as n from events where organization_id = ${organizationId}`;
  return row?.n ?? 0;
}

export async function countMatters(sql: postgres.Sql, organizationId: string, status?: string): Promise<number> {
  const [row] = status
    ? await sql<
        { n: number }[]
      >`select count(*)::int as n from matters where organization_id = ${organizationId} and status = ${status}`
    : await sql<{ n: number }[]>`select count(*)::int as n from matters where organization_id = ${organizationId}`;
  return row?.n ?? 0;
}

export async function countIdempotencyRecords(sql: postgres.Sql, organizationId: string): Promise<number> {
  const [row] = await sql<
    { n: number }[]
  >`select count(*)::int as n from idempotency_records where organization_id = ${organizationId}`;
  return row?.n ?? 0;
}

/** Rows of a tenant table belonging to one organization. */
export async function countRows(sql: postgres.Sql, table: string, organizationId: string): Promise<number> {
  const [row] = await sql<
    { n: number }[]
  >`select count(*)::int as n from ${sql(table)} where organization_id = ${organizationId}`;
  return row?.n ?? 0;
}
