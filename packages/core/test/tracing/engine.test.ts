import { describe, expect, it } from "vitest";
import { computeTraceOnGraph, type TaintModel, TraceRequestError, type TraceResult } from "../../src/index";
import {
  addr,
  BLOCK_TIME,
  chainOf,
  EPOCH,
  edgeList,
  LowBalanceReads,
  label,
  TOKEN,
  TRACED_AT,
  totalsOf,
  traceChain,
  walletList,
} from "./fixtures";

const USD_KEY = `erc20:${TOKEN}`;

describe("hop limit", () => {
  const chain = chainOf(
    [
      [1, 2, 1000, 2],
      [2, 3, 1000, 3],
      [3, 4, 1000, 4],
      [4, 5, 1000, 5],
    ],
    { genesis: [[1, 1000]] },
  );

  it("follows no more than max_hops transfers and reports what reached the limit", async () => {
    const result = await traceChain(chain, { subjects: [[1, 1]], request: { max_hops: 2 } });
    expect(edgeList(result)).toEqual([
      [1, 2, "1000", "1000", 1],
      [2, 3, "1000", "1000", 2],
    ]);
    expect(walletList(result)).toEqual([
      [1, "subject", 0],
      [2, "intermediary", 1],
      [3, "frontier", 2],
    ]);
    expect(result.hops).toBe(2);
    expect(result.wallets[2]!.retained).toBeNull();
    expect(result.wallets[2]!.retained_reason).toBe("not expanded: reached at the hop limit (2)");
    expect(totalsOf(result)).toEqual({
      subject_taint: "1000",
      to_terminals: "0",
      retained: "0",
      at_hop_limit: "1000",
      dust: "0",
      dust_edges: 0,
      unexplored: "0",
    });
    expect(result.truncated).toBe(false);
  });

  it("counts taint that reaches an address at the hop limit there, and opens the address only when taint reaches it sooner", async () => {
    const late = chainOf(
      [
        [1, 2, 300, 2],
        [2, 3, 300, 3],
        [1, 3, 200, 4],
        [3, 4, 500, 5],
      ],
      { genesis: [[1, 1000]] },
    );
    for (const viaProvider of [false, true]) {
      const result = await traceChain(late, { subjects: [[1, 1]], viaProvider, request: { max_hops: 2 } });
      // The 300 that reached 3 at hop 2 stays counted at the hop limit; 3 opens at hop 1 holding it as
      // clean balance, so under fifo only the later 200 leaves for 4.
      expect(edgeList(result)).toEqual([
        [1, 2, "300", "300", 1],
        [2, 3, "300", "300", 2],
        [1, 3, "200", "200", 1],
        [3, 4, "500", "200", 2],
      ]);
      expect(walletList(result)).toEqual([
        [1, "subject", 0],
        [2, "intermediary", 1],
        [3, "intermediary", 1],
        [4, "frontier", 2],
      ]);
      expect(totalsOf(result)).toEqual({
        subject_taint: "1000",
        to_terminals: "0",
        retained: "500",
        at_hop_limit: "500",
        dust: "0",
        dust_edges: 0,
        unexplored: "0",
      });
    }
  });

  it("goes one hop further when max_hops grows by one", async () => {
    const result = await traceChain(chain, { subjects: [[1, 1]], request: { max_hops: 3 } });
    expect(walletList(result)).toEqual([
      [1, "subject", 0],
      [2, "intermediary", 1],
      [3, "intermediary", 2],
      [4, "frontier", 3],
    ]);
  });

  it("refuses max_hops outside 1..7 and defaults to 5", async () => {
    await expect(traceChain(chain, { subjects: [[1, 1]], request: { max_hops: 8 } })).rejects.toBeInstanceOf(
      TraceRequestError,
    );
    await expect(traceChain(chain, { subjects: [[1, 1]], request: { max_hops: 0 } })).rejects.toBeInstanceOf(
      TraceRequestError,
    );
    expect((await traceChain(chain, { subjects: [[1, 1]] })).max_hops).toBe(5);
  });

  it("refuses a case document listed twice, or under an id of the form the trace gives its own sources", async () => {
    const document = (source_id: string, title: string) => ({
      source_id,
      source_type: "judgment",
      title,
      uri: null,
      hash: null,
    });
    const twice = [document("exhibit-4", "Exhibit 4"), document("exhibit-4", "Exhibit 4, amended")];
    await expect(traceChain(chain, { subjects: [[1, 1]], sourceRefs: twice })).rejects.toThrow(
      /source_id exhibit-4 listed twice/,
    );
    const traced = await traceChain(chain, { subjects: [[1, 1]] });
    const ownId = traced.sources.find((source) => source.source_type === "chain_request")?.source_id;
    expect(ownId).toMatch(/^src_[0-9a-f]{20}$/);
    await expect(
      traceChain(chain, { subjects: [[1, 1]], sourceRefs: [document(ownId!, "A forged entry")] }),
    ).rejects.toBeInstanceOf(TraceRequestError);
    // The prefix alone is a case document's to use.
    const own = await traceChain(chain, { subjects: [[1, 1]], sourceRefs: [document("src_exhibit_4", "Exhibit 4")] });
    expect(own.sources.filter((source) => source.source_id === "src_exhibit_4")).toHaveLength(1);
  });
});

describe("cycles", () => {
  it("terminates on a cycle and moves the returning taint on", async () => {
    const chain = chainOf(
      [
        [1, 2, 100, 2],
        [2, 3, 100, 3],
        [3, 2, 60, 4],
        [2, 4, 60, 5],
      ],
      { genesis: [[1, 100]] },
    );
    const result = await traceChain(chain, { subjects: [[1, 1]] });
    expect(edgeList(result)).toEqual([
      [1, 2, "100", "100", 1],
      [2, 3, "100", "100", 2],
      [3, 2, "60", "60", 3],
      [2, 4, "60", "60", 2],
    ]);
    expect(walletList(result)).toEqual([
      [1, "subject", 0],
      [2, "intermediary", 1],
      [3, "intermediary", 2],
      [4, "intermediary", 2],
    ]);
    expect(totalsOf(result)?.retained).toBe("100");
  });

  it("terminates on a two-address ping-pong of many transfers", async () => {
    const steps: Array<[number, number, number, number]> = [[1, 2, 50, 2]];
    for (let i = 0; i < 40; i++) steps.push(i % 2 === 0 ? [2, 3, 50, 3 + i] : [3, 2, 50, 3 + i]);
    const result = await traceChain(chainOf(steps, { genesis: [[1, 50]] }), { subjects: [[1, 1]] });
    expect(result.edge_count).toBe(41);
    expect(result.edges.every((edge) => edge.tainted.base_units === "50")).toBe(true);
    expect(totalsOf(result)?.retained).toBe("50");
  });
});

describe("a transfer to itself", () => {
  // 2 holds 10 clean, receives 10 tainted from the subject, then sends 10 on: under fifo its clean lot
  // leaves first. A transfer from 2 to itself in between changes nothing on chain, nor in the map.
  const withoutSelf: Array<[number, number, number, number]> = [
    [1, 2, 10, 2],
    [2, 3, 10, 4],
  ];
  const withSelf: Array<[number, number, number, number]> = [
    [1, 2, 10, 2],
    [2, 2, 10, 3],
    [2, 3, 10, 4],
  ];
  const options = {
    genesis: [
      [1, 10],
      [2, 10],
    ] as Array<[number, number]>,
  };
  for (const taint_model of ["fifo", "haircut", "poison"] as const) {
    for (const viaProvider of [false, true]) {
      it(`moves no taint and reorders no lots (${taint_model}, ${viaProvider ? "provider" : "preloaded graph"})`, async () => {
        const call = { subjects: [[1, 1]] as Array<[number, number]>, viaProvider, request: { taint_model } };
        const plain = await traceChain(chainOf(withoutSelf, options), call);
        const selfSent = await traceChain(chainOf(withSelf, options), call);
        expect(edgeList(selfSent)).toEqual(edgeList(plain));
        expect(totalsOf(selfSent)).toEqual(totalsOf(plain));
        expect(selfSent.wallets.map((wallet) => [wallet.address, wallet.retained])).toEqual(
          plain.wallets.map((wallet) => [wallet.address, wallet.retained]),
        );
      });
    }
  }

  it("under fifo, leaves the tainted lot at 2: nothing tainted reaches 3", async () => {
    const result = await traceChain(chainOf(withSelf, options), { subjects: [[1, 1]] });
    expect(edgeList(result)).toEqual([[1, 2, "10", "10", 1]]);
  });
});

