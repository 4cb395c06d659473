/**
 * Runs a task every `intervalMs` (the cache's cleanup polling): never two runs at once, a failed run is
 * reported and the next one still happens, the timer does not keep the process alive, and `stop()` waits
 * for a running task. The interval can change while it runs (a configuration change without restart).
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly task: () => Promise<void>,
    private intervalMs: number,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  setInterval(intervalMs: number): void {
    this.intervalMs = intervalMs;
    if (this.timer) {
      clearTimeout(this.timer);
      this.schedule();
    }
  }

  /** Runs the task now (or joins the running one). */
  runNow(): Promise<void> {
    this.running ??= this.task()
      .catch((error: unknown) => this.onError(error))
      .finally(() => (this.running = null));
    return this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runNow().finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
