export { parseWorkerEnv, type WorkerEnv } from "./env";
export { createConsoleLogger, silentLogger, type WorkerLogger } from "./logger";
export { type RunningWorker, SHUTDOWN_SAFE_WORKER_PRESET, type StartWorkerOptions, startWorker } from "./runner";
export {
  buildCronItems,
  createTaskList,
  IDEMPOTENCY_SWEEP,
  type TaskDeps,
  type WorkerTask,
  workerTasks,
} from "./tasks";