describe("fan-out and fan-in", () => {
  const hot = 6;
  const chain = chainOf(
    [
      [1, 2, 100, 2],
      [1, 3, 100, 2],
      [1, 4, 100, 2],
      [2, 5, 100, 3],
      [3, 5, 100, 3],
      [4, 5, 100, 3],
      [5, hot, 300, 4],
    ],
    { genesis: [[1, 300]], labels: [label(addr(hot), "Exchange Z", "exchange")] },
  );

  it("splits, merges and stops at the exchange, naming the merge address as the deposit address", async () => {
    const result = await traceChain(chain, { subjects: [[1, 1]] });
    expect(edgeList(result)).toEqual([
      [1, 2, "100", "100", 1],
      [1, 3, "100", "100", 1],
      [1, 4, "100", "100", 1],
      [2, 5, "100", "100", 2],
      [3, 5, "100", "100", 2],
      [4, 5, "100", "100", 2],
      [5, 6, "300", "300", 3],
    ]);
    expect(result.flows.map((flow) => [flow.from, flow.to, flow.edge_count, flow.tainted.base_units])).toEqual([
      [addr(1), addr(2), 1, "100"],
      [addr(1), addr(3), 1, "100"],
      [addr(1), addr(4), 1, "100"],
      [addr(2), addr(5), 1, "100"],
      [addr(3), addr(5), 1, "100"],
      [addr(4), addr(5), 1, "100"],
      [addr(5), addr(6), 1, "300"],
    ]);
    expect(result.terminals.map((t) => [t.address, t.category, t.entity, t.hop, t.received[0]!.base_units])).toEqual([
      [addr(hot), "exchange", "Exchange Z", 3, "300"],
    ]);
    expect(walletList(result)).toContainEqual([5, "exchange_deposit", 2]);
    expect(
      result.exchange_hypotheses.map((h) => [h.exchange, h.wallet, h.basis, h.confidence, h.packet_readiness]),
    ).toEqual([["Exchange Z", addr(5), "deposit_address_sweep", "high", "needs_review"]]);
    expect(result.exchange_hypotheses[0]!.readiness_reasons).toEqual(["chain data is synthetic, not live"]);
    expect(result.exchange_hypotheses[0]!.sweep?.assets).toEqual([
      {
        asset: USD_KEY,
        inflows: 3,
        outflows: 1,
        received: { base_units: "300", amount: "0.0003" },
        swept: { base_units: "300", amount: "0.0003" },
        exact: true,
        longest_delay_seconds: 12,
      },
    ]);
    expect(totalsOf(result)).toMatchObject({ subject_taint: "300", to_terminals: "300", retained: "0" });
  });
});

describe("the deposit-address sweep rule's window", () => {
  // 2 takes two deposits 60 s apart and forwards both in one transfer, 108 s after the first.
  const chain = chainOf(
    [
      [1, 2, 50, 1],
      [1, 2, 50, 6],
      [2, 9, 100, 10],
    ],
    { genesis: [[1, 100]], labels: [label(addr(9), "Exchange X", "exchange")] },
  );
  const sweepsOf = (result: TraceResult) =>
    result.exchange_hypotheses.filter((hypothesis) => hypothesis.basis === "deposit_address_sweep");

  it("measures each deposit's wait from its own arrival, not from the last deposit", async () => {
    const result = await traceChain(chain, { subjects: [[1, 0]], request: { deposit_sweep: { window_seconds: 120 } } });
    expect(sweepsOf(result).map((hypothesis) => hypothesis.sweep?.assets[0]?.longest_delay_seconds)).toEqual([108]);
  });

  it("lets dust within the gas allowance wait: nothing needs forwarding", async () => {
    // 2 forwards a native deposit, takes dust (no more than the gas allowance) from elsewhere, and long
    // after the window forwards a second deposit within it.
    const dusty = chainOf(
      [
        [1, 2, 1000, 1, "eth"],
        [2, 9, 1000, 2, "eth"],
        [5, 2, 3, 3, "eth"],
        [1, 2, 1000, 40, "eth"],
        [2, 9, 1000, 41, "eth"],
      ],
      {
        genesis: [
          [1, 2000, "eth"],
          [5, 3, "eth"],
        ],
        labels: [label(addr(9), "Exchange X", "exchange")],
      },
    );
    const call = {
      subjects: [[1, 0]] as Array<[number, number]>,
      request: { deposit_sweep: { window_seconds: 100, native_gas_allowance: 5n } },
    };
    const result = await traceChain(dusty, call);
    expect(sweepsOf(result).map((hypothesis) => hypothesis.sweep?.assets[0]?.longest_delay_seconds)).toEqual([12]);
    const strict = await traceChain(dusty, {
      ...call,
      request: { deposit_sweep: { window_seconds: 100, native_gas_allowance: 2n } },
    });
    expect(sweepsOf(strict)).toEqual([]);
  });

  it("does not hold when what the address held before taint reached it is swept with the deposits", async () => {
    // 2 held 30 before the subject's deposit; the sweep takes all 80, and when the 30 came is not read.
    const held = chainOf(
      [
        [1, 2, 50, 1],
        [2, 9, 80, 2],
      ],
      {
        genesis: [
          [1, 50],
          [2, 30],
        ],
        labels: [label(addr(9), "Exchange X", "exchange")],
      },
    );
    const result = await traceChain(held, { subjects: [[1, 0]], request: { deposit_sweep: { window_seconds: 100 } } });
    expect(sweepsOf(result)).toEqual([]);
    expect(result.exchange_hypotheses.map((hypothesis) => hypothesis.basis)).toEqual(["labeled_service_address"]);
  });

  it("names a path that reaches the deposit address before the sweeps it cites", async () => {
    // 3 is reached at hop 2 and sweeps; the subject pays it directly later (hop 1), and it sweeps again.
    const chain = chainOf(
      [
        [1, 2, 50, 1],
        [2, 3, 50, 2],
        [3, 9, 50, 3],
        [1, 3, 10, 4],
        [3, 9, 10, 5],
      ],
      { genesis: [[1, 100]], labels: [label(addr(9), "Exchange X", "exchange")] },
    );
    for (const viaProvider of [false, true]) {
      const result = await traceChain(chain, { subjects: [[1, 0]], viaProvider });
      const [hypothesis] = sweepsOf(result);
      expect(hypothesis?.wallet).toBe(addr(3));
      const blocks = (hypothesis?.path_edge_ids ?? []).map((id) => {
        const edge = result.edges.find((found) => found.edge_id === id);
        return edge ? [Number.parseInt(edge.from, 16), Number.parseInt(edge.to, 16), edge.block] : id;
      });
      expect(blocks).toEqual([
        [1, 2, "1"],
        [2, 3, "2"],
        [3, 9, "3"],
        [3, 9, "5"],
      ]);
    }
  });

  it("does not hold when the first deposit waited longer than the window, though the last did not", async () => {
    const result = await traceChain(chain, { subjects: [[1, 0]], request: { deposit_sweep: { window_seconds: 100 } } });
    expect(sweepsOf(result)).toEqual([]);
  });
});

