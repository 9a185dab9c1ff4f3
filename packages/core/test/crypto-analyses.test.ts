import { describe, expect, it } from "vitest";
import { buildTimeline, meetsConfidence, parseAssetSelector, selectsAsset } from "../src/crypto-analyses";
import type { AddressLabel, AssetRef, Transfer } from "../src/tracing/types";

const A = "0xaaaa000000000000000000000000000000000001";
const B = "0xbbbb000000000000000000000000000000000002";
const X = "0xcccc000000000000000000000000000000000003";
const USD: AssetRef = {
  kind: "erc20",
  contract: "0xdddd000000000000000000000000000000000004",
  decimals: 6,
  symbol: "sUSD",
};
const ODD: AssetRef = {
  kind: "erc20",
  contract: "0xeeee000000000000000000000000000000000005",
  decimals: null,
  symbol: null,
};
const REF = {
  provider: "test",
  method: "test.transfers",
  request_hash: "0".repeat(64),
  block_range: null,
  fetched_at: "2026-01-01T00:00:00.000Z",
  finalized: true,
  uri: null,
};

function transfer(over: Partial<Transfer>): Transfer {
  return {
    network: "synthetic:eth",
    tx_hash: "0x01",
    event_index: 0,
    block: 1n,
    block_time: 1_000,
    tx_index: 0,
    from: A,
    to: X,
    asset: USD,
    amount: 1_500_000n,
    source_ref: REF,
    ...over,
  };
}

function label(over: Partial<AddressLabel>): AddressLabel {
  return {
    network: "synthetic:eth",
    address: X,
    entity: "Exchange Z",
    category: "exchange",
    confidence: 80,
    confidence_basis: "test",
    source: { dataset: "test-labels", uri: null, license: null, as_of: null, retrieved_at: null },
    valid_from: null,
    valid_to: null,
    note: null,
    ...over,
  };
}

describe("meetsConfidence", () => {
  it("orders low < medium < high", () => {
    expect(meetsConfidence("low", "low")).toBe(true);
    expect(meetsConfidence("low", "medium")).toBe(false);
    expect(meetsConfidence("medium", "medium")).toBe(true);
    expect(meetsConfidence("high", "medium")).toBe(true);
    expect(meetsConfidence("medium", "high")).toBe(false);
  });
});

