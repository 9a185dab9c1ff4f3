/// <reference path="./solc.d.ts" />
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type AddressLabel,
  type IssuerControls,
  peelChainToExchangeSteps,
  type ScenarioSpec,
  type ScenarioStep,
  ZERO_ADDRESS,
} from "@crs/core";
import solc from "solc";
import { type Abi, createTestClient, type Hex, http, publicActions, walletActions } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { foundry } from "viem/chains";

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

const MNEMONIC = "test test test test test test test test test test test junk";
const TUSD = 10n ** 6n;

/** The fixed facts of the stablecoin scenario: chain, clock and the block the subject's funds are traced from. */
export const STABLECOIN_SCENARIO = {
  network: "evm:31337",
  /** unix seconds of block 0; block b is mined at epoch + b · blockTime */
  epoch: 1_767_225_600,
  blockTime: 12,
  incidentBlock: 4,
} as const;

/**
 * The stablecoin scenario replayed on anvil as real transactions: a blacklisting ERC-20 (Stable.sol)
 * minted to the subject, a peel chain through three hops (each peeling 10 % to a side address), the
 * exchange funding its deposit address with gas, the deposit, the sweep to the exchange's hot wallet,
 * then the issuer blacklisting the second side address. Everything is buried under anvil's finality
 * depth (64 blocks), so every source is final.
 */
export interface StablecoinScenario {
  chain: LocalChain;
  subject: string;
  hops: string[];
  sides: string[];
  deposit: string;
  hotWallet: string;
  gasFunder: string;
  /** the token contract, lower case */
  token: string;
  /** every value transfer made, in order, each with its real transaction hash */
  steps: Array<ScenarioStep & { tx_hash: Hex }>;
  blacklisted: string;
  blacklistBlock: number;
  headBlock: bigint;
  /** the hot wallet and gas funder attributed to Exchange A, as a `crs-labels/1` document */
  labelDocument: Record<string, unknown>;
  /** the token's freeze controls, read from Stable.sol, as a `crs-issuers/1` document */
  issuerDocument: { format: "crs-issuers/1"; issuers: Array<Omit<IssuerControls, "synthetic">> };
  /** the same history as a synthetic-chain spec (transaction hashes included), given the parsed labels and controls */
  spec(labels: AddressLabel[], issuers: IssuerControls[]): ScenarioSpec;
}