describe("a deposit address sweeping to two wallets of one exchange", () => {
  const chain = chainOf(
    [
      [1, 2, 100, 2],
      [1, 3, 100, 2],
      [2, 5, 100, 3],
      [3, 5, 100, 3],
      [5, 6, 120, 4],
      [5, 7, 80, 4],
    ],
    {
      genesis: [[1, 200]],
      labels: [label(addr(6), "Exchange Z", "exchange"), label(addr(7), "Exchange Z", "exchange")],
    },
  );

  it("names the deposit address once, though both exchange wallets received from it", async () => {
    const result = await traceChain(chain, { subjects: [[1, 1]] });
    expect(result.terminals.map((t) => [t.address, t.received[0]!.base_units])).toEqual([
      [addr(6), "120"],
      [addr(7), "80"],
    ]);
    expect(walletList(result)).toContainEqual([5, "exchange_deposit", 2]);
    expect(result.exchange_hypotheses.map((h) => [h.exchange, h.wallet, h.basis])).toEqual([
      ["Exchange Z", addr(5), "deposit_address_sweep"],
    ]);
    expect(result.exchange_hypotheses[0]!.sweep?.swept_to).toEqual([addr(6), addr(7)]);
  });
});

describe("value thresholds", () => {
  it("does not follow dust below the minimum and reports how much was dropped", async () => {
    const chain = chainOf(
      [
        [1, 2, 990, 2],
        [1, 3, 10, 2],
        [3, 4, 10, 3],
      ],
      { genesis: [[1, 1000]] },
    );
    const result = await traceChain(chain, {
      subjects: [[1, 1]],
      request: { min_value: { per_asset: { [USD_KEY]: 50n } } },
    });
    expect(edgeList(result)).toEqual([[1, 2, "990", "990", 1]]);
    expect(walletList(result)).toEqual([
      [1, "subject", 0],
      [2, "intermediary", 1],
    ]);
    expect(totalsOf(result)).toEqual({
      subject_taint: "1000",
      to_terminals: "0",
      retained: "990",
      at_hop_limit: "0",
      dust: "10",
      dust_edges: 1,
      unexplored: "0",
    });
    expect(result.min_value).toEqual({ default: "1", per_asset: { [USD_KEY]: "50" } });
  });

  it("drops a large transfer whose tainted part is dust under fifo", async () => {
    const chain = chainOf(
      [
        [1, 2, 20, 2],
        [2, 3, 1010, 3],
      ],
      {
        genesis: [
          [1, 20],
          [2, 1000],
        ],
      },
    );
    const result = await traceChain(chain, {
      subjects: [[1, 1]],
      request: { min_value: { default: 15n } },
    });
    expect(edgeList(result)).toEqual([[1, 2, "20", "20", 1]]);
    expect(totalsOf(result)).toMatchObject({ subject_taint: "20", retained: "10", dust: "10", dust_edges: 1 });
  });
});

describe("time ordering", () => {
  it("never lets funds leave before they arrived, down to the order within a block", async () => {
    const chain = chainOf(
      [
        [2, 7, 200, 3],
        [2, 8, 100, 5],
        [1, 2, 100, 5],
        [2, 9, 250, 5],
      ],
      {
        genesis: [
          [1, 100],
          [2, 500],
        ],
      },
    );
    const fifo = await traceChain(chain, { subjects: [[1, 1]] });
    expect(edgeList(fifo)).toEqual([
      [1, 2, "100", "100", 1],
      [2, 9, "250", "50", 2],
    ]);
    const poison = await traceChain(chain, { subjects: [[1, 1]], request: { taint_model: "poison" } });
    expect(edgeList(poison)).toEqual([
      [1, 2, "100", "100", 1],
      [2, 9, "250", "250", 2],
    ]);
  });

  it("ignores a subject's transfers before its incident block", async () => {
    const chain = chainOf(
      [
        [1, 5, 40, 2],
        [1, 6, 60, 4],
      ],
      { genesis: [[1, 100]] },
    );
    const result = await traceChain(chain, { subjects: [[1, 3]] });
    expect(edgeList(result)).toEqual([[1, 6, "60", "60", 1]]);
    expect(totalsOf(result)?.subject_taint).toBe("60");
  });
});

describe("taint models", () => {
  // Address 2 holds 100 clean, receives 50 from the subject, then sends 60 and 90.
  const chain = chainOf(
    [
      [1, 2, 50, 2],
      [2, 3, 60, 3],
      [2, 4, 90, 4],
    ],
    {
      genesis: [
        [1, 50],
        [2, 100],
      ],
    },
  );

  it("fifo: the clean opening balance leaves first", async () => {
    const result = await traceChain(chain, { subjects: [[1, 1]] });
    expect(edgeList(result)).toEqual([
      [1, 2, "50", "50", 1],
      [2, 4, "90", "50", 2],
    ]);
    expect(totalsOf(result)).toMatchObject({ subject_taint: "50", retained: "50" });
    expect(result.taint_model).toMatchObject({ name: "fifo", amounts: "conserved" });
  });

  it("haircut: each outflow carries the tainted share of the balance", async () => {
    const result = await traceChain(chain, { subjects: [[1, 1]], request: { taint_model: "haircut" } });
    expect(edgeList(result)).toEqual([
      [1, 2, "50", "50", 1],
      [2, 3, "60", "20", 2],
      [2, 4, "90", "30", 2],
    ]);
    expect(totalsOf(result)).toMatchObject({ subject_taint: "50", retained: "50" });
  });

  it("poison: every later outflow is wholly tainted and the amounts are marked reach-only", async () => {
    const result = await traceChain(chain, { subjects: [[1, 1]], request: { taint_model: "poison" } });
    expect(edgeList(result)).toEqual([
      [1, 2, "50", "50", 1],
      [2, 3, "60", "60", 2],
      [2, 4, "90", "90", 2],
    ]);
    expect(result.taint_model).toMatchObject({ name: "poison", amounts: "reach_only" });
    expect(result.totals[0]!.conserved).toBe(false);
  });

  it("treats everything a subject holds or later receives as the debtor's", async () => {
    const subjectChain = chainOf(
      [
        [1, 2, 60, 2],
        [9, 1, 40, 3],
        [1, 3, 80, 4],
      ],
      {
        genesis: [
          [1, 100],
          [9, 40],
        ],
      },
    );
    const result = await traceChain(subjectChain, { subjects: [[1, 1]] });
    expect(edgeList(result)).toEqual([
      [1, 2, "60", "60", 1],
      [1, 3, "80", "80", 1],
    ]);
    expect(totalsOf(result)).toMatchObject({ subject_taint: "140", retained: "140" });
  });
});