describe("parseAssetSelector", () => {
  it("reads asset keys (EVM lower-cased, TRON as given) and symbols (case-insensitively)", () => {
    expect(parseAssetSelector(`erc20:${USD.contract?.toUpperCase().replace("0X", "0x")}`)).toEqual({
      kind: "asset",
      key: `erc20:${USD.contract}`,
    });
    expect(parseAssetSelector("erc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toEqual({
      kind: "asset",
      key: "erc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    });
    expect(parseAssetSelector("USDC")).toEqual({ kind: "symbol", symbol: "usdc" });
    for (const bad of [
      "",
      "erc20:0x12",
      "erc20:",
      "$USD",
      "US DC",
      "1USD",
      "erc20:0xzz00000000000000000000000000000000000000",
    ]) {
      expect(parseAssetSelector(bad)).toBeNull();
    }
  });

  it("selects exposures by key or symbol", () => {
    const exposure = { asset: `erc20:${USD.contract}`, symbol: "sUSD" };
    expect(selectsAsset({ kind: "symbol", symbol: "susd" }, exposure)).toBe(true);
    expect(selectsAsset({ kind: "asset", key: `erc20:${USD.contract}` }, exposure)).toBe(true);
    expect(selectsAsset({ kind: "symbol", symbol: "usdc" }, exposure)).toBe(false);
    expect(selectsAsset({ kind: "symbol", symbol: "susd" }, { asset: "erc20:0x1", symbol: null })).toBe(false);
  });
});

describe("buildTimeline", () => {
  const base = { wallets: [A, B], fromMs: 1_000_000, toMs: 3_000_000, labelsOf: () => [], maxEvents: 10 };

  it("keeps the window's transfers, both ends included, each once, in block, transaction, log order", () => {
    const transfers = [
      transfer({ tx_hash: "0x05", block: 3n, block_time: 3_000 }),
      transfer({ tx_hash: "0x04", block: 2n, block_time: 2_000, tx_index: 1, event_index: 0 }),
      transfer({ tx_hash: "0x03", block: 2n, block_time: 2_000, tx_index: 0, event_index: 7 }),
      transfer({ tx_hash: "0x03", block: 2n, block_time: 2_000, tx_index: 0, event_index: 2, from: A, to: B }),
      // the same transfer read for B as well
      transfer({ tx_hash: "0x03", block: 2n, block_time: 2_000, tx_index: 0, event_index: 2, from: A, to: B }),
      transfer({ tx_hash: "0x01", block: 1n, block_time: 1_000 }),
      transfer({ tx_hash: "0x00", block: 0n, block_time: 999 }),
      transfer({ tx_hash: "0x06", block: 4n, block_time: 3_001 }),
      // touches neither wallet
      transfer({ tx_hash: "0x07", block: 2n, block_time: 2_000, from: X, to: X }),
    ];
    const timeline = buildTimeline({ ...base, transfers });
    expect(timeline.events.map((e) => `${e.transaction_hash}:${e.event_index}`)).toEqual([
      "0x01:0",
      "0x03:2",
      "0x03:7",
      "0x04:0",
      "0x05:0",
    ]);
    expect(timeline.matched).toBe(5);
    // Every transfer here came from one request: one manifest entry, cited by each.
    expect(timeline.sources).toHaveLength(1);
    expect(timeline.sources[0]).toMatchObject({ source_type: "chain_request", hash: REF.request_hash });
    for (const event of timeline.events) expect(event.source_refs).toEqual([timeline.sources[0]?.source_id]);
    expect(timeline.events[1]).toMatchObject({ direction: "between_wallets", wallet: A });
  });

  it("gives exact amounts, and base units alone when decimals are unknown", () => {
    const timeline = buildTimeline({
      ...base,
      transfers: [
        transfer({ amount: 1_500_000n }),
        transfer({ tx_hash: "0x02", asset: ODD, amount: 123n, from: X, to: B }),
      ],
    });
    expect(timeline.events[0]).toMatchObject({
      amount: "1.5",
      base_units: "1500000",
      asset: `erc20:${USD.contract}`,
      symbol: "sUSD",
    });
    expect(timeline.events[1]).toMatchObject({ amount: null, base_units: "123", direction: "incoming", wallet: B });
  });

  it("notes the counterparty's labels valid at the transfer's time, once each", () => {
    const labels = [
      label({}),
      label({}),
      label({ entity: "Old Desk", category: "other", confidence: 90, valid_to: 1_500 }),
      label({ entity: "OFAC entry", category: "sanctioned", confidence: 100 }),
    ];
    const timeline = buildTimeline({
      ...base,
      labelsOf: (address) => (address === X ? labels : []),
      transfers: [
        transfer({ block_time: 1_000 }),
        transfer({ tx_hash: "0x02", block: 2n, block_time: 2_000 }),
        transfer({
          tx_hash: "0x03",
          block: 3n,
          to: B,
          from: "0xffff000000000000000000000000000000000009",
          block_time: 2_500,
        }),
      ],
    });
    expect(timeline.events[0]?.notes).toBe(
      `Sent by ${A} to ${X}; the counterparty is labelled OFAC entry (sanctioned, label confidence 100, test-labels); Old Desk (other, label confidence 90, test-labels); Exchange Z (exchange, label confidence 80, test-labels).`,
    );
    expect(timeline.events[1]?.notes).not.toContain("Old Desk");
    expect(timeline.events[2]?.notes).toBe(
      `Received by ${B} from 0xffff000000000000000000000000000000000009; the counterparty has no label.`,
    );
  });

  it("lists at most maxEvents, the earliest, and counts the rest", () => {
    const transfers = [3, 1, 2].map((n) => transfer({ tx_hash: `0x0${n}`, block: BigInt(n), block_time: 1_000 + n }));
    const timeline = buildTimeline({ ...base, transfers, maxEvents: 2 });
    expect(timeline.events.map((e) => e.transaction_hash)).toEqual(["0x01", "0x02"]);
    expect(timeline.matched).toBe(3);
  });
});
