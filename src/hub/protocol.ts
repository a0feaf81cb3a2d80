import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import { ERRORS } from '../errors/catalogue.js';

/** Seed 001's protocol version, sent in `welcome`. */
export const PROTOCOL_VERSION = '1.0.0';
/** Close code for a refused registration or a protocol violation (RFC 6455: policy violation). */
export const CLOSE_POLICY = 1008;
/** Close code for a connection displaced by a newer one with the same clientId (4000-4999: application). */
export const CLOSE_REPLACED = 4000;
/** An agent offering more tools than this is refused: capabilities are kept in memory per agent. */
export const MAX_TOOLS = 200;
/** The highest maxConcurrency an agent may claim: one agent cannot hog the queue with a huge number. */
export const MAX_AGENT_CONCURRENCY = 100;

const Tool = Type.String({ minLength: 1, maxLength: 200 });

/** Seed 001 §1.1. Extra fields are allowed, so newer agents still register. */
export const RegisterMessage = Type.Object({
  type: Type.Literal('register'),
  clientId: Type.String({ maxLength: 200 }),
  secretKey: Type.Optional(Type.String({ maxLength: 4096 })),
  capabilities: Type.Object({
    tools: Type.Array(Tool, { maxItems: MAX_TOOLS }),
    maxConcurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AGENT_CONCURRENCY })),
    version: Type.Optional(Type.String({ maxLength: 100 })),
  }),
});

/** Seed 001 §1.2. */
export const ReadyMessage = Type.Object({
  type: Type.Literal('ready'),
  timestamp: Type.Optional(Type.String({ maxLength: 100 })),
});

/** Seed 001 §1.3. */
export const StatusMessage = Type.Object({
  type: Type.Literal('status'),
  evaluationId: Type.Optional(Type.String({ maxLength: 200 })),
  status: Type.String({ maxLength: 100 }),
  progress: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  message: Type.Optional(Type.String()),
});

/** Seed 001 §1.4. */
export const PingMessage = Type.Object({
  type: Type.Literal('ping'),
  timestamp: Type.Optional(Type.String({ maxLength: 100 })),
});

/** A JSON-RPC 2.0 response from the agent (seed 001 §4): a result or an error for one of our ids. */
export const RpcResponseMessage = Type.Union([
  Type.Object({
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String({ maxLength: 200 }), Type.Number()]),
    result: Type.Unknown(),
  }),
  Type.Object({
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String({ maxLength: 200 }), Type.Number(), Type.Null()]),
    error: Type.Object({
      code: Type.Integer(),
      message: Type.String(),
      data: Type.Optional(Type.Unknown()),
    }),
  }),
]);

export type RegisterMessage = Static<typeof RegisterMessage>;
export type StatusMessage = Static<typeof StatusMessage>;
export type RpcResponseMessage = Static<typeof RpcResponseMessage>;

export type AgentMessage =
  | { kind: 'register'; message: RegisterMessage }
  | { kind: 'ready' }
  | { kind: 'status'; message: StatusMessage }
  | { kind: 'ping' }
  | { kind: 'response'; message: RpcResponseMessage }
  /** A JSON-RPC request or notification from the agent: the hub offers no methods. */
  | { kind: 'request'; id: string | number | null | undefined; method: string }
  | {
      kind: 'malformed';
      reason: string;
      /** The protocol type the message claimed (register, ready, status, ping), when it named one. */
      type?: keyof typeof TYPES;
      /** A JSON-RPC response: never answered (JSON-RPC 2.0 answers requests only). */
      response?: true;
      /** The text was not JSON at all: JSON-RPC 2.0's Parse error (-32700), not Invalid Request. */
      notJson?: true;
    };

/** An agent's answer to one of the hub's calls, read from its JSON-RPC response. */
export type AgentReply =
  { ok: true; result: unknown } | { ok: false; code: number; message: string; data: unknown };

export function replyOf(message: RpcResponseMessage): AgentReply {
  return 'error' in message
    ? { ok: false, code: message.error.code, message: message.error.message, data: message.error.data }
    : { ok: true, result: message.result };
}

/** What a binary frame parses to: the protocol is JSON text only. */
export const BINARY_MESSAGE: AgentMessage = {
  kind: 'malformed',
  reason: 'Malformed message: binary frames are not part of the protocol',
};

const TYPES = { register: RegisterMessage, ready: ReadyMessage, status: StatusMessage, ping: PingMessage };

/** Reads what an agent sends; every schema is compiled once, when the endpoint starts. */
export class ProtocolParser {
  private readonly validators: Record<keyof typeof TYPES, ValidateFunction>;
  private readonly response: ValidateFunction;
  private readonly ajv = new Ajv({ allErrors: false, strict: true });

  constructor() {
    const compile = (schema: TSchema) => this.ajv.compile(schema);
    this.validators = {
      register: compile(RegisterMessage),
      ready: compile(ReadyMessage),
      status: compile(StatusMessage),
      ping: compile(PingMessage),
    };
    this.response = compile(RpcResponseMessage);
  }

