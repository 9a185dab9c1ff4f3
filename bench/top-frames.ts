/**
 * `tsx bench/top-frames.ts <file.cpuprofile>… [n]`: for each V8 CPU profile (node --cpu-prof), the n
 * (default 15) functions with the most self time, as a share of the busy samples (idle left out),
 * with their file and line. A process can write several profiles (one per thread), so every file
 * named is read; a last argument that is a number is the count.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

const args = process.argv.slice(2);
const last = args.at(-1);
const count = last !== undefined && /^\d+$/.test(last) ? Number(args.pop()) : 15;
if (args.length === 0) {
  console.error("usage: tsx bench/top-frames.ts <file.cpuprofile>… [n]");
  process.exit(2);
}

for (const file of args) {
  const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: ProfileNode[]; samples: number[] };
  const hits = new Map<number, number>();
  for (const sample of profile.samples) hits.set(sample, (hits.get(sample) ?? 0) + 1);
  const byFrame = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") continue;
    const samples = hits.get(node.id) ?? 0;
    busy += samples;
    const where = url ? `${url.replace(/^.*\/(node_modules\/\.pnpm\/|hot-path\/)/, "")}:${lineNumber + 1}` : "";
    const name = `${functionName || "(anonymous)"} ${where}`.trim();
    byFrame.set(name, (byFrame.get(name) ?? 0) + samples);
  }
  console.log(`${file}: ${busy} busy samples of ${profile.samples.length}`);
  for (const [name, n] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(`${((100 * n) / Math.max(busy, 1)).toFixed(1).padStart(5)}%  ${name}`);
  }
}
