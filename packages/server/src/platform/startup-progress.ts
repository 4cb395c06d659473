/**
 * What a starting process is busy with, sent to the supervisor (when there is one) so that a slow start
 * on a busy machine says what it waits for instead of looking hung. Cheap: one IPC message per step.
 */
export interface StartupProgressMessage {
  type: 'progress';
  step: string;
}

export function startupStep(step: string): void {
  if (process.send && process.connected) {
    process.send({ type: 'progress', step } satisfies StartupProgressMessage);
  }
}
