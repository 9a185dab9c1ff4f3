import type { jobOperations } from "@crs/contract";
import type { GroupHandlers } from "../operations/handler-types";
import { cancelJob } from "./cancel-job";
import { createJob } from "./create-job";
import { listJobs } from "./list-jobs";
import { retrieveJob } from "./retrieve-job";

export const jobHandlers = {
  create: createJob,
  list: listJobs,
  get: retrieveJob,
  cancel: cancelJob,
} satisfies GroupHandlers<typeof jobOperations>;