describe("terminals and hypotheses", () => {
  for (const viaProvider of [false, true]) {
    it(`names a path the funds took, forward in time, when a wallet's fewest hops fall later (${viaProvider ? "provider" : "preloaded graph"})`, async () => {
      const chain = chainOf(
        [
          [1, 2, 50, 1],
          [2, 3, 50, 2],
          [3, 9, 50, 3],
          // after 3 sent on, the subject pays it directly: 3's fewest hops fall from 2 to 1
          [1, 3, 10, 4],
        ],
        { genesis: [[1, 100]], labels: [label(addr(9), "Exchange X", "exchange")] },
      );
      const result = await traceChain(chain, { subjects: [[1, 0]], viaProvider });
      const byId = new Map(result.edges.map((edge) => [edge.edge_id, edge]));
      const hypothesis = result.exchange_hypotheses.find((found) => found.wallet === addr(9));
      const path = (hypothesis?.path_edge_ids ?? []).map((id) => byId.get(id)!);
      expect(
        path.map((edge) => [Number.parseInt(edge.from, 16), Number.parseInt(edge.to, 16), edge.block, edge.hop]),
      ).toEqual([
        [1, 2, "1", 1],
        [2, 3, "2", 2],
        [3, 9, "3", 3],
      ]);
    });
  }

  it("stops at a mixer and does not follow what leaves it", async () => {
    const chain = chainOf(
      [
        [1, 2, 100, 2],
        [2, 10, 100, 3],
        [10, 11, 100, 4],
      ],
      { genesis: [[1, 100]], labels: [label(addr(10), "Mixer M", "mixer", 60)] },
    );
    const result = await traceChain(chain, { subjects: [[1, 1]] });
    expect(result.terminals.map((t) => [t.address, t.category, t.hop])).toEqual([[addr(10), "mixer", 2]]);
    expect(result.wallets.map((w) => w.address)).not.toContain(addr(11));
    expect(result.exchange_hypotheses).toEqual([]);
    expect(totalsOf(result)).toMatchObject({ to_terminals: "100" });
  });

  it("names the labelled exchange address when the sender did not sweep everything", async () => {
    const chain = chainOf(
      [
        [1, 2, 100, 2],
        [2, 6, 60, 3],
      ],
      { genesis: [[1, 100]], labels: [label(addr(6), "Exchange Z", "exchange", 90)] },
    );
    const result = await traceChain(chain, { subjects: [[1, 1]] });
    expect(result.exchange_hypotheses.map((h) => [h.wallet, h.basis, h.confidence, h.received[0]!.base_units])).toEqual(
      [[addr(6), "labeled_service_address", "high", "60"]],
    );
    expect(walletList(result)).toContainEqual([2, "intermediary", 1]);
  });

  it("does not apply the sweep rule when the forward came more than seven days after the deposit", async () => {
    const sevenDaysOfBlocks = (7 * 24 * 3600) / 12;
    const chain = chainOf(
      [
        [1, 2, 100, 2],
        [2, 6, 100, 3 + sevenDaysOfBlocks],
      ],
      { genesis: [[1, 100]], labels: [label(addr(6), "Exchange Z", "exchange")] },
    );
    const result = await traceChain(chain, { subjects: [[1, 1]] });
    expect(result.exchange_hypotheses.map((h) => [h.wallet, h.basis])).toEqual([[addr(6), "labeled_service_address"]]);
  });

  it("scores an exchange label below 60 as medium and below 40 as low", async () => {
    const build = (confidence: number) =>
      chainOf([[1, 6, 100, 2]], {
        genesis: [[1, 100]],
        labels: [label(addr(6), "Exchange Z", "exchange", confidence)],
      });
    expect((await traceChain(build(50), { subjects: [[1, 1]] })).exchange_hypotheses[0]!.confidence).toBe("medium");
    expect((await traceChain(build(20), { subjects: [[1, 1]] })).exchange_hypotheses[0]!.confidence).toBe("low");
  });

  it("keeps tracing through a sanctioned address and flags it", async () => {
    const chain = chainOf(
      [
        [1, 2, 100, 2],
        [2, 3, 100, 3],
      ],
      { genesis: [[1, 100]], labels: [label(addr(2), "SDN entry 123", "sanctioned", 60)] },
    );
    const result = await traceChain(chain, { subjects: [[1, 1]] });
    const flagged = result.wallets.find((w) => w.address === addr(2))!;
    expect(flagged.labels.map((l) => [l.entity, l.category])).toEqual([["SDN entry 123", "sanctioned"]]);
    expect(walletList(result)).toContainEqual([3, "intermediary", 2]);
  });

  it("reports an unlabelled hub as a terminal with a behavioural guess that is never packet-ready", async () => {
    const steps: Array<[number, number, number, number]> = [[1, 2, 100, 2]];
    for (let i = 0; i < 12; i++) steps.push([20 + i, 2, 1, 3 + i]);
    const result = await traceChain(
      chainOf(steps, { genesis: [[1, 100], ...Array.from({ length: 12 }, (_, i): [number, number] => [20 + i, 1])] }),
      { subjects: [[1, 1]], budget: { hub_event_limit: 10 } },
    );
    expect(result.terminals.map((t) => [t.address, t.category, t.entity])).toEqual([[addr(2), "unlabeled_hub", null]]);
    expect(result.exchange_hypotheses.map((h) => [h.exchange, h.basis, h.confidence, h.packet_readiness])).toEqual([
      [null, "behavioral_only", "low", "insufficient"],
    ]);
  });
});

describe("hubs and the hop limit", () => {
  // 9 has four transfers of its own: a hub under a limit of 3. Traced with max_hops 3, on both engines.
  const busyHub: Array<[number, number, number, number]> = [
    [5, 9, 1, 6],
    [5, 9, 1, 7],
    [5, 9, 1, 8],
    [5, 9, 1, 9],
  ];
  const traceWithHubLimit = (steps: Array<[number, number, number, number]>, genesis: Array<[number, number]>) =>
    [false, true].map((viaProvider) =>
      traceChain(chainOf([...steps, ...busyHub], { genesis: [...genesis, [5, 100]] }), {
        subjects: [[1, 1]],
        viaProvider,
        request: { max_hops: 3 },
        budget: { hub_event_limit: 3 },
      }),
    );

  it("treats a hub that taint reaches only at the hop limit as frontier, whichever engine traces it", async () => {
    // 2 sends 9 only clean funds at hop 2 (fifo), so taint first reaches 9 over 3 at hop 3 = max_hops.
    const traces = traceWithHubLimit(
      [
        [1, 2, 40, 2],
        [2, 9, 50, 3],
        [2, 3, 90, 4],
        [3, 9, 90, 5],
      ],
      [
        [1, 100],
        [2, 100],
      ],
    );
    for (const [i, trace] of traces.entries()) {
      const result = await trace;
      expect(result.terminals, `viaProvider ${i === 1}`).toEqual([]);
      expect(result.exchange_hypotheses).toEqual([]);
      expect(walletList(result)).toContainEqual([9, "frontier", 3]);
      expect(totalsOf(result)).toMatchObject({ to_terminals: "0", at_hop_limit: "40" });
    }
  });

  it("still ends the trace at a hub that taint reaches below the hop limit", async () => {
    const traces = traceWithHubLimit(
      [
        [1, 2, 40, 2],
        [2, 9, 40, 3],
      ],
      [[1, 100]],
    );
    for (const trace of traces) {
      const result = await trace;
      expect(result.terminals.map((t) => [t.address, t.category, t.hop])).toEqual([[addr(9), "unlabeled_hub", 2]]);
      expect(totalsOf(result)).toMatchObject({ to_terminals: "40", at_hop_limit: "0" });
    }
  });
});

describe("the hub limit on both engines", () => {
  it("counts an address's transfers from the start of the block taint reached it in, on either engine", async () => {
    // 2 takes two clean transfers early in block 1, the subject's taint later in block 1, and pays 3 at
    // block 2: four transfers from block 1 on, over a hub limit of 3.
    const chain = chainOf(
      [
        [5, 2, 10, 1],
        [6, 2, 10, 1],
        [1, 2, 50, 1],
        [2, 3, 50, 2],
      ],
      {
        genesis: [
          [1, 100],
          [5, 10],
          [6, 10],
        ],
      },
    );
    const view = (result: TraceResult) => ({
      edges: edgeList(result),
      terminals: result.terminals.map((terminal) => [Number.parseInt(terminal.address, 16), terminal.category]),
    });
    for (const viaProvider of [false, true]) {
      const result = await traceChain(chain, { subjects: [[1, 0]], viaProvider, budget: { hub_event_limit: 3 } });
      expect(view(result), viaProvider ? "provider" : "preloaded graph").toEqual({
        edges: [[1, 2, "50", "50", 1]],
        terminals: [[2, "unlabeled_hub"]],
      });
    }
  });
});

