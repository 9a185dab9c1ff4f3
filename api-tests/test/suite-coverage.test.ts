/**
 * Every operation (of the current surface and of the legacy listener) runs the shared security suite: a new operation without
 * one fails here, whichever file forgot it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as contract from "@crs/contract";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const testDir = fileURLToPath(new URL(".", import.meta.url));

/** `describeSecuritySuite(group.name, …)` calls made at the top level of a file (read from its syntax tree). */
function suiteCalls(file: string): Array<{ group: string; operation: string }> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  return source.statements.flatMap((statement) => {
    if (!ts.isExpressionStatement(statement) || !ts.isCallExpression(statement.expression)) return [];
    const [target] = statement.expression.arguments;
    if (statement.expression.expression.getText() !== "describeSecuritySuite" || !target) return [];
    if (!ts.isPropertyAccessExpression(target)) throw new Error(`${file}: name the operation as group.name`);
    return [{ group: target.expression.getText(), operation: target.name.text }];
  });
}

function describedOperations(): contract.OperationDefinition[] {
  const exports = contract as unknown as Record<string, Record<string, contract.OperationDefinition> | undefined>;
  return readdirSync(testDir)
    .filter((name) => name.endsWith(".test.ts"))
    .flatMap((name) => suiteCalls(`${testDir}/${name}`))
    .map(({ group, operation }) => {
      const definition = exports[group]?.[operation];
      if (!definition)
        throw new Error(`describeSecuritySuite(${group}.${operation}) names no operation of @crs/contract`);
      return definition;
    });
}

describe("security suite coverage", () => {
  it("describes every operation of the current surface", () => {
    const described = new Set(describedOperations());
    const missing = contract.CURRENT_OPERATIONS.filter(({ definition }) => !described.has(definition));
    expect(missing.map(({ procedure }) => procedure)).toEqual([]);
  });

  it("describes every operation of the legacy listener's own groups", () => {
    const described = new Set(describedOperations());
    const missing = contract.LEGACY_OPERATIONS.filter(({ definition }) => !described.has(definition));
    expect(missing.map(({ procedure }) => procedure)).toEqual([]);
  });
});
