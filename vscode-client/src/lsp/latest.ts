// Debounced "latest only" requests: the composer's `@` symbol search asks the language servers
// once typing pauses (DEBOUNCE_MS), and an answer that arrives after a newer request was made is
// dropped, so typing fast never shows an older query's symbols. Pure (timers injected).

export const DEBOUNCE_MS = 150;

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export class Latest<Q, A> {
  private generation = 0;
  private timer: unknown;

  constructor(
    private readonly ask: (query: Q) => Promise<A>,
    private readonly ms = DEBOUNCE_MS,
    private readonly timers: Timers = realTimers,
  ) {}

  /** Ask for `query` once `ms` pass without another request; `deliver` gets the answer unless a
   * newer request was made meanwhile (then it is never called). Errors are dropped too. */
  request(query: Q, deliver: (answer: A) => void): void {
    this.cancel();
    const mine = this.generation;
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.ask(query).then(
        (answer) => {
          if (mine === this.generation) deliver(answer);
        },
        () => undefined,
      );
    }, this.ms);
  }

  /** Forget the pending request (its answer, if one is on the way, is dropped). */
  cancel(): void {
    this.generation += 1;
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
  }
}