describe("labels that hold for a time only", () => {
  // 3 becomes an exchange at block 7. Taint first reaches it at block 4 (over 2), before that.
  const exchangeFromBlock7 = { ...label(addr(3), "Exch", "exchange"), valid_from: EPOCH + 7 * BLOCK_TIME };
  const chain = chainOf(
    [
      [1, 2, 40, 2],
      [2, 3, 30, 4],
      [1, 3, 20, 10],
      [3, 4, 50, 11],
    ],
    { genesis: [[1, 100]], labels: [exchangeFromBlock7] },
  );

  it("decide what an address is when taint first reaches it, on every engine", async () => {
    for (const viaProvider of [false, true]) {
      const result = await traceChain(chain, { subjects: [[1, 1]], viaProvider });
      expect(result.terminals, `viaProvider ${viaProvider}`).toEqual([]);
      expect(walletList(result)).toContainEqual([3, "intermediary", 1]);
      expect(edgeList(result)).toContainEqual([3, 4, "50", "50", 2]);
      expect(totalsOf(result)).toMatchObject({ to_terminals: "0" });
    }
    const request = {
      network: chain.network,
      subjects: [{ address: addr(1), incident_block: 1n, source_refs: [] }],
      traced_at: TRACED_AT,
    };
    for (const engine of ["event-order", "discovery"] as const) {
      const computation = computeTraceOnGraph(chain.graph, request, { engine });
      expect(computation.state.labelOf.has(chain.graph.nodeOf(addr(3))!), engine).toBe(false);
    }
  });

  it("list a wallet's labels as of when taint first reached it, also when it opened later", async () => {
    // With max_hops 2, taint touches 3 at the hop limit at block 4, before it is an exchange; it opens at block 10.
    for (const viaProvider of [false, true]) {
      const result = await traceChain(chain, { subjects: [[1, 1]], viaProvider, request: { max_hops: 2 } });
      const wallet = result.wallets.find((w) => w.address === addr(3))!;
      expect(wallet.role, `viaProvider ${viaProvider}`).toBe("intermediary");
      expect(wallet.labels).toEqual([]);
    }
  });

  it("list a subject's labels as of when it was traced", async () => {
    const sanctioned = { ...label(addr(1), "OFAC SDN", "sanctioned"), valid_from: EPOCH };
    const expired = { ...label(addr(1), "Old Exchange", "exchange"), valid_to: EPOCH - 86_400 };
    const chain = chainOf([[1, 2, 40, 2]], { genesis: [[1, 100]], labels: [sanctioned, expired] });
    for (const viaProvider of [false, true]) {
      const result = await traceChain(chain, { subjects: [[1, 1]], viaProvider });
      const subject = result.wallets.find((w) => w.address === addr(1))!;
      expect(
        subject.labels.map((l) => l.entity),
        `viaProvider ${viaProvider}`,
      ).toEqual(["OFAC SDN"]);
    }
  });

  it("follow an address whose terminal label ended before taint reached it, though it held when funds first could", async () => {
    // Discovery's earliest arrival at 3 (block 4, clean under fifo) falls in the label's window; taint
    // arrives at block 8, after it ended: discovery must read 3's transfers.
    const ended = {
      ...label(addr(3), "Exch", "exchange"),
      valid_from: EPOCH + 3 * BLOCK_TIME,
      valid_to: EPOCH + 6 * BLOCK_TIME,
    };
    const chain = chainOf(
      [
        [1, 2, 40, 2],
        [2, 3, 50, 4],
        [2, 3, 90, 8],
        [3, 4, 60, 9],
      ],
      {
        genesis: [
          [1, 100],
          [2, 100],
        ],
        labels: [ended],
      },
    );
    for (const viaProvider of [false, true]) {
      const result = await traceChain(chain, { subjects: [[1, 1]], viaProvider });
      expect(walletList(result), `viaProvider ${viaProvider}`).toContainEqual([3, "intermediary", 2]);
      expect(result.terminals).toEqual([]);
      // 3 holds the 40 (its 60 out at block 9 is the clean value it held first, under fifo).
      const wallet = result.wallets.find((w) => w.address === addr(3))!;
      expect(wallet.retained?.map((r) => r.base_units)).toEqual(["40"]);
      expect(totalsOf(result)).toMatchObject({ to_terminals: "0" });
    }
  });

  it("treat a label's end as exclusive: taint arriving at valid_to finds it no longer holding", async () => {
    const endsAt4 = { ...label(addr(3), "Exch", "exchange"), valid_to: EPOCH + 4 * BLOCK_TIME };
    const chain = chainOf(
      [
        [1, 3, 40, 4],
        [3, 4, 40, 5],
      ],
      { genesis: [[1, 100]], labels: [endsAt4] },
    );
    for (const viaProvider of [false, true]) {
      const result = await traceChain(chain, { subjects: [[1, 1]], viaProvider });
      expect(result.terminals, `viaProvider ${viaProvider}`).toEqual([]);
      expect(edgeList(result)).toContainEqual([3, 4, "40", "40", 2]);
    }
  });

  it("make the address a terminal when taint first reaches it while the label holds", async () => {
    const later = chainOf(
      [
        [1, 2, 40, 2],
        [2, 3, 30, 8],
        [3, 4, 30, 11],
      ],
      { genesis: [[1, 100]], labels: [exchangeFromBlock7] },
    );
    for (const viaProvider of [false, true]) {
      const result = await traceChain(later, { subjects: [[1, 1]], viaProvider });
      expect(result.terminals.map((t) => [t.address, t.category, t.entity])).toEqual([[addr(3), "exchange", "Exch"]]);
      expect(edgeList(result)).not.toContainEqual(expect.arrayContaining([3, 4]));
      expect(totalsOf(result)).toMatchObject({ to_terminals: "30" });
    }
  });
});

describe("the zero address", () => {
  it("is a burn terminal: what reaches it is destroyed, and what it later mints is not followed", async () => {
    // 0 mints 1000 to 2, the subject 1 burns 100 to 0, then 0 mints 50 to 3.
    const chain = chainOf(
      [
        [0, 2, 1000, 1],
        [1, 0, 100, 3],
        [0, 3, 50, 5],
      ],
      { genesis: [[1, 100]] },
    );
    for (const viaProvider of [false, true]) {
      const result = await traceChain(chain, { subjects: [[1, 2]], viaProvider });
      expect(edgeList(result), `viaProvider ${viaProvider}`).toEqual([[1, 0, "100", "100", 1]]);
      expect(result.terminals.map((t) => [t.address, t.category, t.entity, t.hop])).toEqual([
        [addr(0), "burn", "Zero address (burned)", 1],
      ]);
      expect(result.wallets.map((w) => w.address)).toEqual([addr(1)]);
      expect(result.exchange_hypotheses).toEqual([]);
      expect(totalsOf(result)).toMatchObject({ subject_taint: "100", to_terminals: "100" });
      const source = result.sources.find((entry) => entry.source_type === "label");
      await expect(traceChain(chain, { subjects: [[0, 1]], viaProvider })).rejects.toThrow(/cannot be a subject/);
      expect(source).toMatchObject({
        title:
          "Zero address (burned) (burn) from built-in: The EVM convention: a transfer to the zero address burns, a transfer from it mints.",
        dataset: "built-in",
      });
    }
  });
});

describe("a subject whose incident block is after the window", () => {
  it("reads none of its events, on either engine", async () => {
    const chain = chainOf(
      [
        [1, 2, 1, 2],
        [1, 2, 1, 6],
        [1, 2, 1, 7],
        [1, 2, 1, 12],
      ],
      { genesis: [[1, 100]] },
    );
    const request = {
      network: chain.network,
      subjects: [{ address: addr(1), incident_block: 10n, source_refs: [] }],
      traced_at: TRACED_AT,
    };
    for (const engine of ["event-order", "discovery"] as const) {
      const computation = computeTraceOnGraph(chain.graph, request, { toBlock: 5, engine });
      expect(computation.state.edgesAdmitted, engine).toBe(0);
      expect(computation.sweep.edgeEvent.length).toBe(0);
    }
  });
});

