import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';

/** Seed 001's protocol version, sent in `welcome`. */
export const PROTOCOL_VERSION = '1.0.0';
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
  | { kind: 'malformed'; reason: string };

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
      return { kind: 'malformed', reason: 'Malformed message: not valid JSON' };
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
        };
      }
      return { kind: 'response', message: value as RpcResponseMessage };
    }
    return { kind: 'malformed', reason: 'Malformed message: neither a typed message nor JSON-RPC 2.0' };
  }
}
