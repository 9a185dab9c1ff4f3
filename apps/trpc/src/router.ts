import { eventsRouter } from "./routers/events";
import { mattersRouter } from "./routers/matters";
import { platformRouter } from "./routers/platform";
import { router } from "./trpc";

export const appRouter = router({
  matters: mattersRouter,
  events: eventsRouter,
  platform: platformRouter,
});

export type AppRouter = typeof appRouter;