describe("taint sent to a subject that does not take it", () => {
  const bucketsOf = (result: TraceResult) => {
    const totals = totalsOf(result)!;
    const sum = [totals.to_terminals, totals.retained, totals.at_hop_limit, totals.dust, totals.unexplored]
      .map(BigInt)
      .reduce((x, y) => x + y);
    return { ...totals, buckets: String(sum) };
  };
  for (const viaProvider of [false, true]) {
    const engine = viaProvider ? "provider" : "preloaded graph";
    it(`counts what one subject sent another before its incident block once, as the receiver's holding (${engine})`, async () => {
      // 1 pays subject 2 at block 2; 2's holdings count from its incident block 5; it pays 3 at 6.
      const chain = chainOf(
        [
          [1, 2, 40, 2],
          [2, 3, 10, 6],
        ],
        { genesis: [[1, 100]] },
      );
      const result = await traceChain(chain, {
        subjects: [
          [1, 1],
          [2, 5],
        ],
        viaProvider,
      });
      expect(edgeList(result)).toEqual([
        [1, 2, "40", "40", 1],
        [2, 3, "10", "10", 1],
      ]);
      expect(bucketsOf(result)).toMatchObject({
        subject_taint: "100",
        retained: "100",
        unexplored: "0",
        buckets: "100",
      });
      expect(
        result.token_exposures.map((exposure) => [exposure.wallet, exposure.basis, exposure.amount.base_units]),
      ).toEqual([
        [addr(1), "retained", "60"],
        [addr(2), "retained", "30"],
        [addr(3), "retained", "10"],
      ]);
    });

    it(`counts as unexplored what a subject passed on before its incident block (${engine})`, async () => {
      // 2 pays 30 of the subject's 40 to 4 before its own incident block, so it holds 10 when it opens.
      const chain = chainOf(
        [
          [1, 2, 40, 2],
          [2, 4, 30, 3],
          [2, 3, 10, 6],
        ],
        { genesis: [[1, 100]] },
      );
      const result = await traceChain(chain, {
        subjects: [
          [1, 1],
          [2, 5],
        ],
        viaProvider,
      });
      expect(bucketsOf(result)).toMatchObject({
        subject_taint: "100",
        retained: "70",
        unexplored: "30",
        buckets: "100",
      });
      expect(result.wallets.find((wallet) => wallet.address === addr(4))).toBeUndefined();
    });

    it(`counts what reached a subject a budget left out as unexplored (${engine})`, async () => {
      const chain = chainOf([[3, 1, 2, 1]], { genesis: [[3, 2]] });
      const result = await traceChain(chain, {
        subjects: [
          [3, 0],
          [1, 0],
        ],
        viaProvider,
        budget: { max_expansions: 1 },
      });
      expect(result.truncation.map((cut) => cut.reason)).toContain("max_expansions");
      expect(bucketsOf(result)).toMatchObject({ subject_taint: "2", retained: "0", unexplored: "2", buckets: "2" });
      expect(
        result.token_exposures.map((exposure) => [exposure.wallet, exposure.basis, exposure.amount.base_units]),
      ).toEqual([[addr(1), "received", "2"]]);
      const skipped = result.wallets.find((wallet) => wallet.address === addr(1));
      expect(skipped).toMatchObject({
        role: "subject",
        retained: null,
        retained_reason: "not expanded: a budget or the deadline ended the trace first",
      });
      expect(skipped?.received.map((amount) => amount.base_units)).toEqual(["2"]);
    });
  }
});

describe("balances that do not add up", () => {
  const MODELS: TaintModel[] = ["fifo", "haircut", "poison"];
  const walletOf = (result: TraceResult, node: number) => result.wallets.find((w) => w.address === addr(node))!;
  const shortfallOf = (result: TraceResult, node: number) =>
    walletOf(result, node).shortfall.map((amount) => [amount.asset, amount.base_units]);

  for (const taint_model of MODELS) {
    it(`treat a balance read below zero as unknown, so no edge carries more taint than it moves (${taint_model})`, async () => {
      const chain = chainOf(
        [
          [1, 2, 40, 2],
          [2, 3, 40, 3],
        ],
        { genesis: [[1, 100]] },
      );
      // A provider that reads the subject's balance as 100 − 130 = −30, and 3's as 100 less than it is: no
      // address holds less than nothing.
      const provider = new LowBalanceReads(
        chain,
        new Map([
          [addr(1), 130n],
          [addr(3), 100n],
        ]),
      );
      const result = await traceChain(chain, { subjects: [[1, 1]], provider, request: { taint_model } });
      expect(edgeList(result)).toEqual([
        [1, 2, "40", "40", 1],
        [2, 3, "40", "40", 2],
      ]);
      expect(walletOf(result, 1).opening_balance_unknown).toEqual([USD_KEY]);
      // Unknown, the subject's balance counts as nothing: all 40 it sent was beyond what it was known to hold.
      expect(shortfallOf(result, 1)).toEqual([[USD_KEY, "40"]]);
      expect(totalsOf(result)).toMatchObject({ subject_taint: "40", retained: "40", unexplored: "0" });
      for (const edge of result.edges) {
        expect(BigInt(edge.tainted.base_units)).toBeLessThanOrEqual(BigInt(edge.amount.base_units));
      }
      expect(walletOf(result, 3).opening_balance_unknown).toEqual([USD_KEY]);
      // 3 holds the 40 it received; the provider reads its stablecoin at the last block as 40 − 100: no
      // balance, with why.
      const held = result.stablecoin_exposures.find((exposure) => exposure.wallet === addr(3))!;
      expect(held.amount.base_units).toBe("40");
      expect(held.balance).toBeNull();
      expect(held.balance_reason).toMatch(/below zero/);
    });

    it(`open a wallet whose reads and transfers leave it below zero at nothing, counting the gap as shortfall (${taint_model})`, async () => {
      // Address 2 sends 50 in the block taint reaches it, before the taint arrives. The provider reads its
      // balance before that block as 0 (it held 50, say by an internal call the provider does not report),
      // so what the trace knows of it is 0 − 50 when the taint arrives.
      const chain = chainOf(
        [
          [2, 4, 50, 2],
          [1, 2, 40, 2],
          [2, 3, 40, 3],
        ],
        {
          genesis: [
            [1, 100],
            [2, 50],
          ],
        },
      );
      const provider = new LowBalanceReads(chain, new Map([[addr(2), 50n]]));
      const result = await traceChain(chain, { subjects: [[1, 1]], provider, request: { taint_model } });
      expect(edgeList(result)).toEqual([
        [1, 2, "40", "40", 1],
        [2, 3, "40", "40", 2],
      ]);
      expect(walletOf(result, 2).opening_balance_unknown).toEqual([]);
      expect(shortfallOf(result, 2)).toEqual([[USD_KEY, "50"]]);
      expect(walletOf(result, 2).retained).toEqual([]);
      // The subject's 100 is all the debtor's: 60 it kept, 40 that reached 3.
      expect(totalsOf(result)).toMatchObject({ subject_taint: "100", retained: "100", unexplored: "0" });
    });
  }
});

