import { All, applyDecorators, Controller, createParamDecorator, ExecutionContext, HttpCode, SetMetadata, UseGuards, UseInterceptors } from '@nestjs/common';
import type { Request } from 'express';
import { BasicAuthGuard } from '../http/basic-auth.guard';
import { operationOf, OPERATION_METADATA, serviceOf, SERVICE_METADATA } from '../http/collection-routes';
import { EnvelopeInterceptor } from '../http/envelope.interceptor';
import { OperationInputPipe, RoutedRequest } from '../http/operation-input.pipe';
import type { ServiceName } from '../services/operation';

/**
 * The controller of a collection service, mounted at `/<service>` by CollectionModule: `/<service>/<account>/rest/…`.
 * Every route signs the caller in first (BasicAuthGuard) and answers in the envelope (EnvelopeInterceptor; failures
 * go through ProtocolExceptionFilter).
 */
export function ServiceController(service: ServiceName): ClassDecorator {
  return applyDecorators(Controller(':account/rest'), SetMetadata(SERVICE_METADATA, service), UseGuards(BasicAuthGuard), UseInterceptors(EnvelopeInterceptor));
}

/**
 * One operation of the service, `…/rest/<name>/`: any method, trailing slash optional, answered 200 (failures are
 * envelopes too, docs/protocol.md §3). Its request is read by the contract of that name (contracts/operations.ts).
 */
export function Operation(name: string): MethodDecorator {
  return applyDecorators(All(name), HttpCode(200), SetMetadata(OPERATION_METADATA, name));
}

const RoutedCall = createParamDecorator((_data: unknown, context: ExecutionContext): RoutedRequest => ({
  req: context.switchToHttp().getRequest<Request>(),
  service: serviceOf(context.getClass())!,
  operation: operationOf(context.getHandler())!,
}));

/** The handler's OperationRequest: its context and its request read by its operation's contract (OperationInputPipe). */
export const OperationInput = (): ParameterDecorator => RoutedCall(OperationInputPipe);