export async function startStablecoinScenario(): Promise<StablecoinScenario> {
  const { network, epoch, blockTime, incidentBlock } = STABLECOIN_SCENARIO;
  const chain = await startAnvil(["--accounts", "12", "--timestamp", String(epoch), "--chain-id", "31337"]);
  try {
    const accounts = Array.from({ length: 12 }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));
    const address = (i: number) => accounts[i]!.address.toLowerCase();
    const deployer = accounts[0]!;
    const node = createTestClient({ chain: foundry, mode: "anvil", transport: http(chain.url) })
      .extend(publicActions)
      .extend(walletActions);
    /** Mines empty blocks up to `block − 1` with scenario timestamps, then lets `send` land in `block`. */
    const atBlock = async (block: number, send: () => Promise<Hex>): Promise<Hex> => {
      for (let current = Number(await node.getBlockNumber({ cacheTime: 0 })); current < block - 1; current++) {
        await node.setNextBlockTimestamp({ timestamp: BigInt(epoch + (current + 1) * blockTime) });
        await node.mine({ blocks: 1 });
      }
      await node.setNextBlockTimestamp({ timestamp: BigInt(epoch + block * blockTime) });
      const hash = await send();
      const receipt = await node.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success" || Number(receipt.blockNumber) !== block) {
        throw new Error(`scenario transaction ${hash} did not land in block ${block}: ${receipt.status}`);
      }
      return hash;
    };

    const { abi, bytecode } = compileStable();
    const deployHash = await atBlock(1, () => node.deployContract({ abi, bytecode, account: deployer }));
    const token = (await node.getTransactionReceipt({ hash: deployHash })).contractAddress!.toLowerCase();
    const subject = address(1);
    const hops = [address(2), address(3), address(4)];
    const sides = [address(5), address(6), address(7)];
    const deposit = address(8);
    const hotWallet = address(9);
    const gasFunder = address(10);
    const planned: ScenarioStep[] = [
      { block: 3, from: ZERO_ADDRESS, to: subject, asset: "usd", amount: 100_000n * TUSD },
      ...peelChainToExchangeSteps({
        subject,
        hops,
        sides,
        deposit,
        hotWallet,
        gasFunder,
        token: "usd",
        native: "eth",
        amount: 100_000n * TUSD,
        peelPercent: 10n,
        gas: 10n ** 16n,
        startBlock: incidentBlock + 1,
      }),
    ];
    const steps: StablecoinScenario["steps"] = [];
    const replay = async (step: ScenarioStep) => {
      const sender = accounts.find((account) => account.address.toLowerCase() === step.from);
      const tx_hash = await atBlock(step.block, () => {
        if (step.asset === "eth")
          return node.sendTransaction({ account: sender!, to: step.to as Hex, value: step.amount });
        return node.writeContract({
          address: token as Hex,
          abi,
          functionName: step.from === ZERO_ADDRESS ? "mint" : "transfer",
          args: [step.to, step.amount],
          account: step.from === ZERO_ADDRESS ? deployer : sender!,
        });
      });
      steps.push({ ...step, tx_hash });
    };
    for (const step of planned) await replay(step);
    const blacklistBlock = planned.at(-1)!.block + 2;
    await atBlock(blacklistBlock, () =>
      node.writeContract({
        address: token as Hex,
        abi,
        functionName: "blacklist",
        args: [sides[1]],
        account: deployer,
      }),
    );
    // One wei between two accounts outside the story buries everything under the finality depth.
    await replay({ block: blacklistBlock + 70, from: address(11), to: address(0), asset: "eth", amount: 1n });
    const headBlock = await node.getBlockNumber({ cacheTime: 0 });

    const exchangeLabel = (labelled: string) => ({
      network,
      address: labelled,
      entity: "Exchange A",
      category: "exchange",
      confidence: "service_api",
      source_uri: "https://exchange-a.example/proof-of-reserves",
      as_of: "2026-07-01",
    });
    const controls: Omit<IssuerControls, "synthetic"> = {
      network,
      contract: token,
      issuer: "Test Stable Issuer",
      symbol: "TUSD",
      freeze_check: "isBlacklisted",
      freeze_functions: ["blacklist(address)", "unBlacklist(address)"],
      freeze_role: "contract owner",
      seize_function: "destroyBlackFunds(address)",
      policy_notes: null,
      remediation: ["Ask the issuer to blacklist the holding address."],
      source: { title: "packages/chain/test/contracts/Stable.sol", uri: "file:Stable.sol", as_of: "2026-07-05" },
    };
    return {
      chain,
      subject,
      hops,
      sides,
      deposit,
      hotWallet,
      gasFunder,
      token,
      steps,
      blacklisted: sides[1]!,
      blacklistBlock,
      headBlock,
      labelDocument: {
        format: "crs-labels/1",
        dataset: "test-exchange-attributions",
        license: "internal",
        retrieved_at: "2026-07-01T00:00:00Z",
        labels: [exchangeLabel(hotWallet), exchangeLabel(gasFunder)],
      },
      issuerDocument: { format: "crs-issuers/1", issuers: [controls] },
      spec: (labels, issuers) => ({
        name: "anvil-peel-chain",
        network,
        epoch,
        blockTime,
        assets: {
          eth: { kind: "native", contract: null, decimals: 18, symbol: "ETH" },
          usd: { kind: "erc20", contract: token, decimals: 6, symbol: "TUSD" },
        },
        genesis: accounts.map((account) => ({ address: account.address, asset: "eth", amount: 10_000n * 10n ** 18n })),
        steps,
        labels,
        freezes: [{ asset: "usd", address: sides[1]!, fromBlock: blacklistBlock }],
        issuers,
      }),
    };
  } catch (error) {
    await chain.stop();
    throw error;
  }
}
