/**
 * Builds the fixture packet's three artifacts and prints them as JSON (base64), so a test can
 * compare the bytes built in separate processes under different time zones.
 */
import { buildPacketJson } from "../../src/packet-json";
import { renderPacketPdf } from "../../src/packet-pdf";
import { buildPacketZip } from "../../src/packet-zip";
import { buildFixtureDocument } from "../fixture";

const document = buildFixtureDocument();
const artifacts = {
  timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  pdf: Buffer.from(await renderPacketPdf(document)).toString("base64"),
  zip: Buffer.from(await buildPacketZip({ ...document, export: { ...document.export, format: "zip" } })).toString(
    "base64",
  ),
  json: Buffer.from(buildPacketJson({ ...document, export: { ...document.export, format: "json" } })).toString(
    "base64",
  ),
};
process.stdout.write(JSON.stringify(artifacts));
