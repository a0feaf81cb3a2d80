import { Type } from '@sinclair/typebox';
import { agentsEvaluations } from './agentsEvaluations.js';
import { defineMethod } from './defineSessionMethod.js';

/** An LLM agent run can take minutes; past this the caller should poll its own system instead. */
export const MAX_EVALUATION_TIMEOUT_MS = 900_000;
/** configure_llm only stores settings: an agent that takes longer than this is not answering. */
export const CONFIGURE_LLM_TIMEOUT_MS = 10_000;

const ClientId = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'The agent clientId (a UUID) as agents.list shows it.',
});

const Capabilities = Type.Object({
  tools: Type.Array(Type.String(), {
    description: 'Tools the agent runs: the first 20 it registered (toolCount says how many in all).',
  }),
  toolCount: Type.Integer({ description: 'How many tools the agent offers in all.' }),
  maxConcurrency: Type.Integer({ description: 'Evaluations it runs at once.' }),
  version: Type.String({ description: 'The agent version it reported.' }),
});

const ModelTier = Type.Object(
  {
    provider: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'openai, groq, openrouter or litellm.',
    }),
    model: Type.String({ minLength: 1, maxLength: 200, description: 'Model name, e.g. gpt-4.1-mini.' }),
    api_key: Type.Optional(
      Type.String({
        maxLength: 4096,
        description: 'API key for this tier; passed to the agent, never logged.',
      }),
    ),
  },
  { additionalProperties: false },
);

const ModelConfig = Type.Object(
  {
    main_model: Type.Optional(ModelTier),
    mini_model: Type.Optional(ModelTier),
    nano_model: Type.Optional(ModelTier),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'Seed 000 tiered model settings (main/mini/nano), passed to the agent unchanged; never logged.',
  },
);

export const agentsList = defineMethod({
  name: 'agents.list',
  summary: 'List the evaluation agents connected on /agents, with their status, tools and load',
  description:
    'Each agent shows at most 20 of its tools (capabilities.toolCount counts them all); the answer stops adding agents past 1 MiB of JSON, with truncated: true and total counting every connected agent.',
  params: {},
  result: Type.Object({
    agents: Type.Array(
      Type.Object({
        clientId: Type.String(),
        status: Type.Union([Type.Literal('connected'), Type.Literal('ready'), Type.Literal('busy')], {
          description:
            'connected: registered, not ready yet; ready: takes evaluations; busy: every maxConcurrency slot is taken.',
        }),
        capabilities: Capabilities,
        inFlight: Type.Integer({ description: 'Evaluations running on it (or about to).' }),
        connectedAt: Type.String({ description: 'ISO 8601 time of its current connection.' }),
        remoteAddress: Type.String(),
        lastStatus: Type.Union(
          [
            Type.Object({
              evaluationId: Type.Union([Type.String(), Type.Null()]),
              status: Type.String(),
              progress: Type.Union([Type.Number(), Type.Null()]),
              message: Type.Union([Type.String(), Type.Null()]),
              receivedAt: Type.String(),
            }),
            Type.Null(),
          ],
          { description: 'The last status message it sent, or null.' },
        ),
      }),
    ),
    total: Type.Integer({ description: 'Agents connected, listed or not.' }),
    truncated: Type.Boolean({ description: 'True when the size cap left some connected agents out.' }),
  }),
  errors: [],
  readOnly: true,
  async handler(_params, { services }) {
    return services.agents.list();
  },
});

