import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createLabelStore,
  LabelFileError,
  loadLabelFile,
  parseLabelDocument,
  sanctionedAddressLabels,
} from "../src/index";

const HOT = "0x28C6c06298d514Db089934071355E5743bf21d60";
const document = {
  format: "crs-labels/1",
  dataset: "ops-exchange-attributions",
  license: "internal",
  retrieved_at: "2026-07-01T00:00:00Z",
  source_uri: "https://attributions.example/dataset",
  labels: [
    {
      network: "ethereum",
      address: HOT,
      entity: "Exchange B",
      category: "exchange",
      confidence: "service_api",
      as_of: "2026-06-30",
    },
    {
      network: "ethereum",
      address: "0x0000000000000000000000000000000000000abc",
      entity: "Bridge C",
      category: "bridge",
      confidence: 35,
      source_uri: "https://bridge-c.example/contracts",
      valid_from: "2025-01-01T00:00:00Z",
      valid_to: "2026-01-01T00:00:00Z",
    },
  ],
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "crs-labels-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("label files", () => {
  it("turns a document into labels with confidence, source and validity window", () => {
    const [hot, bridge] = parseLabelDocument(document);
    expect(hot).toEqual({
      network: "ethereum",
      address: HOT.toLowerCase(),
      entity: "Exchange B",
      category: "exchange",
      confidence: 70,
      confidence_basis: "service_api",
      source: {
        dataset: "ops-exchange-attributions",
        uri: "https://attributions.example/dataset",
        license: "internal",
        as_of: "2026-06-30",
        retrieved_at: "2026-07-01T00:00:00Z",
      },
      valid_from: null,
      valid_to: null,
      note: null,
    });
    expect(bridge).toMatchObject({
      confidence: 35,
      confidence_basis: "stated",
      source: { uri: "https://bridge-c.example/contracts" },
      valid_from: 1_735_689_600,
      valid_to: 1_767_225_600,
    });
  });

  it("refuses a document that would put a wrong fact in a trace, naming the entry", () => {
    const bad = (patch: Record<string, unknown>) => ({ ...document, labels: [{ ...document.labels[0], ...patch }] });
    expect(() => parseLabelDocument(bad({ address: "0x1234" }))).toThrow(
      /labels\.0: 0x1234 is not a 20-byte hex address/,
    );
    expect(() => parseLabelDocument(bad({ category: "casino" }))).toThrow(LabelFileError);
    expect(() => parseLabelDocument(bad({ confidence: 101 }))).toThrow(LabelFileError);
    expect(() => parseLabelDocument(bad({ as_of: "30/06/2026" }))).toThrow(/as_of/);
    expect(() => parseLabelDocument(bad({ unexpected: true }))).toThrow(LabelFileError);
    expect(() => parseLabelDocument({ ...document, format: "crs-labels/2" })).toThrow(/format/);
    expect(() =>
      parseLabelDocument(bad({ valid_from: "2026-01-01T00:00:00Z", valid_to: "2025-01-01T00:00:00Z" })),
    ).toThrow(/valid_to must be after valid_from/);
  });

  it("loads files and sanctioned addresses into one lookup, case-insensitively for EVM addresses", async () => {
    const path = join(dir, "labels.json");
    await writeFile(path, JSON.stringify(document));
    expect(await loadLabelFile(path)).toHaveLength(2);
    const store = await createLabelStore({
      files: [path],
      sanctioned: [
        {
          network: "ethereum",
          address: HOT,
          list: "OFAC SDN",
          entry_id: "12345",
          name: "Listed Person",
          published_at: "2026-06-01",
          source_uri: "https://sanctions.example/sdn",
        },
      ],
    });
    expect(store.size).toBe(3);
    expect(store.labelsFor("ethereum", HOT.toUpperCase().replace("0X", "0x")).map((l) => l.category)).toEqual([
      "exchange",
      "sanctioned",
    ]);
    expect(store.labelsFor("evm:1", HOT)).toEqual([]);
  });

  it("gives sanctioned addresses authority-data confidence and keeps the list entry", () => {
    const [label] = sanctionedAddressLabels([
      {
        network: "tron",
        address: "TXYZ1234",
        list: "OFAC SDN",
        entry_id: "777",
        name: "Listed Entity",
        published_at: "2026-06-01",
        source_uri: "https://sanctions.example/sdn",
      },
    ]);
    expect(label).toMatchObject({
      address: "TXYZ1234",
      category: "sanctioned",
      confidence: 60,
      confidence_basis: "authority_data",
      note: "OFAC SDN entry 777",
      source: { dataset: "OFAC SDN", as_of: "2026-06-01" },
    });
  });

  it("reports a missing or malformed file as a label file error", async () => {
    await expect(loadLabelFile(join(dir, "absent.json"))).rejects.toBeInstanceOf(LabelFileError);
    const path = join(dir, "broken.json");
    await writeFile(path, "{ not json");
    await expect(loadLabelFile(path)).rejects.toBeInstanceOf(LabelFileError);
  });
});
