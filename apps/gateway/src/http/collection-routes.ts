import { NotFoundError, quoteInput } from '@loupe/envelope';
import { MetadataScanner } from '@nestjs/core';
import type { Type } from '@nestjs/common';
import { CONTRACTS, OperationContract } from '../contracts';
import { SERVICE_NAMES, ServiceName } from '../services/operation';
import { CollectionCall, own } from './collection-call';

/**
 * What the collection services' controllers declare (collection/decorators.ts): the service a controller serves and
 * the operation each handler is. The served operations are read from here, by CallTelemetry (metric labels), the
 * guard and pipe (exact names) and /docs (the reference lists what is served), so that a handler is the only place
 * an operation is added.
 */
export const SERVICE_METADATA = 'loupe:collection-service';
export const OPERATION_METADATA = 'loupe:collection-operation';

/** Every collection call's path, and the route of a path naming no service (CollectionModule). */
export const COLLECTION_CALL_ROUTE = ':service/:account/rest/:operation';

/** The operations each service serves, in the order its controller declares them. */
export type ServedOperations = Readonly<Record<ServiceName, readonly string[]>>;

/** Injection token of the ServedOperations of the gateway's controllers (CollectionModule). */
export const SERVED_OPERATIONS = Symbol('SERVED_OPERATIONS');

export function serviceOf(controller: Type | object): ServiceName | undefined {
  return Reflect.getMetadata(SERVICE_METADATA, controller);
}

export function operationOf(handler: object): string | undefined {
  return Reflect.getMetadata(OPERATION_METADATA, handler);
}

/** The contract an operation reads its request by (contracts/operations.ts). */
export function contractOf(service: ServiceName, operation: string): OperationContract {
  const declared = own<OperationContract>(CONTRACTS[service], operation);
  if (!declared) throw new Error(`The ${service} controller serves ${operation}, which contracts/operations.ts does not declare.`);
  return declared;
}

/**
 * The operations the controllers serve, read from their handlers (inherited ones included). A handler without a
 * contract fails here, at start-up, rather than on its first call.
 */
export function servedOperations(controllers: readonly Type[]): ServedOperations {
  const served = Object.fromEntries(SERVICE_NAMES.map((s) => [s, [] as string[]])) as Record<ServiceName, string[]>;
  const scanner = new MetadataScanner();
  for (const controller of controllers) {
    const service = serviceOf(controller);
    if (!service) throw new Error(`${controller.name} declares no collection service.`);
    for (const method of scanner.getAllMethodNames(controller.prototype)) {
      const operation = operationOf(controller.prototype[method]);
      if (operation === undefined || served[service].includes(operation)) continue;
      contractOf(service, operation);
      served[service].push(operation);
    }
  }
  return served;
}

export function isServed(served: ServedOperations, service: string | undefined, operation?: string): boolean {
  const operations = own(served as Readonly<Record<string, readonly string[]>>, service);
  return operations !== undefined && (operation === undefined || operations.includes(operation));
}

export function noSuchService(call: CollectionCall): NotFoundError {
  return new NotFoundError(`There is no service named ${quoteInput(call.service ?? '')}.`);
}

export function noSuchOperation(call: CollectionCall): NotFoundError {
  return new NotFoundError(`The ${call.service} service has no operation ${quoteInput(call.operation ?? '')}.`);
}
