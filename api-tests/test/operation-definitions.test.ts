/** What `defineOperation` and `listOperations` refuse where a definition is written, before any surface serves it. */
import { defineOperation, listOperations, type OperationDefinition } from "@crs/contract";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const legacyRead = {
  id: "legacyProbe",
  method: "GET",
  path: "/v1/probes",
  scope: "debtors:read",
  tag: "Debtors",
  summary: "probe",
  successStatus: 200,
  response: z.object({}),
  idempotent: false,
  events: [],
  rpc: false,
  surface: "legacy",
  successor: { operation: "listParties" },
} as const satisfies OperationDefinition;

describe("operation definitions", () => {
  it("accept a legacy operation served over REST with a legacy scope and a successor", () => {
    expect(defineOperation(legacyRead)).toBe(legacyRead);
  });

  it.each([
    ["a tRPC procedure", { rpc: undefined }, "REST only"],
    ["no successor", { successor: undefined }, "names its successor"],
    ["a current scope", { scope: "parties:read" }, "requires a legacy scope"],
    ["outliving the window", { outlivesLegacyWindow: true }, "retired with the legacy window"],
  ] as const)("refuse a legacy operation with %s", (_, change, message) => {
    expect(() => defineOperation({ ...legacyRead, ...change } as OperationDefinition)).toThrow(message);
  });

  it("refuse a current operation with a successor or a legacy scope", () => {
    const { surface: _surface, successor: _successor, rpc: _rpc, ...current } = legacyRead;
    expect(() => defineOperation({ ...current, scope: "parties:read", successor: { tag: "Jobs", note: "x" } })).toThrow(
      "only a legacy operation has a successor",
    );
    expect(() => defineOperation(current)).toThrow("legacy scope is held by legacy keys only");
  });

  it("refuse to list an operation among the groups of another surface", () => {
    const groups = { probes: { list: defineOperation(legacyRead) } };
    expect(listOperations(groups, "legacy").map(({ procedure }) => procedure)).toEqual(["probes.list"]);
    expect(() => listOperations(groups, "current")).toThrow("is not of the current surface");
  });
});