describe("exposures", () => {
  it("cite, through a provider, the balance reads that fixed each wallet's opening balance", async () => {
    const chain = chainOf(
      [
        [1, 2, 30, 2],
        [2, 3, 10, 3],
      ],
      {
        genesis: [
          [1, 100],
          [2, 5],
        ],
      },
    );
    const result = await traceChain(chain, { subjects: [[1, 1]], viaProvider: true });
    const methodOf = new Map(
      result.sources.map((source) => [source.source_id, "method" in source ? source.method : null]),
    );
    const balanceReads = (refs: string[]) => refs.filter((id) => methodOf.get(id) === "synthetic.balanceAt");
    for (const node of [1, 2]) {
      const wallet = result.wallets.find((found) => found.address === addr(node))!;
      expect(balanceReads(wallet.source_refs), `wallet ${node}`).toHaveLength(1);
      const held = result.token_exposures.find((exposure) => exposure.wallet === addr(node))!;
      expect(held.source_refs).toEqual(expect.arrayContaining(balanceReads(wallet.source_refs)));
    }
    // Over the preloaded chain no opening balance is read: they follow from the transfers.
    const preloaded = await traceChain(chain, { subjects: [[1, 1]] });
    const preloadedMethod = new Map(
      preloaded.sources.map((source) => [source.source_id, "method" in source ? source.method : null]),
    );
    for (const wallet of preloaded.wallets) {
      expect(wallet.source_refs.filter((id) => preloadedMethod.get(id) === "synthetic.balanceAt")).toEqual([]);
    }
  });

  for (const viaProvider of [false, true]) {
    const engine = viaProvider ? "provider" : "preloaded graph";
    it(`keep what a wallet received at the hop limit when it opens later over another asset (${engine})`, async () => {
      const chain = chainOf(
        [
          [1, 2, 10, 1],
          // 3 takes 10 USDX at the hop limit (2), then ETH from the subject directly, which opens it
          [2, 3, 10, 2],
          [1, 3, 5, 3, "eth"],
        ],
        {
          genesis: [
            [1, 10],
            [1, 5, "eth"],
          ],
        },
      );
      const result = await traceChain(chain, { subjects: [[1, 0]], viaProvider, request: { max_hops: 2 } });
      expect(totalsOf(result)).toMatchObject({ at_hop_limit: "10" });
      const atThree = (
        exposures: Array<{ asset: string; wallet: string; amount: { base_units: string }; basis: string }>,
      ) =>
        exposures
          .filter((exposure) => exposure.asset === `erc20:${TOKEN}` && exposure.wallet === addr(3))
          .map((exposure) => [exposure.basis, exposure.amount.base_units]);
      expect(atThree(result.token_exposures)).toEqual([["received", "10"]]);
      expect(atThree(result.stablecoin_exposures)).toEqual([["received", "10"]]);
    });

    it(`of a subject cite its case documents and the transfers that show it was read (${engine})`, async () => {
      const result = await traceChain(chainOf([[1, 2, 30, 2]], { genesis: [[1, 100]] }), {
        subjects: [[1, 1]],
        viaProvider,
      });
      const held = result.token_exposures.find((exposure) => exposure.wallet === addr(1));
      expect(held).toMatchObject({ basis: "retained", amount: { base_units: "70" } });
      const sent = result.edges.find((edge) => edge.from === addr(1))!;
      // (through a provider, also the read of its opening balance: the wallet cites it too)
      const wallet = result.wallets.find((found) => found.address === addr(1))!;
      const openingReads = wallet.source_refs.filter((id) => id !== "case-1" && !sent.source_refs.includes(id));
      expect(openingReads).toHaveLength(viaProvider ? 1 : 0);
      expect(held?.source_refs).toEqual([...new Set([...sent.source_refs, "case-1", ...openingReads])].sort());
      const stable = result.stablecoin_exposures.find((exposure) => exposure.wallet === addr(1));
      expect(stable?.source_refs).toEqual(expect.arrayContaining(["case-1", ...sent.source_refs]));
    });
  }

  const chain = chainOf(
    [
      [1, 2, 500_000_000, 2],
      [9, 8, 1, 5],
    ],
    {
      genesis: [
        [1, 500_000_000],
        [9, 1],
      ],
      freezes: [[2, 3]],
    },
  );

  it("reports a stablecoin holding with the issuer's freeze capability and the live freeze status", async () => {
    const result = await traceChain(chain, { subjects: [[1, 1]] });
    expect(result.stablecoin_exposures).toEqual([
      expect.objectContaining({
        issuer: "USDX Issuer",
        wallet: addr(2),
        amount: { base_units: "500000000", amount: "500" },
        basis: "retained",
        balance: expect.objectContaining({ amount: { base_units: "500000000", amount: "500" }, block: "5" }),
        frozen: true,
        frozen_reason: null,
        review_required: true,
        remediation_candidates: [{ action: "Ask the issuer to blacklist the holder.", review_required: true }],
      }),
    ]);
    expect(result.stablecoin_exposures[0]!.freeze_capability_notes).toContain("blacklist(address)");
  });

  describe("a subject's holding of an issuer's token it did not move", () => {
    // Subject 1 holds 250 USDX and some ETH; after its incident it moves only ETH. Subject 5 moves USDX.
    const untouched = chainOf(
      [
        [1, 2, 40, 2, "eth"],
        [5, 6, 10, 3],
      ],
      {
        genesis: [
          [1, 250_000_000],
          [1, 100, "eth"],
          [5, 30],
        ],
        freezes: [[1, 1]],
      },
    );
    const subjects: Array<[number, number]> = [
      [1, 1],
      [5, 1],
    ];
    for (const viaProvider of [false, true]) {
      const engine = viaProvider ? "provider" : "preloaded graph";
      it(`is read from the chain and listed as held, citing the read and the case documents (${engine})`, async () => {
        const result = await traceChain(untouched, {
          subjects,
          viaProvider,
          request: { prices: { [USD_KEY]: { usd_per_unit: "1", as_of: "2026-07-05", source: "test" } } },
        });
        const methodOf = new Map(
          result.sources.map((source) => [source.source_id, "method" in source ? source.method : null]),
        );
        const heldStable = result.stablecoin_exposures.filter((exposure) => exposure.basis === "held");
        expect(heldStable).toEqual([
          expect.objectContaining({
            issuer: "USDX Issuer",
            wallet: addr(1),
            asset: USD_KEY,
            amount: { base_units: "250000000", amount: "250" },
            balance: expect.objectContaining({ amount: { base_units: "250000000", amount: "250" } }),
            frozen: true,
          }),
        ]);
        const [read] = heldStable[0]!.balance!.source_refs;
        expect(methodOf.get(read!)).toBe("synthetic.balanceAt");
        expect(heldStable[0]!.source_refs).toEqual(expect.arrayContaining(["case-1", read]));
        const heldTokens = result.token_exposures.filter((exposure) => exposure.basis === "held");
        expect(heldTokens).toEqual([
          expect.objectContaining({ wallet: addr(1), asset: USD_KEY, usd_value: "250", source_refs: ["case-1", read] }),
        ]);
        // Subject 5 moved its USDX: that holding is traced (retained), not read as held.
        expect(result.token_exposures.filter((exposure) => exposure.wallet === addr(5))).toEqual([
          expect.objectContaining({ basis: "retained", amount: { base_units: "20", amount: "0.00002" } }),
        ]);
        expect(result.assets.map((asset) => asset.asset)).toContain(USD_KEY);
        // Nothing moved, so the totals, which follow transfers, do not count the held 250.
        expect(totalsOf(result)).toMatchObject({ subject_taint: "30" });
      });
    }

    it("is not read when stablecoins are left out, nor for a subject a budget cut off", async () => {
      const without = await traceChain(untouched, { subjects, request: { include_stablecoins: false } });
      expect(without.token_exposures.filter((exposure) => exposure.basis === "held")).toEqual([]);
      expect(without.stablecoin_exposures).toEqual([]);
      const cut = await traceChain(untouched, { subjects, budget: { max_expansions: 0 } });
      expect(cut.token_exposures).toEqual([]);
    });

    for (const viaProvider of [false, true]) {
      it(`is read for a subject with no transfers in the window at all (${viaProvider ? "provider" : "preloaded graph"})`, async () => {
        // Subject 1's incident block is after its last transfer: nothing of it is traced, but it holds 250 USDX.
        const result = await traceChain(untouched, { subjects: [[1, 3]], viaProvider });
        expect(result.edges).toEqual([]);
        expect(result.token_exposures.map((exposure) => [exposure.wallet, exposure.basis])).toEqual([
          [addr(1), "held"],
        ]);
        expect(
          result.stablecoin_exposures.map((exposure) => [exposure.wallet, exposure.basis, exposure.amount.amount]),
        ).toEqual([[addr(1), "held", "250"]]);
      });
    }

    for (const viaProvider of [false, true]) {
      it(`is not read again where the trace lists the holding: taint one subject sent another before its incident (${viaProvider ? "provider" : "preloaded graph"})`, async () => {
        // Subject 1 sends 40 USDX to subject 5 at block 2; 5's incident is block 5 and it never moves them.
        const sent = chainOf([[1, 5, 40_000_000, 2]], { genesis: [[1, 100_000_000]] });
        const result = await traceChain(sent, {
          subjects: [
            [1, 1],
            [5, 5],
          ],
          viaProvider,
        });
        const atFive = (exposures: Array<{ wallet: string; basis: string; amount: { amount: string | null } }>) =>
          exposures.filter((e) => e.wallet === addr(5)).map((e) => [e.basis, e.amount.amount]);
        expect(atFive(result.token_exposures)).toEqual([["received", "40"]]);
        expect(atFive(result.stablecoin_exposures)).toEqual([["received", "40"]]);
      });
    }

    it("is described by the provider when no traced transfer moved the token", async () => {
      // Through a provider the trace knows only the assets it read transfers of: here only ETH.
      const ethOnly = chainOf([[1, 2, 40, 2, "eth"]], {
        genesis: [
          [1, 250_000_000],
          [1, 100, "eth"],
        ],
      });
      const result = await traceChain(ethOnly, { subjects: [[1, 1]], viaProvider: true });
      expect(result.stablecoin_exposures).toEqual([
        expect.objectContaining({ basis: "held", amount: { base_units: "250000000", amount: "250" } }),
      ]);
      expect(result.assets.find((asset) => asset.asset === USD_KEY)).toMatchObject({ decimals: 6, symbol: "USDX" });
    });
  });

  it("leaves usd_value null with a reason without a price, and values exactly with one", async () => {
    const unpriced = await traceChain(chain, { subjects: [[1, 1]] });
    expect(unpriced.token_exposures.map((t) => [t.wallet, t.amount.amount, t.usd_value, t.usd_value_reason])).toEqual([
      [addr(2), "500", null, "no price source was given for this asset"],
    ]);
    const priced = await traceChain(chain, {
      subjects: [[1, 1]],
      request: { prices: { [USD_KEY]: { usd_per_unit: "0.9985", as_of: "2026-07-05", source: "test" } } },
    });
    expect(priced.token_exposures[0]!.usd_value).toBe("499.25");
  });
});

