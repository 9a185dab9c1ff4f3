import { isBurnAddress, JOB_STATUSES, JOB_TYPES, MAX_BLOCK, MAX_HOPS_CAP } from "@crs/core";
import { z } from "zod";
import { defineOperation } from "../operation";
import { TraceJobResult } from "../schemas/asset-map";
import {
  JsonObject,
  ListQuery,
  listOf,
  NonBlankText,
  ObjectIdParam,
  SourceRefInput,
  Timestamp,
} from "../schemas/common";

/** An EVM-style account address: 0x and 40 hex digits (any case; compared in lower case). */
export const ChainAddress = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, { error: "must be a 0x-prefixed 20-byte hex address", abort: true })
  .refine(
    (address) => !isBurnAddress("ethereum", address),
    "must not be the zero address: what is sent there is burned, and what it sends is newly minted",
  );

export const TraceWalletInput = z
  .union([
    ChainAddress,
    z.object({
      address: ChainAddress,
      /** the block from which the wallet's holdings and receipts are traced (default 0: its whole history) */
      // The range first: a number past 2^53 is an integer, only too large to be a block.
      incident_block: z
        .number()
        .min(0, "must not be negative")
        .max(MAX_BLOCK, `must be at most ${MAX_BLOCK}, the highest block a trace can start at`)
        .int("must be a whole block number")
        .optional(),
    }),
  ])
  .meta({
    id: "TraceWalletInput",
    description:
      "A subject address, or {address, incident_block}: what it held at the start of incident_block and everything it received after is traced (default block 0).",
  });

const TraceWallets = z
  .array(TraceWalletInput)
  .min(1, "must list at least one wallet")
  .max(20, "must list at most 20 wallets");

const Chains = z
  .array(NonBlankText(64))
  .min(1, "must name one chain")
  .max(1, "one chain per trace: dispatch one trace per chain")
  .meta({
    description:
      "the chain to trace: `synthetic:eth` in the sandbox; for live keys the configured chain (e.g. `ethereum`)",
  });

/** The case documents a trace's subjects rest on; they enter the map's source manifest by `source_id`. */
export const TraceSourceRefs = z.array(SourceRefInput).max(50, "must list at most 50 source refs").meta({
  description:
    "the case documents that tie the wallets to the debtor, each source_id once; ids of the form src_ and 20 hex digits name the trace's own sources and are refused",
});

/** Trace direction: outflows are the one direction a trace follows. */
export const TraceDirection = z.enum(["outflow"]);

/** The input of a `crypto.trace` job: whose funds to follow, on which chain, how far. */
export const TraceJobInput = z
  .object({
    wallets: TraceWallets,
    chains: Chains.optional(),
    max_hops: z
      .number()
      .int("must be an integer")
      .min(1, `must be between 1 and ${MAX_HOPS_CAP}`)
      .max(MAX_HOPS_CAP, `must be between 1 and ${MAX_HOPS_CAP}`)
      .optional(),
    direction: TraceDirection.optional(),
    include_stablecoins: z.boolean().optional(),
    include_exchanges: z.boolean().optional(),
    source_refs: TraceSourceRefs.optional(),
  })
  .meta({ id: "TraceJobInput" });
export type TraceJobInput = z.infer<typeof TraceJobInput>;

export const CreateJobBody = z
  .object({
    type: z.enum(JOB_TYPES),
    input: TraceJobInput,
    matter_id: ObjectIdParam.optional(),
  })
  .meta({
    id: "CreateJobBody",
    example: {
      type: "crypto.trace",
      matter_id: "matter_01k1z9r5ht3q7mxw2c4d8e6f0g",
      input: { wallets: ["0x5eed00000007000000000000000000000000089f"], chains: ["synthetic:eth"], max_hops: 5 },
    },
  });
export type CreateJobBody = z.infer<typeof CreateJobBody>;

export const JobError = z
  .object({ code: z.string(), message: z.string(), retryable: z.boolean() })
  .meta({ id: "JobError" });

export const Job = z
  .object({
    object: z.literal("job"),
    id: z.string(),
    job_id: z.string(),
    type: z.enum(JOB_TYPES),
    status: z.enum(JOB_STATUSES),
    input: JsonObject,
    result: TraceJobResult.nullable().meta({ description: "set when the job succeeded; null otherwise" }),
    error: JobError.nullable().meta({ description: "set when the job failed; null otherwise" }),
    matter_id: z.string().nullable(),
    attempts: z.number().int().meta({ description: "runs started so far (at most 3)" }),
    livemode: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
    started_at: Timestamp.nullable(),
    finished_at: Timestamp.nullable(),
  })
  .meta({ id: "Job" });
export type Job = z.infer<typeof Job>;

export const ListJobsQuery = ListQuery.extend({ status: z.enum(JOB_STATUSES).optional() });

export const jobOperations = {
  create: defineOperation({
    id: "createJob",
    method: "POST",
    path: "/v1/jobs",
    scope: "jobs:write",
    tag: "Jobs",
    summary: "Dispatch a job (type crypto.trace). It is queued at once; poll it, or listen for job.completed.",
    successStatus: 201,
    alsoAnswers: { 404: { description: "Unknown matter_id" } },
    body: CreateJobBody,
    response: Job,
    idempotent: true,
    events: ["job.created"],
  }),
  list: defineOperation({
    id: "listJobs",
    method: "GET",
    path: "/v1/jobs",
    scope: "jobs:read",
    tag: "Jobs",
    summary: "List jobs, most recent first, optionally of one status.",
    successStatus: 200,
    query: ListJobsQuery,
    response: listOf(Job, "JobList"),
    idempotent: false,
    events: [],
  }),
  get: defineOperation({
    id: "retrieveJob",
    method: "GET",
    path: "/v1/jobs/{job_id}",
    scope: "jobs:read",
    tag: "Jobs",
    summary: "Retrieve a job; its result once it succeeded, its error once it failed.",
    successStatus: 200,
    response: Job,
    idempotent: false,
    events: [],
  }),
  cancel: defineOperation({
    id: "cancelJob",
    method: "POST",
    path: "/v1/jobs/{job_id}/cancel",
    scope: "jobs:write",
    tag: "Jobs",
    summary:
      "Cancel a queued or running job (a running one is stopped and its result discarded); a finished job is returned unchanged.",
    successStatus: 200,
    response: Job,
    // Cancel is idempotent by its nature: a repeat finds the job terminal and returns it unchanged. A
    // stored answer would hold a finished job's whole result (up to 128 MiB), so the header is ignored.
    idempotent: false,
    events: ["job.canceled"],
  }),
};