export const agentsEvaluate = defineMethod({
  name: 'agents.evaluate',
  summary: 'Run an evaluation on a ready agent offering the tool and return its result',
  description:
    'Sends the seed-001 evaluate request to the named agent, or to the least loaded ready agent offering the tool. When every such agent is at its maxConcurrency the call waits up to AGENT_QUEUE_TIMEOUT_MS for a slot, then fails with LIMIT_REACHED. If the agent drops mid-evaluation and re-registers within AGENT_RECONNECT_GRACE_MS it gets the evaluation again; otherwise RESOURCE_UNAVAILABLE. An agent error comes back with its own code and data.',
  params: {
    clientId: Type.Optional({
      ...ClientId,
      description: 'Run on this agent; default: any ready agent offering the tool.',
    }),
    tool: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The tool to run, one the agent offers.',
    }),
    input: Type.Unknown({ description: 'Tool-specific input, passed to the agent unchanged.' }),
    url: Type.Optional(Type.String({ maxLength: 8192, description: 'Target URL of the evaluation.' })),
    name: Type.Optional(
      Type.String({ maxLength: 1000, description: 'Human-readable name of the evaluation.' }),
    ),
    evaluationId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Your id for the evaluation (logged); default: a generated eval-<uuid>.',
      }),
    ),
    timeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_EVALUATION_TIMEOUT_MS,
        description: 'Milliseconds the agent is given (default AGENT_EVALUATION_TIMEOUT_MS, 30000).',
      }),
    ),
    metadata: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'Extra metadata passed to the agent.' }),
    ),
    model: Type.Optional(ModelConfig),
  },
  result: Type.Object(
    {
      status: Type.Optional(Type.String({ description: 'The agent result status, e.g. success.' })),
      output: Type.Optional(Type.Unknown({ description: 'What the tool produced.' })),
      executionTime: Type.Optional(Type.Number({ description: 'Milliseconds the agent spent.' })),
      toolCalls: Type.Optional(Type.Array(Type.Unknown())),
      metadata: Type.Optional(Type.Unknown()),
      evaluationId: Type.String({ description: 'Added by the hub: the evaluation id.' }),
      clientId: Type.String({ description: 'Added by the hub: the agent that ran it.' }),
    },
    {
      additionalProperties: true,
      description:
        "The agent's result unchanged (a non-object result is returned as output), plus evaluationId and clientId.",
    },
  ),
  errors: [
    'AGENT_NOT_FOUND',
    'UNKNOWN_TOOL',
    'LIMIT_REACHED',
    'TIMEOUT',
    'RESOURCE_UNAVAILABLE',
    'ACTION_FAILED',
  ],
  readOnly: false,
  async handler(params, { services, principal }) {
    const answer = await services.agents.evaluate({
      principal: principal.id,
      clientId: params.clientId,
      tool: params.tool,
      input: params.input,
      url: params.url,
      name: params.name,
      evaluationId: params.evaluationId,
      timeout: params.timeout ?? services.config.agentEvaluationTimeoutMs,
      metadata: params.metadata,
      model: params.model,
    });
    const { result } = answer;
    const body =
      typeof result === 'object' && result !== null && !Array.isArray(result)
        ? (result as Record<string, unknown>)
        : { status: 'success', output: result };
    return { ...body, evaluationId: answer.evaluationId, clientId: answer.clientId };
  },
});

export const agentsConfigureLLM = defineMethod({
  name: 'agents.configureLLM',
  summary: "Send seed 000's configure_llm to an agent (provider, key, models) and return its answer",
  params: {
    clientId: ClientId,
    provider: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'openai, groq, openrouter or litellm.',
    }),
    apiKey: Type.String({
      maxLength: 4096,
      description: 'The provider API key; passed to the agent, never logged.',
    }),
    endpoint: Type.Optional(Type.String({ maxLength: 2048, description: 'Endpoint URL (litellm).' })),
    models: Type.Object(
      {
        main: Type.String({ minLength: 1, maxLength: 200, description: 'Main model name.' }),
        mini: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Mini model name.' })),
        nano: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Nano model name.' })),
      },
      { additionalProperties: false, description: 'Model names per tier.' },
    ),
    partial: Type.Boolean({
      default: false,
      description: 'Update only the given fields instead of replacing the configuration (default false).',
    }),
  },
  result: Type.Unknown({ description: "The agent's answer to configure_llm, unchanged." }),
  errors: ['AGENT_NOT_FOUND', 'TIMEOUT', 'RESOURCE_UNAVAILABLE', 'ACTION_FAILED'],
  readOnly: false,
  async handler(params, { services }) {
    const forwarded: Record<string, unknown> = {
      provider: params.provider,
      apiKey: params.apiKey,
      models: params.models,
      partial: params.partial,
    };
    if (params.endpoint !== undefined) forwarded.endpoint = params.endpoint;
    return services.agents.configureLLM(params.clientId, forwarded, CONFIGURE_LLM_TIMEOUT_MS);
  },
});

export const agentMethods = [agentsList, agentsEvaluate, agentsEvaluations, agentsConfigureLLM];
