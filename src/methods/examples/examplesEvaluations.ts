// Examples of agents.evaluations for openrpc.json (docs/agent-hub.md, "The evaluations of a key").
import type { MethodExample } from '../../rpc/openrpc.js';

const AGENT = '0b6f3c52-7a1e-4d3b-8f29-5c4e1a7d9b60';

export const evaluationExamples: Record<string, MethodExample[]> = {
  'agents.evaluations': [
    {
      name: 'one evaluation running, two finished (one refused: the agent did not offer the tool)',
      params: { limit: 20 },
      result: {
        inFlight: [
          {
            evaluationId: 'projects-text-002',
            tool: 'page_text',
            task: 'Read the projects page',
            startedAt: '2026-11-24T04:26:30.120Z',
            clientId: AGENT,
            state: 'running',
            elapsedMs: 840,
          },
        ],
        finished: [
          {
            evaluationId: 'eval-7d1f0b6f-2a8e-4c4e-9a55-3f0c6c1e2f7a',
            tool: 'summarize',
            task: null,
            startedAt: '2026-11-24T04:26:10.004Z',
            clientId: AGENT,
            endedAt: '2026-11-24T04:26:10.006Z',
            durationMs: 2,
            outcome: 'error',
            status: 'rejected',
            errorCode: -32004,
            errorMessage: `Agent ${AGENT} does not offer the tool summarize; it offers: echo, page_text.`,
            outputSize: null,
          },
          {
            evaluationId: 'projects-text-001',
            tool: 'page_text',
            task: 'Read the projects page',
            startedAt: '2026-11-24T04:26:00.609Z',
            clientId: AGENT,
            endedAt: '2026-11-24T04:26:01.021Z',
            durationMs: 412,
            outcome: 'ok',
            status: 'success',
            errorCode: null,
            errorMessage: null,
            outputSize: 1834,
          },
        ],
        inFlightTotal: 1,
        finishedTotal: 2,
      },
    },
  ],
};
