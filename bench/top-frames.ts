/**
 * `tsx bench/top-frames.ts <file.cpuprofile> [n]`: the n (default 15) functions with the most self time
 * in a V8 CPU profile (node --cpu-prof), as a share of all samples, with their file and line.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
const [file, count = "15"] = process.argv.slice(2);
if (!file) {
  console.error("usage: tsx bench/top-frames.ts <file.cpuprofile> [n]");
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: ProfileNode[]; samples: number[] };
const hits = new Map<number, number>();
for (const sample of profile.samples) hits.set(sample, (hits.get(sample) ?? 0) + 1);
const byFrame = new Map<string, number>();
for (const node of profile.nodes) {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules\/\.pnpm\/|hot-path\/)/, "")}:${lineNumber + 1}` : "";
  const name = `${functionName || "(anonymous)"} ${where}`.trim();
  byFrame.set(name, (byFrame.get(name) ?? 0) + (hits.get(node.id) ?? 0));
}
const total = profile.samples.length;
for (const [name, n] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
  console.log(`${((100 * n) / total).toFixed(1).padStart(5)}%  ${name}`);
}