describe("budgets and cancellation", () => {
  it("says a subject the deadline cut off was not expanded, not that it had no transfers", async () => {
    const chain = chainOf([[1, 2, 30, 2]], { genesis: [[1, 100]] });
    for (const viaProvider of [false, true]) {
      const result = await traceChain(chain, { subjects: [[1, 1]], viaProvider, deadlineReached: () => true });
      expect(result.truncation.map((cut) => cut.reason)).toEqual(["deadline"]);
      expect(result.wallets.find((wallet) => wallet.address === addr(1))?.retained_reason).toBe(
        "not expanded: a budget or the deadline ended the trace first",
      );
    }
  });

  const chain = chainOf(
    [
      [1, 2, 100, 2],
      [2, 3, 100, 3],
      [3, 4, 100, 4],
    ],
    { genesis: [[1, 100]] },
  );

  it("reports max_expansions when it stops expanding, and counts the taint it did not follow", async () => {
    const result = await traceChain(chain, { subjects: [[1, 1]], budget: { max_expansions: 2 } });
    expect(result.truncated).toBe(true);
    expect(result.truncation.map((t) => t.reason)).toEqual(["max_expansions"]);
    expect(walletList(result)).toEqual([
      [1, "subject", 0],
      [2, "intermediary", 1],
      [3, "unexplored", 2],
    ]);
    expect(totalsOf(result)).toMatchObject({ subject_taint: "100", unexplored: "100" });
    expect(result.budget).toMatchObject({ max_expansions: 2, expansions: 2 });
  });

  it("reports max_edges when reading more events would exceed it", async () => {
    const result = await traceChain(chain, { subjects: [[1, 1]], budget: { max_edges: 3 } });
    expect(result.truncation.map((t) => t.reason)).toEqual(["max_edges"]);
    expect(result.budget.edges_read).toBeLessThanOrEqual(3);
  });

  it("reports a deadline that has passed, on the preloaded graph", async () => {
    const result = await traceChain(chain, { subjects: [[1, 1]], deadlineReached: () => true });
    expect(result.truncated).toBe(true);
    expect(result.truncation.map((t) => t.reason)).toEqual(["deadline"]);
    expect(result.edges).toEqual([]);
  });

  it("reports a deadline that passes between provider requests and keeps what it read", async () => {
    let checks = 0;
    const result = await traceChain(chain, {
      subjects: [[1, 1]],
      viaProvider: true,
      pageSize: 100,
      deadlineReached: () => ++checks > 3,
    });
    expect(result.truncation.map((t) => t.reason)).toEqual(["deadline"]);
    expect(edgeList(result)).toEqual([[1, 2, "100", "100", 1]]);
    expect(walletList(result)).toEqual([
      [1, "subject", 0],
      [2, "unexplored", 1],
    ]);
  });

  it("rejects with the abort reason when cancelled", async () => {
    const controller = new AbortController();
    controller.abort(new Error("job canceled"));
    await expect(traceChain(chain, { subjects: [[1, 1]], signal: controller.signal })).rejects.toThrow("job canceled");
  });
});

describe("result shape", () => {
  it("carries source refs on every edge, wallet and hypothesis, all present in the manifest", async () => {
    const chain = chainOf(
      [
        [1, 2, 100, 2],
        [2, 6, 100, 3],
      ],
      { genesis: [[1, 100]], labels: [label(addr(6), "Exchange Z", "exchange")] },
    );
    for (const viaProvider of [false, true]) {
      const result = await traceChain(chain, { subjects: [[1, 1]], viaProvider });
      const ids = new Set(result.sources.map((s) => s.source_id));
      const cited = [
        ...result.edges.flatMap((e) => e.source_refs),
        ...result.wallets.flatMap((w) => w.source_refs),
        ...result.terminals.flatMap((t) => t.source_refs),
        ...result.exchange_hypotheses.flatMap((h) => h.source_refs),
      ];
      expect(result.edges.every((e) => e.source_refs.length > 0)).toBe(true);
      expect(result.wallets.every((w) => w.source_refs.length > 0)).toBe(true);
      expect(cited.every((id) => ids.has(id))).toBe(true);
      expect(result.sources.find((s) => s.source_id === "case-1")).toMatchObject({ source_type: "case_document" });
      expect(result.sources.some((s) => s.source_type === "label")).toBe(true);
    }
  });

  it("keeps traced_at from the caller and amounts as exact strings", async () => {
    const chain = chainOf([[1, 2, 123456789, 2]], { genesis: [[1, 123456789]] });
    const result = await traceChain(chain, { subjects: [[1, 1]] });
    expect(result.traced_at).toBe("2026-07-05T12:00:00.000Z");
    expect(result.edges[0]!.amount).toEqual({ base_units: "123456789", amount: "123.456789" });
    expect(result.edges[0]!.block_time).toBe("2026-01-01T00:00:24.000Z");
  });
});
