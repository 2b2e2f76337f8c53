/** The stack could not be brought up (or a wait ran out); `what` names the step. */
export class StackError extends Error {
  readonly code = 'STACK_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StackError';
  }
}