  parse(text: string): AgentMessage {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { kind: 'malformed', reason: 'Malformed message: not valid JSON', notJson: true };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { kind: 'malformed', reason: 'Malformed message: not a JSON object' };
    }
    const record = value as Record<string, unknown>;
    const type = record.type;
    if (typeof type === 'string') {
      if (!Object.hasOwn(TYPES, type))
        return { kind: 'malformed', reason: `Malformed message: unknown type ${type.slice(0, 40)}` };
      const kind = type as keyof typeof TYPES;
      const validate = this.validators[kind];
      if (!validate(value))
        return {
          kind: 'malformed',
          reason: `Malformed ${kind} message: ${this.ajv.errorsText(validate.errors)}`,
          type: kind,
        };
      if (kind === 'register') return { kind, message: value as RegisterMessage };
      if (kind === 'status') return { kind, message: value as StatusMessage };
      return { kind };
    }
    if (record.jsonrpc === '2.0' && typeof record.method === 'string') {
      const id = record.id;
      return {
        kind: 'request',
        id: typeof id === 'string' || typeof id === 'number' || id === null ? id : undefined,
        method: record.method,
      };
    }
    if (record.jsonrpc === '2.0') {
      if (!this.response(value)) {
        return {
          kind: 'malformed',
          reason: `Malformed JSON-RPC response: ${this.ajv.errorsText(this.response.errors)}`,
          response: true,
        };
      }
      return { kind: 'response', message: value as RpcResponseMessage };
    }
    return { kind: 'malformed', reason: 'Malformed message: neither a typed message nor JSON-RPC 2.0' };
  }
}

/** The JSON-RPC methods the hub calls on an agent: seed 001's evaluate, seed 000's configure_llm. */
export type AgentMethod = 'evaluate' | 'configure_llm';

export interface WelcomeFrame {
  type: 'welcome';
  serverId: string;
  version: string;
  timestamp: string;
}

export type RegistrationAckFrame =
  | {
      type: 'registration_ack';
      clientId: string;
      status: 'accepted';
      message: string;
      evaluationsCount: number;
    }
  | {
      type: 'registration_ack';
      clientId: string | null;
      status: 'rejected';
      message: string;
      reason: string;
    };

export interface PongFrame {
  type: 'pong';
  timestamp: string;
}

export interface AgentRequestFrame {
  jsonrpc: '2.0';
  method: AgentMethod;
  params: Record<string, unknown>;
  id: string;
}

export interface MethodNotFoundFrame {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

/**
 * The answer to a message a registered agent sent that the hub cannot act on (malformed, or a ready
 * before register): seed 001's error shape, JSON-RPC 2.0's Invalid Request (-32600), or its Parse
 * error (-32700) for text that is not JSON, with id null because a typed message has none.
 * `data.type` is the type the hub read, null when it read none.
 */
export interface InvalidMessageFrame {
  jsonrpc: '2.0';
  id: null;
  error: { code: number; message: string; data: { type: string | null } };
}

/**
 * Every frame the hub sends an agent, each built by one function below. Field order is part of
 * the wire format: it stays as agents have always received it.
 */
export type HubFrame =
  | WelcomeFrame
  | RegistrationAckFrame
  | PongFrame
  | AgentRequestFrame
  | MethodNotFoundFrame
  | InvalidMessageFrame;

function now(): string {
  return new Date().toISOString();
}

export function welcomeFrame(serverId: string): WelcomeFrame {
  return { type: 'welcome', serverId, version: PROTOCOL_VERSION, timestamp: now() };
}

export function registrationAcceptedFrame(clientId: string, evaluationsCount: number): RegistrationAckFrame {
  return {
    type: 'registration_ack',
    clientId,
    status: 'accepted',
    message: 'Client registered successfully',
    evaluationsCount,
  };
}

export function registrationRejectedFrame(clientId: string | null, reason: string): RegistrationAckFrame {
  return { type: 'registration_ack', clientId, status: 'rejected', message: 'Registration rejected', reason };
}

export function pongFrame(): PongFrame {
  return { type: 'pong', timestamp: now() };
}

/** The answer to a JSON-RPC request an agent sent: the hub offers no methods. */
export function methodNotFoundFrame(id: string | number | null, method: string): MethodNotFoundFrame {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: ERRORS.METHOD_NOT_FOUND.code,
      message: `Method not found: ${method.slice(0, 100)}; the hub takes no calls`,
    },
  };
}

export function invalidMessageFrame(
  reason: string,
  type: string | undefined,
  notJson = false,
): InvalidMessageFrame {
  const code = notJson ? ERRORS.PARSE_ERROR.code : ERRORS.INVALID_REQUEST.code;
  return { jsonrpc: '2.0', id: null, error: { code, message: reason, data: { type: type ?? null } } };
}

export function agentRequestFrame(
  method: AgentMethod,
  params: Record<string, unknown>,
  id: string,
): AgentRequestFrame {
  return { jsonrpc: '2.0', method, params, id };
}

/** What an `evaluate` call carries besides its evaluationId (seed 001 §2.1). */
export interface EvaluateFields {
  name?: string | undefined;
  url?: string | undefined;
  tool: string;
  input: unknown;
  /** Milliseconds the agent is given. */
  timeout: number;
  metadata?: unknown;
  model?: unknown;
}

/** The params of `evaluate`; absent optional fields are left out rather than sent as null. */
export function evaluateParams(evaluationId: string, fields: EvaluateFields): Record<string, unknown> {
  const params: Record<string, unknown> = { evaluationId };
  if (fields.name !== undefined) params.name = fields.name;
  if (fields.url !== undefined) params.url = fields.url;
  params.tool = fields.tool;
  params.input = fields.input;
  params.timeout = fields.timeout;
  if (fields.metadata !== undefined) params.metadata = fields.metadata;
  if (fields.model !== undefined) params.model = fields.model;
  return params;
}

/** The same `evaluate` params with another timeout, which keeps its place among the fields. */
export function withTimeout(params: Record<string, unknown>, timeoutMs: number): Record<string, unknown> {
  return { ...params, timeout: timeoutMs };
}
