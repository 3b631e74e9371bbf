/**
 * What the OpenAPI document says about each operation beyond its schemas: its operationId,
 * summary and security, the responses the schemas cannot tell (204, 303, pages, 101), error
 * bodies as JSON whatever the success type is, and the routes @fastify/swagger never sees (the
 * WebSockets, /mcp, the document itself, /.well-known). One table, applied to the generated
 * document; openapi.test checks every operation has an entry, so a new route cannot go
 * undescribed.
 */

type Json = Record<string, unknown>;

/** Who may call: any token (bearer or the browser's), public, or bearer tokens only. */
type Access = 'token' | 'public' | 'bearer';

interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly access?: Access;
  readonly tag: Tag;
  /** Responses that replace the generated ones (status → response object). */
  readonly responses?: Json;
  readonly description?: string;
}

type Tag = 'agents' | 'shells' | 'sharing' | 'tokens' | 'hosts' | 'operations' | 'pages' | 'mcp';

export const TAGS: readonly { name: Tag; description: string }[] = [
  { name: 'agents', description: 'Tool calls: the model-facing bash and pwsh tools.' },
  { name: 'shells', description: 'Shells, their calls, recordings and live streams.' },
  { name: 'sharing', description: 'Links that reach one shell.' },
  { name: 'tokens', description: 'Tokens and who holds them.' },
  { name: 'hosts', description: 'Shell hosts joined to a control plane (--local-shells off).' },
  { name: 'operations', description: 'Health, metrics and this document.' },
  { name: 'pages', description: 'The web app (public pages; their data needs a token).' },
  { name: 'mcp', description: 'The tools over the Model Context Protocol.' },
];

const ERROR_BODY: Json = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
};
const jsonError = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: ERROR_BODY } },
});
const htmlPage = (description: string): Json => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});
/** Any route answers a request it cannot parse (a bad URL escape, a bad header) with 400. */
const MALFORMED = jsonError('The request could not be parsed');
const SHUTTING_DOWN = jsonError('The server is shutting down');
/** A route that reads PostgreSQL (`--database`) while it does not answer. */
const DATABASE_UNAVAILABLE = {
  '503': jsonError('`DATABASE_UNAVAILABLE`: the database does not answer (try again once it does)'),
};
const NO_CONTENT = { description: 'Done; no body' };
const WEBSOCKET = {
  '101': {
    description: 'Switching Protocols: the WebSocket of the live protocol (docs/live-protocol.md)',
  },
  '4XX': jsonError('Refused before the upgrade (no or bad token, foreign Origin, unknown shell)'),
};
const JSON_RPC: Json = {
  type: 'object',
  description: 'A JSON-RPC 2.0 message (or, on 2025 revisions, a batch of them)',
  additionalProperties: true,
};

/**
 * The MCP transport's own refusals (a malformed message, an unknown session, an unsupported
 * protocol version) are JSON-RPC error responses, not jumpseat's error shape.
 */
const JSON_RPC_ERROR: Json = {
  type: 'object',
  description: 'A JSON-RPC 2.0 error response',
  required: ['jsonrpc', 'error'],
  properties: {
    jsonrpc: { const: '2.0' },
    id: { type: ['string', 'integer', 'null'] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
    },
  },
};
const MCP_REFUSAL: Json = {
  description:
    "Refused. jumpseat's own refusals (no or bad token, foreign Origin, too many sessions: 401, 403, 429) are its error shape; the MCP transport's (a malformed message, an unknown session: 400, 404) are JSON-RPC errors",
  content: { 'application/json': { schema: { anyOf: [ERROR_BODY, JSON_RPC_ERROR] } } },
};

/**
 * Operations whose only success is not 2XX (a redirect, a protocol switch) or that have no
 * success at all (answers that say "not here"): `redocly lint`'s recommended
 * operation-2xx-response rule expects one, and the document tells the truth instead.
 */
export const NO_2XX_OPERATIONS = [
  'GET /api/sessions/{id}/live',
  'GET /api/live',
  'GET /api/hosts/link',
  'GET /.well-known/{document}',
  'GET /mcp',
] as const;

