/**
 * At most `limit` holders at once; the others wait in arrival order. `release` hands the slot to
 * the longest waiter directly, so a newcomer cannot overtake it.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  /** holders now */
  get held(): number {
    return this.active;
  }

  /** waiting to acquire */
  get queued(): number {
    return this.waiting.length;
  }
}
