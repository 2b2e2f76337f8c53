export * from './lib/envelope.js';
export { EventBus, currentEvent, type EventBusOptions, type TopicStats } from './lib/event-bus.js';
export type { SlowSubscriberReport } from './lib/fact-subscription.js';
export { BoundedQueue } from './lib/bounded-queue.js';
export { BusModule, EVENT_BUS } from './bus.module.js';
