import type { MethodDefinition } from './defineMethod.js';

/** The one table of methods. Refuses duplicates; lookups never reach Object.prototype. */
export class MethodTable<S = unknown> {
  private readonly methods = new Map<string, MethodDefinition<S>>();

  constructor(definitions: readonly MethodDefinition<S>[]) {
    for (const def of definitions) {
      if (this.methods.has(def.name)) throw new Error(`method ${def.name} is defined twice`);
      this.methods.set(def.name, def);
    }
  }

  get(name: string): MethodDefinition<S> | undefined {
    return this.methods.get(name);
  }

  list(): MethodDefinition<S>[] {
    return [...this.methods.values()];
  }
}
