import { createPublicKey, type KeyObject } from "node:crypto";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { isWellFormedSignature } from "@crs/core";

/**
 * Checks Ed25519 signatures of event hashes on worker threads, so a long verify-chain walk uses every core:
 * the walk's own thread parses, hashes and links events while the pool checks their signatures.
 *
 * The worker is given as source rather than a file because the apps run TypeScript through tsx and the
 * tests through vitest, and a worker thread has neither loader; it needs only node:crypto. It answers, per
 * hash, whether `signature` verifies over the hash's UTF-8 bytes (the rule of core's verifyEventSignature);
 * the well-formedness half of that rule is applied here, before sending.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { createPublicKey, verify } = require("node:crypto");
const key = createPublicKey({ key: Buffer.from(workerData.spki), format: "der", type: "spki" });
parentPort.on("message", ({ id, hashes, signatures }) => {
  const verdicts = new Uint8Array(hashes.length);
  for (let i = 0; i < hashes.length; i++) {
    if (signatures[i] === null) continue;
    verdicts[i] = verify(null, Buffer.from(hashes[i], "utf8"), key, Buffer.from(signatures[i], "hex")) ? 1 : 0;
  }
  parentPort.postMessage({ id, verdicts }, [verdicts.buffer]);
});
`;

export interface SignaturePool {
  readonly threads: number;
  /** One verdict per event, in order: 1 when its signature verifies over its hash, 0 otherwise. */
  verify(events: readonly { hash: string; signature: string }[]): Promise<Uint8Array>;
  close(): Promise<void>;
}

interface Pending {
  resolve: (verdicts: Uint8Array) => void;
  reject: (error: Error) => void;
}

let poolsOpen = 0;

/** Signature pools of this process not yet closed (verify-chain runs at most one at a time). */
export function signaturePoolsOpen(): number {
  return poolsOpen;
}

export function createSignaturePool(key: KeyObject, threads = availableParallelism()): SignaturePool {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  const spki = publicKey.export({ format: "der", type: "spki" });
  const pending = new Map<number, Pending>();
  let closed = false;
  const failAll = (error: Error) => {
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  const workers = Array.from({ length: Math.max(1, threads) }, () => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { spki } });
    worker.on("message", ({ id, verdicts }: { id: number; verdicts: Uint8Array }) => {
      pending.get(id)?.resolve(verdicts);
      pending.delete(id);
    });
    worker.on("error", (error) => failAll(error));
    worker.on("exit", (code) => {
      if (!closed) failAll(new Error(`a signature-checking thread stopped (exit code ${code})`));
    });
    return worker;
  });
  let nextId = 0;
  poolsOpen++;
  return {
    threads: workers.length,
    verify(events) {
      if (closed) return Promise.reject(new Error("the signature pool is closed"));
      const id = nextId++;
      const hashes = events.map((event) => event.hash);
      const signatures = events.map((event) => (isWellFormedSignature(event.signature) ? event.signature : null));
      const verdicts = new Promise<Uint8Array>((resolve, reject) => pending.set(id, { resolve, reject }));
      // A walk that stops at a break leaves later batches unread; their rejection at close is expected.
      verdicts.catch(() => undefined);
      workers[id % workers.length]?.postMessage({ id, hashes, signatures });
      return verdicts;
    },
    async close() {
      if (closed) return;
      closed = true;
      poolsOpen--;
      failAll(new Error("the signature pool was closed"));
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
