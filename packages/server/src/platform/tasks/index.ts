export {
  TaskScheduler,
  type ScheduledTask,
  type TaskLock,
  type TaskSchedulerOptions,
  type TaskStatus,
} from './scheduler.js';
