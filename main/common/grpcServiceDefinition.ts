// gRPC service definitions made straight from protobufjs types, with the
// same serializers @grpc/proto-loader makes (encode(fromObject(value)) and
// toObject(decode(bytes), options)) but without its descriptor objects,
// which only reflection needs and which cost more to build than the
// service itself.

import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import type protobuf from 'protobufjs';

/** How decoded messages look: protobufjs' toObject options. */
export type DecodeOptions = protobuf.IConversionOptions;

export type Serializer = (value: object) => Buffer;
export type Deserializer = (bytes: Buffer) => object;

export function messageSerializer(type: protobuf.Type): Serializer {
  return (value) => {
    if (Array.isArray(value)) throw new Error(`Failed to serialize message: expected object with ${type.name} structure, got array instead`);
    // protobufjs writes a Buffer under Node
    return type.encode(type.fromObject(value)).finish() as Buffer;
  };
}

export function messageDeserializer(type: protobuf.Type, options: DecodeOptions): Deserializer {
  return (bytes) => type.toObject(type.decode(bytes), options);
}

/**
 * The method's alias on a grpc-js client, camel-cased by words as
 * proto-loader does it ("MemberList" → "memberList", "HashKV" → "hashKv").
 */
function camelCase(name: string): string {
  const words = name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? [name];
  return words.map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())).join('');
}

export interface ServiceOptions {
  decode: DecodeOptions;
  /** Replaces a response type's serializer (by the type's full name without the leading dot). */
  responseSerializer?(type: protobuf.Type): Serializer | undefined;
}

/** The definition grpc-js' Server.addService and makeClientConstructor take, for `package.Service`. */
export function grpcServiceDefinition(root: protobuf.Root, fullName: string, options: ServiceOptions): ServiceDefinition {
  const service = root.lookupService(fullName);
  const methods: Record<string, MethodDefinition<object, object>> = {};
  for (const method of service.methodsArray) {
    method.resolve();
    const req = method.resolvedRequestType!;
    const res = method.resolvedResponseType!;
    methods[method.name] = {
      path: `/${fullName}/${method.name}`,
      requestStream: !!method.requestStream,
      responseStream: !!method.responseStream,
      requestSerialize: messageSerializer(req),
      requestDeserialize: messageDeserializer(req, options.decode),
      responseSerialize: options.responseSerializer?.(res) ?? messageSerializer(res),
      responseDeserialize: messageDeserializer(res, options.decode),
      originalName: camelCase(method.name),
    };
  }
  return methods as ServiceDefinition;
}
