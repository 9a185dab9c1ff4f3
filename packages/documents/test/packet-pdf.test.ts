import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { renderPacketPdf } from "../src/packet-pdf";
import { buildFixtureDocument, MANIFEST } from "./fixture";

const workDirectory = mkdtempSync(join(tmpdir(), "packet-pdf-"));
afterAll(() => rmSync(workDirectory, { recursive: true, force: true }));

/** The PDF's text as poppler's pdftotext reads it (Debian package poppler-utils). */
function pdfText(bytes: Uint8Array, name: string): string {
  const file = join(workDirectory, `${name}.pdf`);
  writeFileSync(file, bytes);
  try {
    return execFileSync("pdftotext", ["-layout", "-enc", "UTF-8", file, "-"], { encoding: "utf8" });
  } catch (error) {
    throw new Error(`pdftotext failed (is poppler-utils installed?): ${String(error)}`);
  }
}

function pdfPageCount(bytes: Uint8Array, name: string): number {
  const file = join(workDirectory, `${name}.pdf`);
  writeFileSync(file, bytes);
  const info = execFileSync("pdfinfo", [file], { encoding: "utf8" });
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
}

describe("renderPacketPdf", () => {
  it("shows the judgment, every wallet, the hashes and page numbers as readable text", async () => {
    const document = buildFixtureDocument();
    const bytes = await renderPacketPdf(document);
    const text = pdfText(bytes, "full");
    const judgment = MANIFEST.judgment!;

    expect(text).toContain("Exchange account freeze request");
    expect(text).toContain(document.packet.packet_id);
    expect(text).toContain(document.matter.name);
    expect(text).toContain("5 July 2026, 20:33:57 UTC");
    for (const value of [judgment.court, judgment.case_number, judgment.jurisdiction, judgment.creditor]) {
      expect(text).toContain(value);
    }
    expect(text).toContain("Борис Петров (Boris Petrov)");
    expect(text).toContain("4,250,000.50 USD");
    expect(text).toContain("2025-11-03");
    for (const wallet of MANIFEST.wallets) expect(text).toContain(wallet.address);
    expect(text).toContain("1,275,000.00");
    expect(text).toContain("COC-2026-0114");
    expect(text).toContain(document.packet.content_hash);
    for (const event of document.chain_of_custody!.events) expect(text).toContain(event.hash);
    expect(text).toContain("Valid: 5 events checked");
    expect(text).toContain("5 of 5 entries pass");
    const pages = pdfPageCount(bytes, "full");
    expect(pages).toBeGreaterThan(1);
    for (let page = 1; page <= pages; page++) expect(text).toContain(`Page ${page} of ${pages}`);
  });

  it("renders names in Latin, Cyrillic and Greek scripts with the embedded font", async () => {
    const text = pdfText(await renderPacketPdf(buildFixtureDocument()), "scripts");
    expect(text).toContain("Zoë Ångström");
    expect(text).toContain("María-José Núñez");
    expect(text).toContain("Борис Петров");
    expect(text).toContain("Παπαδοπούλου");
  });

  it("leaves the chain of custody out unless the export asks for it", async () => {
    const text = pdfText(await renderPacketPdf(buildFixtureDocument({ include_chain_of_custody: false })), "nochain");
    expect(text).not.toContain("Chain of custody");
    expect(text).toContain("Integrity");
  });

  it("masks contact details and identifiers under the external profile", async () => {
    const text = pdfText(await renderPacketPdf(buildFixtureDocument({ redaction_profile: "external" })), "external");
    expect(text).not.toContain("claims@acme.example");
    expect(text).not.toContain("X1234567");
    expect(text).toContain("email: [redacted]");
    expect(text).toContain("Acme Recovery Partners LLC");
  });

  it("flags a chain entry whose content no longer matches its hash", async () => {
    const document = buildFixtureDocument();
    const tampered = document.chain_of_custody!.events[2]!;
    tampered.data = { ...tampered.data, note: "edited after the fact" };
    const text = pdfText(await renderPacketPdf(document), "tampered");
    expect(text).toContain("4 of 5 entries pass");
    expect(text).toContain("✗ hash");
  });

  it("refuses a document whose content hash is not the hash of its manifest", async () => {
    const document = buildFixtureDocument();
    document.packet.content_hash = "0".repeat(64);
    await expect(renderPacketPdf(document)).rejects.toThrow(/not the hash of its manifest/);
  });
});
