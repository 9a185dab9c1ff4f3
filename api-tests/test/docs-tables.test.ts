/**
 * The guide's tables that restate the contract are checked against it, so an operation added,
 * moved or re-scoped fails here until docs/ says so too.
 */
import { readFileSync } from "node:fs";
import { CURRENT_OPERATIONS, LEGACY_OPERATIONS, LEGACY_SCOPES, type LegacySuccessor } from "@crs/contract";
import { describe, expect, it } from "vitest";

const guide = (name: string) => readFileSync(new URL(`../../docs/api/${name}`, import.meta.url), "utf8");

/** Rows of the first table after `heading`: first cell → the backquoted items of the others, in order. */
function tableAfter(markdown: string, heading: string): Map<string, string[]> {
  const section = markdown.slice(markdown.indexOf(heading));
  const rows = new Map<string, string[]>();
  let seenTable = false;
  for (const line of section.split("\n").slice(1)) {
    if (!line.startsWith("|")) {
      if (seenTable) break;
      continue;
    }
    seenTable = true;
    const [first = "", ...others] = line.split("|").slice(1);
    const second = others.join("|");
    const key = first.trim().replace(/^`|`$/g, "");
    if (key === "Scope" || key === "Operation" || key.startsWith("---")) continue;
    rows.set(
      key,
      [...second.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ""),
    );
  }
  return rows;
}

describe("docs/api/keys-and-scopes.md", () => {
  it("lists every REST operation under the scope its definition names, and nothing else", () => {
    const expected = new Map<string, string[]>();
    for (const { definition } of CURRENT_OPERATIONS) {
      if (!definition.path) continue;
      const scope = definition.scope === "any" ? "any valid key" : definition.scope;
      expected.set(scope, [...(expected.get(scope) ?? []), `${definition.method} ${definition.path}`]);
    }
    const documented = tableAfter(guide("keys-and-scopes.md"), "## Scopes");
    const sorted = (map: Map<string, string[]>) =>
      Object.fromEntries([...map].map(([scope, operations]) => [scope, [...operations].sort()]));
    expect(sorted(documented)).toEqual(sorted(expected));
  });
});

describe("docs/api/legacy.md", () => {
  it("lists every operation the legacy listener serves of its version's own, with its scope and successor, and nothing else", () => {
    const successorName = (successor: LegacySuccessor | undefined) => {
      if (!successor || "tag" in successor) return successor?.tag ?? "";
      const target = CURRENT_OPERATIONS.find(({ definition }) => definition.id === successor.operation)?.definition;
      return `${target?.method} ${target?.path}`;
    };
    const expected = new Map(
      LEGACY_OPERATIONS.map(({ definition }) => [
        `${definition.method} ${definition.path}`,
        [definition.scope, successorName(definition.successor)],
      ]),
    );
    // The scope and the successor come first; a note may follow (a packet type).
    const documented = new Map(
      [...tableAfter(guide("legacy.md"), "## What is served")].map(([operation, cells]) => [
        operation,
        cells.slice(0, 2),
      ]),
    );
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(expected));
  });

  it("names every legacy scope", () => {
    const section = guide("legacy.md").split("## Scopes")[1]?.split("\n## ")[0] ?? "";
    const named = [...section.matchAll(/`([a-z_]+:[a-z_]+)`/g)].map((match) => match[1]);
    expect([...new Set(named)].sort()).toEqual([...LEGACY_SCOPES].sort());
  });
});
