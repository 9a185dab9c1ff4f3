import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import solc from "solc";
import type { Abi, Hex } from "viem";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

const PLATFORM_PACKAGES: Record<string, string> = {
  "linux-x64": "anvil-linux-amd64",
  "linux-arm64": "anvil-linux-arm64",
  "darwin-x64": "anvil-darwin-amd64",
  "darwin-arm64": "anvil-darwin-arm64",
};

/** The anvil binary shipped in the platform package of `@foundry-rs/anvil` (spawned directly, so its pid is anvil's). */
export function anvilBinary(): string {
  const platform = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!platform) throw new Error(`no anvil binary for ${process.platform}-${process.arch}`);
  const launcher = createRequire(require.resolve("@foundry-rs/anvil/package.json"));
  return join(dirname(launcher.resolve(`@foundry-rs/${platform}/package.json`)), "bin", "anvil");
}

export interface LocalChain {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts anvil on 127.0.0.1 with a port the OS picks, and waits until it listens. */
export async function startAnvil(args: string[]): Promise<LocalChain> {
  const child = spawn(anvilBinary(), ["--host", "127.0.0.1", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`anvil did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on (127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off("data", onData);
        child.stdout!.resume();
        resolve(`http://${match[1]}`);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code}:\n${output}`));
    });
  }).catch(async (error) => {
    await stop();
    throw error;
  });
  return { url, process: child, stop };
}

/** Compiles test/contracts/Stable.sol with solcjs (the exact compiler version pinned in devDependencies). */
export function compileStable(): { abi: Abi; bytecode: Hex } {
  const source = readFileSync(join(here, "contracts", "Stable.sol"), "utf8");
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources: { "Stable.sol": { content: source } },
        settings: {
          optimizer: { enabled: true, runs: 200 },
          outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
        },
      }),
    ),
  ) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const contract = output.contracts["Stable.sol"]!.Stable!;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}