/** Keyed by `METHOD /path` with OpenAPI's `{param}` path syntax. */
export const OPERATIONS: Readonly<Record<string, Operation>> = {
  'GET /healthz': {
    operationId: 'getHealth',
    summary: 'Health check',
    access: 'public',
    tag: 'operations',
    responses: { '400': MALFORMED, '503': SHUTTING_DOWN },
  },
  'GET /readyz': {
    operationId: 'getReadiness',
    summary: 'Readiness check: 200 while the data dir takes writes, 503 with the reason otherwise',
    access: 'public',
    tag: 'operations',
    responses: { '400': MALFORMED },
  },
  'GET /api/tools': {
    operationId: 'listTools',
    summary: 'The tool definitions, in the shape a model API takes',
    tag: 'agents',
  },
  'POST /api/agents/{agent}/{dialect}': {
    operationId: 'callTool',
    summary: "Run a command in the agent's persistent shell; the result text as the model reads it",
    tag: 'agents',
    description:
      'Lasts as long as the command (the server-side deadline, --timeout-ms, ends it): set no client timeout shorter than that. Closing the request cancels the call and resets the shell.',
  },
  'GET /api/sessions': {
    operationId: 'listSessions',
    summary: 'The shells',
    tag: 'shells',
    responses: DATABASE_UNAVAILABLE,
  },
  'POST /api/sessions': {
    operationId: 'openShell',
    summary: 'Open a shell of your own (operator, admin)',
    tag: 'shells',
  },
  'GET /api/sessions/{id}': {
    operationId: 'getSession',
    summary: 'One shell',
    tag: 'shells',
    responses: DATABASE_UNAVAILABLE,
  },
  'DELETE /api/sessions/{id}': {
    operationId: 'closeShell',
    summary: "End a shell's process tree",
    tag: 'shells',
    responses: { '204': NO_CONTENT },
  },
  'GET /api/sessions/{id}/calls': {
    operationId: 'listCalls',
    summary: "A shell's calls, with the result text each agent got",
    tag: 'shells',
    responses: DATABASE_UNAVAILABLE,
  },
  'GET /api/sessions/{id}/events': {
    operationId: 'listControlEvents',
    summary: 'Who took, released and interrupted the shell',
    tag: 'shells',
    responses: DATABASE_UNAVAILABLE,
  },
  'GET /api/sessions/{id}/recording': {
    operationId: 'getRecording',
    summary: 'Everything the shell showed, as asciicast v2',
    tag: 'shells',
    responses: DATABASE_UNAVAILABLE,
  },
  'GET /api/sessions/{id}/live': {
    operationId: 'watchShell',
    summary: 'Watch (and, as an operator, control) one shell live (WebSocket)',
    tag: 'shells',
    responses: WEBSOCKET,
  },
  'GET /api/live': {
    operationId: 'watchDashboard',
    summary: "Every shell's state as it changes (WebSocket)",
    tag: 'shells',
    responses: WEBSOCKET,
  },
  'GET /api/hosts': {
    operationId: 'listHosts',
    summary: 'The joined shell hosts: state, shells, capacity, labels, versions (admin)',
    tag: 'hosts',
  },
  'POST /api/hosts/{name}/drain': {
    operationId: 'drainHost',
    summary: 'Start no new shell on a host; the ones it runs go on (admin)',
    tag: 'hosts',
  },
  'DELETE /api/hosts/{name}/drain': {
    operationId: 'undrainHost',
    summary: 'New shells may start on a drained host again (admin)',
    tag: 'hosts',
  },
  'DELETE /api/hosts/{name}': {
    operationId: 'forgetHost',
    summary: 'Forget a host that is gone (admin; 409 while it is connected)',
    tag: 'hosts',
    responses: { '204': NO_CONTENT },
  },
  'GET /api/hosts/link': {
    operationId: 'joinAsHost',
    summary: "A shell host's link (WebSocket; host tokens only; protocol in shared/src/link.ts)",
    tag: 'hosts',
    access: 'bearer',
    responses: {
      '101': { description: 'Switching Protocols: the link protocol (shared/src/link.ts)' },
      '4XX': jsonError('Refused before the upgrade (no token, or not a host token)'),
    },
  },
  'GET /api/audit': {
    operationId: 'listAuditEvents',
    summary: 'Token use and refusals (admin)',
    description:
      "Newest first. Refusals are one row per address, status and minute with a `count`. Filter by `kind` (comma-separated), `token` (a token id), `since`/`until` (ISO times); page with `before` (the last row's id).",
    tag: 'tokens',
    responses: DATABASE_UNAVAILABLE,
  },
  'GET /api/storage': {
    operationId: 'getStorage',
    summary: 'Whether the data dir takes writes, what waits in memory and what was lost',
    tag: 'operations',
  },
  'POST /api/sessions/{id}/hand-off': {
    operationId: 'handOffShell',
    summary: "Make your own shell an agent's shell",
    tag: 'shells',
  },
  'POST /api/sessions/{id}/shares': {
    operationId: 'createShare',
    summary: 'Create a link to one shell',
    tag: 'sharing',
  },
  'GET /api/sessions/{id}/shares': {
    operationId: 'listShares',
    summary: "The shell's working share links",
    tag: 'sharing',
  },
  'DELETE /api/sessions/{id}/shares/{shareId}': {
    operationId: 'revokeShare',
    summary: 'Revoke a share link (its holder is disconnected)',
    tag: 'sharing',
    responses: { '204': NO_CONTENT },
  },
  'GET /api/me': { operationId: 'whoAmI', summary: 'Who this token is', tag: 'tokens' },
  'PUT /api/me/name': {
    operationId: 'setMyName',
    summary: 'Set the display name others see for this token',
    tag: 'tokens',
  },
  'POST /api/tokens': {
    operationId: 'createToken',
    summary: 'Mint a token (admin)',
    tag: 'tokens',
  },
  'GET /login': {
    operationId: 'logIn',
    summary: 'Log a browser in with a token from a login or share link',
    access: 'public',
    tag: 'pages',
    responses: {
      '200': htmlPage(
        "The web app's login view: it trades the token for a browser credential (POST /api/login), asking first when another site sent the browser",
      ),
      '401': htmlPage('The link is not valid, has expired or was revoked (an HTML page)'),
    },
  },
  'POST /api/login': {
    operationId: 'tradeLoginToken',
    summary: "Trade a login link's token (as Bearer) for a credential of this browser's own",
    access: 'bearer',
    tag: 'tokens',
  },
  'DELETE /api/login': {
    operationId: 'signOut',
    summary: 'Sign this browser out (its credential ends)',
    tag: 'tokens',
    responses: { '204': NO_CONTENT },
  },
  'POST /api/live-tickets': {
    operationId: 'createLiveTicket',
    summary: 'A single-use, short-lived ticket for the next WebSocket',
    tag: 'tokens',
  },
  'GET /api/tokens': {
    operationId: 'listTokens',
    summary: 'Every minted token: name, role, scope, created, last used (admin)',
    tag: 'tokens',
  },
  'PATCH /api/tokens/{id}': {
    operationId: 'renameToken',
    summary: 'Rename a minted token (admin)',
    tag: 'tokens',
  },
  'DELETE /api/tokens/{id}': {
    operationId: 'revokeToken',
    summary: "Revoke a token; its holder's sockets close at once (admin)",
    tag: 'tokens',
    responses: { '204': NO_CONTENT },
  },
  'GET /api/settings': {
    operationId: 'getSettings',
    summary:
      'What the web app needs: the needs-a-human threshold, the public URL, the server clock, whether it runs shells itself',
    tag: 'operations',
  },
  'GET /api/sessions/{id}/calls/{callId}/output': {
    operationId: 'getCallOutput',
    summary: "A clipped call's saved full output (text; ?download=true as a file; one Range)",
    tag: 'shells',
  },
  'GET /tokens': {
    operationId: 'tokensPage',
    summary: 'The tokens page (admin)',
    access: 'public',
    tag: 'pages',
    responses: { '200': htmlPage('The web app'), '400': MALFORMED },
  },
  'GET /hosts': {
    operationId: 'hostsPage',
    summary: 'The shell hosts page (admin)',
    access: 'public',
    tag: 'pages',
    responses: { '200': htmlPage('The web app'), '400': MALFORMED },
  },
  'GET /sessions/{id}/calls/{callId}/output': {
    operationId: 'fullOutputPage',
    summary: "A clipped call's full output page",
    access: 'public',
    tag: 'pages',
    responses: { '200': htmlPage('The web app'), '400': MALFORMED },
  },
  'GET /': {
    operationId: 'dashboardPage',
    summary: 'The dashboard page',
    access: 'public',
    tag: 'pages',
    responses: { '200': htmlPage('The web app'), '400': MALFORMED },
  },
  'GET /sessions/{id}': {
    operationId: 'sessionPage',
    summary: "A shell's page",
    access: 'public',
    tag: 'pages',
    responses: { '200': htmlPage('The web app'), '400': MALFORMED },
  },
  'GET /sessions/{id}/replay': {
    operationId: 'replayPage',
    summary: "A shell's replay page",
    access: 'public',
    tag: 'pages',
    responses: { '200': htmlPage('The web app'), '400': MALFORMED },
  },
  'GET /metrics': {
    operationId: 'getMetrics',
    summary: 'Prometheus metrics (text exposition format)',
    tag: 'operations',
    responses: {
      '200': {
        description: 'The metrics in the Prometheus text exposition format, version 0.0.4',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      '4XX': jsonError('No or bad token, or not a supervisor role'),
    },
  },
  'GET /api/openapi.json': {
    operationId: 'getOpenApi',
    summary: 'This document',
    tag: 'operations',
    responses: {
      '200': {
        description: 'The OpenAPI 3.1 document',
        content: { 'application/json': { schema: { type: 'object' } } },
      },
      '4XX': jsonError('No or bad token'),
    },
  },
  'GET /.well-known/{document}': {
    operationId: 'wellKnown',
    summary: 'No discovery documents: 404, so MCP clients do not start an OAuth flow',
    access: 'public',
    tag: 'mcp',
    responses: { '404': jsonError('jumpseat has no OAuth or other discovery documents') },
  },
  'POST /mcp': {
    operationId: 'mcpMessage',
    summary: 'MCP Streamable HTTP: send a JSON-RPC message (revisions 2024-11-05 to 2026-07-28)',
    access: 'bearer',
    tag: 'mcp',
    description:
      'An agent token, or an admin token with the agent in X-Jumpseat-Agent. 2025 revisions open a session with initialize (Mcp-Session-Id); 2026-07-28 needs none. A tools/call with a progress token gets notifications/progress every few seconds while it runs.',
    responses: {
      '200': {
        description:
          'The JSON-RPC response, as JSON or as an SSE stream that carries progress first',
        content: {
          'application/json': { schema: JSON_RPC },
          'text/event-stream': { schema: { type: 'string' } },
        },
      },
      '202': { description: 'A notification or response was accepted' },
      '4XX': MCP_REFUSAL,
    },
  },
  'DELETE /mcp': {
    operationId: 'mcpEndSession',
    summary: 'MCP: end a 2025-revision session',
    access: 'bearer',
    tag: 'mcp',
    responses: { '200': { description: 'The session ended' }, '4XX': MCP_REFUSAL },
  },
  'GET /mcp': {
    operationId: 'mcpStream',
    summary: 'MCP: no server-initiated stream is offered (405)',
    access: 'bearer',
    tag: 'mcp',
    responses: { '405': jsonError('Use POST (or DELETE to end a session)') },
  },
};

/** Operations @fastify/swagger does not see (WebSockets, hidden routes), with their params. */
const ADDED_PARAMETERS: Record<string, Json[]> = {
  'GET /api/sessions/{id}/live': [
    { in: 'path', name: 'id', required: true, schema: { type: 'string' } },
    {
      in: 'query',
      name: 'from',
      required: false,
      description: 'Resume from this output offset',
      schema: { type: 'integer', minimum: 0 },
    },
  ],
  'GET /.well-known/{document}': [
    { in: 'path', name: 'document', required: true, schema: { type: 'string' } },
  ],
};

const SECURITY: Record<Access, Json[]> = {
  token: [{ bearer: [] }, { browser: [] }],
  bearer: [{ bearer: [] }],
  public: [],
};

/** Completes the generated document with the table above. */
export function describeOperations(document: Json): Json {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const [key, operation] of Object.entries(OPERATIONS)) {
    const [method, path] = key.split(' ') as [string, string];
    const pathItem = paths[path] ?? {};
    paths[path] = pathItem;
    const generated = pathItem[method.toLowerCase()] ?? {
      parameters: ADDED_PARAMETERS[key] ?? [],
      responses: {},
    };
    const responses = jsonErrors({
      ...(generated.responses as Json),
      ...(operation.responses ?? {}),
    });
    // A route that answers 204 has no 2XX body; the generator's empty 200 is not real.
    if ('204' in responses || '303' in responses || '101' in responses) delete responses['200'];
    pathItem[method.toLowerCase()] = {
      ...generated,
      operationId: operation.operationId,
      summary: operation.summary,
      ...(operation.description === undefined ? {} : { description: operation.description }),
      tags: [operation.tag],
      security: SECURITY[operation.access ?? 'token'],
      responses,
    };
  }
  return { ...document, paths };
}

/** Error responses are our JSON error shape whatever the success content type is. */
function jsonErrors(responses: Json): Json {
  const fixed: Json = {};
  for (const [status, response] of Object.entries(responses)) {
    const isError = /^[45]/.test(status);
    const content = (response as { content?: Record<string, unknown> }).content;
    fixed[status] =
      isError &&
      content !== undefined &&
      !('application/json' in content) &&
      !('text/html' in content)
        ? jsonError((response as { description?: string }).description ?? 'Refused')
        : response;
  }
  return fixed;
}
