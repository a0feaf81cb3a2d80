import type { MethodDefinition } from './defineMethod.js';

/** The one table of methods. Refuses duplicates; lookups never reach Object.prototype. */
export class MethodTable {
  private readonly methods = new Map<string, MethodDefinition>();

  constructor(definitions: readonly MethodDefinition[]) {
    for (const def of definitions) {
      if (this.methods.has(def.name)) throw new Error(`method ${def.name} is defined twice`);
      this.methods.set(def.name, def);
    }
  }

  get(name: string): MethodDefinition | undefined {
    return this.methods.get(name);
  }

  list(): MethodDefinition[] {
    return [...this.methods.values()];
  }
}
