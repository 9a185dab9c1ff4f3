export { parseWorkerEnv, type WorkerEnv } from "./env";
export { createConsoleLogger, silentLogger, type WorkerLogger } from "./logger";
export { type RunningWorker, SHUTDOWN_SAFE_WORKER_PRESET, type StartWorkerOptions, startWorker } from "./runner";
export {
  buildCronItems,
  createTaskList,
  IDEMPOTENCY_SWEEP,
  type TaskDeps,
  WEBHOOK_RECOVERY,
  type WorkerTask,
  workerTasks,
} from "./tasks";
export { attemptDelivery, WEBHOOK_USER_AGENT } from "./webhooks/attempt-delivery";
export { DEFAULT_WEBHOOK_DELIVERY_SETTINGS, type WebhookDeliverySettings } from "./webhooks/delivery-settings";
export { type SendWebhookOptions, sendWebhook, type WebhookSendResult } from "./webhooks/http-sender";
