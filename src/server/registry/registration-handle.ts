/** What registering a tool, resource or prompt at run time returns: change it in place, or take it away. */
export interface RegistrationHandle<R> {
  /** Replaces the registration with `changes` applied; on failure the previous registration stays. */
  update(changes: Partial<R>): void;
  /** Unregisters it; false when it was already gone. */
  remove(): boolean;
}

/** Registers `registration` through `add` and hands back its handle. */
export function register<R>(registration: R, add: (r: R) => void, remove: (r: R) => boolean): RegistrationHandle<R> {
  add(registration);
  let current = registration;
  return {
    update(changes) {
      const next = { ...current, ...changes };
      remove(current);
      try {
        add(next);
      } catch (error) {
        add(current);
        throw error;
      }
      current = next;
    },
    remove: () => remove(current),
  };
}
