import { Inject, Injectable, Scope } from '@nestjs/common';
import {
  ContextId,
  ContextIdFactory,
  ContextIdResolver,
  ContextIdStrategy,
  HostComponentInfo,
  REQUEST,
} from '@nestjs/core';

/** The docs' durable-provider strategy: one DI sub-tree per tenant, named by the `x-tenant-id` header. */
export class AggregateByTenantContextIdStrategy implements ContextIdStrategy {
  private readonly tenants = new Map<string, ContextId>();

  attach(
    contextId: ContextId,
    request: { headers?: Record<string, string | string[] | undefined> },
  ): ContextIdResolver {
    const tenantId = String(request.headers?.['x-tenant-id'] ?? 'default');
    let tenantSubTreeId = this.tenants.get(tenantId);
    if (!tenantSubTreeId) {
      tenantSubTreeId = ContextIdFactory.create();
      this.tenants.set(tenantId, tenantSubTreeId);
    }
    return {
      resolve: (info: HostComponentInfo) => (info.isTreeDurable ? tenantSubTreeId : contextId),
      payload: { tenantId },
    };
  }
}

/** A per-tenant provider, built once per tenant and kept: it counts that tenant's calls. */
@Injectable({ scope: Scope.REQUEST, durable: true })
export class TenantCounter {
  private count = 0;

  constructor(@Inject(REQUEST) private readonly payload: { tenantId: string }) {}

  next(): string {
    this.count += 1;
    return `${this.payload.tenantId}:${this.count}`;
  }
}
