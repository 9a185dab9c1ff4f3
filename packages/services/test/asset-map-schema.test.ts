/**
 * The asset map's result collections are typed field by field in the operation's response schema.
 * Real traces of the sandbox chain (every planted scenario the docs list: peel chain, fan-in, mixer,
 * bridge, frozen stablecoin holder), stored as the job stores them and presented as the GET presents
 * them, must parse under that schema unchanged: a field the schema does not list would be stripped
 * (and the comparison fail), a field of the wrong type refused. The generated OpenAPI document shows
 * each collection's fields.
 */
import { AssetMap, buildOpenApiDocument } from "@crs/contract";
import { describe, expect, it } from "vitest";
import { presentAssetMap } from "../src/crypto/present-asset-map";
import { assetMapFieldsOf, runTraceJob } from "../src/crypto/run-trace-job";
import { createTraceProviders } from "../src/crypto/trace-providers";
import { SANDBOX_CHAIN } from "../src/jobs/trace-input";

const SUBJECTS: Array<[string, number]> = [
  ["0x5eed00000007000000000000000000000000089f", 11],
  ["0x5eed0000000700000000000000000000000008d9", 22],
  ["0x5eed0000000700000000000000000000000008e1", 32],
  ["0x5eed0000000700000000000000000000000008ee", 45],
  ["0x5eed00000007000000000000000000000000091c", 54],
];

async function presentedMap(
  address: string,
  incidentBlock: number,
  options: { maxHops?: number; timeBudgetMs?: number } = {},
): Promise<AssetMap> {
  const request = {
    wallets: [{ address, incident_block: incidentBlock }],
    chains: [SANDBOX_CHAIN] as [string],
    max_hops: options.maxHops ?? 5,
    direction: "outflow" as const,
    include_stablecoins: true,
    include_exchanges: true,
    source_refs: [{ source_id: "exhibit-4", source_type: "court_record", title: "Exhibit 4" }],
  };
  const result = await runTraceJob(request, {
    environment: "sandbox",
    providers: createTraceProviders(),
    tracedAt: new Date("2026-07-05T12:00:00.000Z"),
    signal: new AbortController().signal,
    ...(options.timeBudgetMs === undefined ? {} : { timeBudgetMs: options.timeBudgetMs }),
  });
  // What the job stores (jsonb): the contract's fields, through JSON.
  const stored = JSON.parse(JSON.stringify(assetMapFieldsOf(result))) as Record<string, unknown>;
  const at = new Date("2026-07-05T12:00:01.000Z");
  return presentAssetMap({
    organizationId: "org_test",
    environment: "sandbox",
    id: "amap_test",
    matterId: "matter_test",
    jobId: "job_test",
    status: "succeeded",
    chain: SANDBOX_CHAIN,
    request,
    result: stored,
    exposureUsdCents: null,
    reviewStatus: "pending",
    createdAt: at,
    updatedAt: at,
    lastRequestId: "req_test",
    lastActorId: "key_test",
  });
}

describe("a stored trace result under the asset map's schema", () => {
  it("parses unchanged for every planted sandbox scenario, and the scenarios fill every collection", async () => {
    const filled = new Set<string>();
    for (const [address, block] of SUBJECTS) {
      const map = await presentedMap(address, block);
      expect(AssetMap.parse(map)).toEqual(map);
      for (const [key, value] of Object.entries(map)) {
        if (Array.isArray(value) && value.length > 0) filled.add(key);
      }
    }
    // Each typed collection was exercised with real entries, not only as an empty array.
    expect([...filled].sort()).toEqual(
      [
        "edges",
        "exchange_hypotheses",
        "flows",
        "source_manifest",
        "source_refs",
        "stablecoin_exposure",
        "subjects",
        "terminals",
        "token_exposures",
        "totals",
        "wallets",
      ].sort(),
    );
  });

  it("parses traces cut short: at the hop limit (frontier wallets) and by the time budget (truncation)", async () => {
    const atLimit = await presentedMap(SUBJECTS[3]![0], SUBJECTS[3]![1], { maxHops: 1 });
    expect(atLimit.wallets.some((wallet) => wallet.role === "frontier")).toBe(true);
    expect(AssetMap.parse(atLimit)).toEqual(atLimit);
    const outOfTime = await presentedMap(SUBJECTS[0]![0], SUBJECTS[0]![1], { timeBudgetMs: -1 });
    expect(outOfTime.truncated).toBe(true);
    expect(outOfTime.truncation.map((t) => t.reason)).toEqual(["deadline"]);
    expect(AssetMap.parse(outOfTime)).toEqual(outOfTime);
  });

  it("refuses a result whose collection entry has a field of the wrong type, naming the path", async () => {
    const map = await presentedMap(SUBJECTS[0]![0], SUBJECTS[0]![1]);
    const broken = { ...map, edges: [{ ...map.edges[0]!, hop: "1" }] };
    const parsed = AssetMap.safeParse(broken);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(["edges", 0, "hop"]);
  });
});

describe("the OpenAPI document", () => {
  type Schema = {
    $ref?: string;
    properties?: Record<string, Schema>;
    items?: Schema;
    required?: string[];
    anyOf?: Schema[];
    oneOf?: Schema[];
  };
  const document = buildOpenApiDocument("http://127.0.0.1:3000") as {
    components: { schemas: Record<string, Schema> };
  };
  const schemas = document.components.schemas;
  const resolve = (schema: Schema): Schema =>
    schema.$ref ? resolve(schemas[schema.$ref.replace("#/components/schemas/", "")]!) : schema;

  it("shows every field of every result collection", async () => {
    const maps = await Promise.all(SUBJECTS.map(([address, block]) => presentedMap(address, block)));
    const assetMap = resolve(schemas.AssetMap!);
    for (const key of [
      "wallets",
      "edges",
      "flows",
      "terminals",
      "exchange_hypotheses",
      "token_exposures",
      "stablecoin_exposure",
      "totals",
    ] as const) {
      const item = resolve(assetMap.properties![key]!.items!);
      const sample = maps.find((map) => map[key].length > 0)![key][0] as unknown as Record<string, unknown>;
      expect(Object.keys(item.properties ?? {}).sort(), key).toEqual(Object.keys(sample).sort());
      expect([...(item.required ?? [])].sort(), key).toEqual(Object.keys(sample).sort());
    }
    expect(Object.keys(resolve(assetMap.properties!.block_range!.anyOf![0]!).properties!)).toEqual([
      "from",
      "to",
      "finalized_through",
    ]);
    // The manifest's entries are a union on source_type; each variant lists its own fields.
    const manifest = resolve(assetMap.properties!.source_manifest!.items!);
    const variants = (manifest.oneOf ?? manifest.anyOf)!.map((variant) => Object.keys(resolve(variant).properties!));
    expect(variants.map((fields) => fields[0])).toEqual(["source_type", "source_type", "source_type", "source_type"]);
    expect(variants[0]).toEqual(
      expect.arrayContaining(["provider", "method", "block_range", "fetched_at", "finalized"]),
    );
  });
});
