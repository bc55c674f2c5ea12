import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';

/**
 * The prototype holding a provider's methods: the instance's for singletons, the class's for request-scoped
 * providers (instantiated per call). Aliases, factory and value providers without a class, and transient
 * providers (no single instance to call) have none.
 */
export function providerPrototype(wrapper: InstanceWrapper): Record<string, Function> | undefined {
  if (wrapper.isAlias || wrapper.isTransient) return undefined;
  if (wrapper.isDependencyTreeStatic()) {
    const instance = wrapper.instance as object | undefined;
    return instance && typeof instance === 'object' ? Object.getPrototypeOf(instance) : undefined;
  }
  const metatype = wrapper.metatype as Function | undefined | null;
  return !wrapper.inject && typeof metatype === 'function' ? metatype.prototype : undefined;
}
