/**
 * Imports flow one way: core ← contract ← db ← services ← apps; documents (artifact rendering) and chain
 * (blockchain providers) sit on core beside contract and db; the client needs only the contract.
 * Each package names what it MAY import; anything else is refused. `pnpm lint` runs this, and
 * tooling/lint/test shows every rule failing on a deliberate violation. Source paths are matched with
 * (^|/) so those fixtures, laid out like the tree, are judged the same way.
 */
const source = (pkg) => ({ path: `(^|/)packages/${pkg}/src/` });
/** A path inside one of these packages' sources (the package itself included). */
const within = (...pkgs) => `(^|/)packages/(${pkgs.join("|")})/src/`;
const NPM = ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-no-pkg", "npm-unknown"];

/** A package may import its own sources, the listed packages, and libraries (or only the pure ones, for core). */
const mayImportOnly = (name, pkg, allowed, comment) => ({
  name,
  comment,
  severity: "error",
  from: source(pkg),
  to: { pathNot: `${within(pkg, ...allowed)}|node_modules/`, dependencyTypesNot: ["core"] },
});

module.exports = {
  forbidden: [
    mayImportOnly("core-imports-nothing-of-ours", "core", [], "packages/core is the bottom layer."),
    mayImportOnly("contract-flows-down", "contract", ["core"], "packages/contract may import packages/core only."),
    mayImportOnly("db-flows-down", "db", ["core", "contract"], "packages/db may import core and contract only."),
    mayImportOnly(
      "documents-build-on-core",
      "documents",
      ["core"],
      "packages/documents renders artifacts from plain data: it may import packages/core only.",
    ),
    mayImportOnly(
      "chain-builds-on-core",
      "chain",
      ["core"],
      "packages/chain reads blockchains behind core's provider interface: it may import packages/core only.",
    ),
    mayImportOnly(
      "services-flow-down",
      "services",
      ["core", "contract", "db", "documents", "chain"],
      "packages/services may import core, contract, db, documents and chain only: never an app or the client.",
    ),
    mayImportOnly(
      "client-needs-only-the-contract",
      "client",
      ["contract"],
      "packages/client is what outside callers install: it may import packages/contract only.",
    ),
    {
      name: "core-does-no-io",
      comment: "packages/core is pure: of Node's modules it may use crypto (hashing, signatures) and nothing else.",
      severity: "error",
      from: source("core"),
      to: { dependencyTypes: ["core"], pathNot: "^(node:)?crypto$" },
    },
    {
      name: "core-has-no-dependencies",
      comment:
        "packages/core is pure: no library (database clients, HTTP, loggers) enters it, except the pure ones listed " +
        "here (ipaddr.js: address parsing, no I/O, no dependencies).",
      severity: "error",
      from: source("core"),
      to: { dependencyTypes: NPM, pathNot: "node_modules/\\.pnpm/ipaddr\\.js@" },
    },
    {
      name: "apps-do-not-import-apps",
      comment: "An app builds on packages, never on another app.",
      severity: "error",
      from: { path: "(^|/)apps/([^/]+)/src/" },
      to: { path: "(^|/)apps/", pathNot: "(^|/)apps/$2/" },
    },
    {
      name: "not-to-unresolvable",
      comment: "Every import resolves: a package used must be declared where it is used.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: "no-non-package-json",
      comment: "A library imported by a package is in that package's package.json.",
      severity: "error",
      from: {},
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
    {
      name: "no-circular",
      comment: "No import cycles, inside a package or across packages.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(drizzle|\\.turbo)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.base.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "types", "node", "default"],
      extensions: [".ts", ".js", ".json"],
      mainFields: ["module", "main", "types"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
