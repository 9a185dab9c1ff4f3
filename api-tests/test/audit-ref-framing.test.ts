import { describe, expect, it } from "vitest";
import { jsonWithAuditRef } from "../../apps/rest/src/plumbing/register-operation";

/** What the framing means: the body with audit_ref set, keeping one it already has. */
const reference = (body: unknown, requestId: string) =>
  typeof body === "object" && body !== null && !Array.isArray(body)
    ? JSON.stringify({ ...body, audit_ref: (body as { audit_ref?: unknown }).audit_ref ?? requestId })
    : JSON.stringify(body);

describe("the audit_ref every REST body carries", () => {
  const requestId = 'req_01h"quoted\\';
  const bodies: [string, unknown][] = [
    ["an object", { object: "matter", id: "mat_1", name: "Acme v. Doe", economics: { currency: "USD" } }],
    ["an empty object", {}],
    ["an object with fields left undefined", { a: 1, b: undefined }],
    ["an object whose last field is undefined", { a: 1, b: undefined, c: undefined }],
    ["an object with only undefined fields", { a: undefined }],
    ["an event with its own audit_ref", { object: "event", audit_ref: "req_original", data: {} }],
    ["an object whose audit_ref is null", { object: "x", audit_ref: null, z: 2 }],
    ["a list", { object: "list", data: [{ id: "a" }], has_more: false }],
    ["an object with a toJSON", { toJSON: () => ({ replaced: true }), kept: 1 }],
    ["an array", [1, 2]],
    ["null", null],
  ];
  for (const [what, body] of bodies) {
    it(`is added to ${what} exactly as a copy of the object with the field set would be`, () => {
      const json = jsonWithAuditRef(body, requestId);
      expect(json).toBe(reference(body, requestId));
      expect(() => JSON.parse(json)).not.toThrow();
    });
  }

  it("is the request's own id unless the body carries one", () => {
    expect(JSON.parse(jsonWithAuditRef({ id: "mat_1" }, "req_2"))).toEqual({ id: "mat_1", audit_ref: "req_2" });
    expect(JSON.parse(jsonWithAuditRef({ audit_ref: "req_1" }, "req_2"))).toEqual({ audit_ref: "req_1" });
  });
});
