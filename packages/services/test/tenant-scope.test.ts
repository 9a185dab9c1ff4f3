/**
 * Guards the one tenant predicate. Every query that reads, updates or deletes rows of a tenant table
 * carries tenantScope or tenantRow (organization AND environment, packages/db/src/tenant.ts) in its
 * `where`; nothing else compares a tenant table's organization or environment column; raw SQL that
 * names organization_id is listed here with the reason drizzle cannot serve it. Read from the syntax
 * tree, so formatting, aliases and comments do not matter.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { schema } from "@crs/db";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const scanned = ["packages/services/src", "packages/db/src", "apps/rest/src", "apps/trpc/src", "apps/worker/src"];
/** Files that define the tables and the predicate, or serve tests only. */
const exempt = new Set(["packages/db/src/schema.ts", "packages/db/src/tenant.ts", "packages/db/src/testing.ts"]);

/** Queries that span every organization on purpose, each with why. */
const CROSS_TENANT: Record<string, string> = {
  "packages/services/src/idempotency/sweep-expired-idempotency-records.ts":
    "the expiry sweep deletes every organization's expired records",
  "packages/services/src/keys/revoke-key.ts": "the operator command revokes a key by its id, which is unique",
  "packages/services/src/jobs/job-runs.ts":
    "the recovery sweep finds every organization's lapsed job runs, then handles each within its own tenant",
  "packages/services/src/legacy/monitoring/sweep-targets.ts":
    "the monitoring sweep lists every organization's active watchlists, then sweeps each within its own tenant",
};

/** Raw SQL that filters by organization by hand, each with why drizzle cannot serve it. */
const RAW_TENANT_SQL: Record<string, string> = {
  "packages/services/src/events/verify-event-chain.ts": "a postgres.js cursor, which drizzle does not offer",
  "packages/db/src/event-log.ts": "the chain append: an INSERT of the event and the move of the head in one statement",
  "packages/db/src/idempotency-records.ts":
    "the idempotent write's lookup and store, rendered once and prepared: drizzle re-renders on every call",
  "packages/db/src/webhook-outbox.ts":
    "the outbox rides in the event's own INSERT statement (a CTE drizzle cannot express)",
  "packages/db/src/webhook-deliveries.ts":
    "a delivery's claim, outcome and recovery are single prepared statements (CTEs), keyed by organization, environment and id",
};

const tenantTables = new Set(
  Object.entries(schema)
    .filter(
      ([, table]) => typeof table === "object" && table !== null && "organizationId" in table && "environment" in table,
    )
    .map(([name]) => name),
);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

interface Finding {
  file: string;
  line: number;
  problem: string;
}

