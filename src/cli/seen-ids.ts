/**
 * A set of ids that remembers only the most recent `capacity` of them, so that a follower that
 * runs for days dedupes in bounded memory. Forgetting is safe as long as the capacity is well
 * above what one poll can see again.
 */
export class SeenIds {
  // A Set iterates in insertion order: its first element is the oldest remembered.
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Remembers `id`, forgetting the oldest id once over capacity. */
  add(id: string): void {
    if (this.ids.has(id)) return;
    this.ids.add(id);
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value!);
  }

  /** Forgets `id`: something that was to be done with it was not. */
  delete(id: string): void {
    this.ids.delete(id);
  }

  get size(): number {
    return this.ids.size;
  }
}