function inspect(file: string, text: string): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const findings: Finding[] = [];
  const at = (node: ts.Node, problem: string) =>
    findings.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, problem });

  // `const m = schema.matters` makes `m` a name for the tenant table.
  const aliases = new Map<string, string>();
  const tableOf = (node: ts.Expression): string | null => {
    if (
      ts.isPropertyAccessExpression(node) &&
      node.expression.getText() === "schema" &&
      tenantTables.has(node.name.text)
    ) {
      return node.name.text;
    }
    if (ts.isIdentifier(node)) return aliases.get(node.text) ?? null;
    return null;
  };
  const visitAliases = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && node.initializer && ts.isIdentifier(node.name)) {
      const table = tableOf(node.initializer);
      if (table) aliases.set(node.name.text, table);
    }
    ts.forEachChild(node, visitAliases);
  };
  visitAliases(source);

  // `const scope = tenantScope(e, actor)` makes `scope` the predicate itself, and a local function whose
  // body builds its predicate with tenantScope/tenantRow (`liveEndpoint(tenant, id)`) stands for one.
  const scopeNames = new Set<string>();
  const visitScopes = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && node.initializer && ts.isIdentifier(node.name)) {
      if (/^tenant(Scope|Row)\(/.test(node.initializer.getText())) scopeNames.add(node.name.text);
      if (ts.isArrowFunction(node.initializer) && /\btenant(Scope|Row)\(/.test(node.initializer.body.getText())) {
        scopeNames.add(node.name.text);
      }
    }
    if (ts.isFunctionDeclaration(node) && node.name && node.body && /\btenant(Scope|Row)\(/.test(node.body.getText())) {
      scopeNames.add(node.name.text);
    }
    ts.forEachChild(node, visitScopes);
  };
  visitScopes(source);
  const isScoped = (argument: ts.Node): boolean =>
    /\btenant(Scope|Row)\(/.test(argument.getText()) ||
    [...scopeNames].some((name) => new RegExp(`\\b${name}\\b`).test(argument.getText()));

  /** The whole call chain a call belongs to: `db.select().from(t).where(…).limit(1)`. */
  const chainOf = (node: ts.Node): ts.Node => {
    let current = node;
    while (
      (ts.isPropertyAccessExpression(current.parent) && current.parent.expression === current) ||
      (ts.isCallExpression(current.parent) && current.parent.expression === current)
    ) {
      current = current.parent;
    }
    return current;
  };
  const scopedWhere = (chain: ts.Node): boolean => {
    let found = false;
    const visit = (node: ts.Node) => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === "where" &&
        node.arguments.some(isScoped)
      ) {
        found = true;
      }
      if (!found) ts.forEachChild(node, visit);
    };
    visit(chain);
    return found;
  };
  /** Where naming a tenant column is not a filter: what a query returns, how it joins, its conflict target. */
  const notAFilter = (node: ts.Node): boolean => {
    for (let current: ts.Node | undefined = node; current; current = current.parent) {
      if (ts.isPropertyAssignment(current) && current.name.getText() === "target") return true;
      if (
        ts.isCallExpression(current) &&
        ts.isPropertyAccessExpression(current.expression) &&
        /^(select|returning|innerJoin|leftJoin|rightJoin|fullJoin)$/.test(current.expression.name.text) &&
        current.arguments.some((argument) => argument.pos <= node.pos && node.end <= argument.end)
      ) {
        return true;
      }
    }
    return false;
  };

  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const [first] = node.arguments;
      const table = first && ["from", "update", "delete"].includes(method) ? tableOf(first) : null;
      if (table && !scopedWhere(chainOf(node))) {
        at(node, `${method}(${table}) without tenantScope/tenantRow in its where`);
      }
    }
    if (
      ts.isPropertyAccessExpression(node) &&
      ["organizationId", "environment"].includes(node.name.text) &&
      tableOf(node.expression) &&
      !notAFilter(node)
    ) {
      at(node, `${node.getText()} compared by hand`);
    }
    if (
      (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) &&
      /\borganization_id\b/.test(node.getText()) &&
      !(file in RAW_TENANT_SQL)
    ) {
      at(node, "raw SQL naming organization_id");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

const files = scanned
  .flatMap((dir) => sourceFiles(join(root, dir)))
  .map((path) => ({ path: relative(root, path), text: readFileSync(path, "utf8") }))
  .filter(({ path }) => !exempt.has(path) && !(path in CROSS_TENANT));

describe("the tenant predicate is written once", () => {
  it("knows the tenant tables and scans the sources that query them", () => {
    expect([...tenantTables]).toEqual(expect.arrayContaining(["matters", "events", "apiKeys", "idempotencyRecords"]));
    expect(files.length).toBeGreaterThan(30);
  });

  it("every query of a tenant table is scoped, and no tenant column is compared by hand", () => {
    expect(files.flatMap(({ path, text }) => inspect(path, text))).toEqual([]);
  });

  it("raw SQL that filters by hand filters by environment too", () => {
    for (const path of Object.keys(RAW_TENANT_SQL)) {
      const text = readFileSync(join(root, path), "utf8");
      expect(text, path).toMatch(/organization_id\s*=\s*\S+\s+and\s+(\w+\.)?environment\s*=/);
    }
  });

  it("catches the ways a filter goes wrong", () => {
    const probe = `
      import { and, eq, inArray, sql } from "drizzle-orm";
      const m = schema.matters;
      export const a = db.select().from(schema.matters).where(eq(schema.matters.id, id));
      export const b = db.select().from(m).where(and(inArray(m.organizationId, [org]), eq(m.id, id)));
      export const c = tx.update(schema.matters).set({ name }).where(eq(schema.matters.id, id));
      export const d = sql\`select * from matters where organization_id = \${org}\`;
      export const e = db.select().from(schema.matters).where(tenantRow(schema.matters, actor, id));
      export const f = tx.insert(schema.matters).values(row).onConflictDoUpdate({ target: [m.organizationId, m.id], set: row });
      const scope = tenantScope(m, actor);
      export const g = db.select({ org: m.organizationId }).from(m).where(and(scope, eq(m.id, id)));
      function ownRow(tenant, id) { return and(tenantRow(m, tenant, id), isNull(m.deletedAt)); }
      export const h = db.select().from(m).where(ownRow(actor, id));
      function notScoped(id) { return eq(m.id, id); }
      export const i = db.select().from(m).where(notScoped(id));
    `;
    const problems = inspect("probe.ts", probe).map(({ line, problem }) => `${line}: ${problem}`);
    expect(problems).toEqual([
      "4: from(matters) without tenantScope/tenantRow in its where",
      "5: from(matters) without tenantScope/tenantRow in its where",
      "5: m.organizationId compared by hand",
      "6: update(matters) without tenantScope/tenantRow in its where",
      "7: raw SQL naming organization_id",
      "15: from(matters) without tenantScope/tenantRow in its where",
    ]);
  });
});
