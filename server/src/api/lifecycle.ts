/**
 * Ties the engine's life to the server's: no new work once closing starts, every shell ended
 * when the server closes, and a health check and a readiness check that need no token.
 */
import type { Socket } from 'node:net';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import { JUMPSEAT_ERR_SHUTTING_DOWN, JumpseatError } from '../errors.ts';
import type { StorageHealth } from '../ops/storage-health.ts';
import type { ToolService } from '../tool/tool-service.ts';

export interface LifecycleOptions {
  readonly tools: ToolService;
  readonly health: StorageHealth;
  /** `--database`: PostgreSQL's availability is part of health and readiness. */
  readonly database?: PostgresDatabase;
}

/** The areas of ops/storage-health.ts (STORAGE_AREAS). */
export const StorageArea = Type.Union([
  Type.Literal('history'),
  Type.Literal('recordings'),
  Type.Literal('tokens'),
  Type.Literal('outputs'),
]);

const lifecyclePlugin: FastifyPluginAsyncTypebox<LifecycleOptions> = async (
  app,
  { tools, health, database },
) => {
  /** `embedded` (SQLite in the data dir), or whether PostgreSQL answers now. */
  const databaseState = (): 'embedded' | 'ok' | 'unavailable' =>
    database === undefined ? 'embedded' : database.state.available ? 'ok' : 'unavailable';
  let closing = false;
  /** The tools' close, begun before the close hooks (null: not begun). */
  let toolsClosed: Promise<{ error: unknown } | null> | null = null;
  // Connections that never sent a request (a client's spare socket) are neither idle nor
  // busy to Node: closing would wait on them until the headers timeout (60 s). They end here.
  const silent = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    silent.add(socket);
    socket.once('data', () => silent.delete(socket));
    socket.once('close', () => silent.delete(socket));
  });
  app.addHook('preClose', async () => {
    closing = true;
    // Before the calls in flight are cancelled (their plugins' preClose hooks come later):
    // the resets that cancelling causes then record each shell as closed by the stop.
    tools.beginClose();
    for (const socket of silent) socket.destroy();
    // The shells start ending now, while the server answers the calls it cancelled and waits
    // for its connections (a second with 100 calls in flight), not after. Once this turn's
    // hooks have run: the calls in flight are cancelled by then, and answered as such.
    toolsClosed = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => tools.close())
      .then(
        () => null,
        (error: unknown) => ({ error }),
      );
  });
  // Requests on kept-alive connections still arrive while closing; refuse them in our shape.
  app.addHook('onRequest', async () => {
    if (closing) throw new JumpseatError(JUMPSEAT_ERR_SHUTTING_DOWN, 'jumpseat is shutting down');
  });
  app.addHook('onClose', async () => {
    const failed = await (toolsClosed ?? tools.close().then(() => null));
    if (failed !== null) throw failed.error;
  });

  app.get(
    '/healthz',
    {
      schema: {
        security: [],
        response: {
          200: Type.Object({
            ok: Type.Boolean(),
            /** `degraded`: calls go on, but the data dir refuses some writes (see /api/storage). */
            storage: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
            /** The areas that cannot be written now; no paths or messages (this is public). */
            failing: Type.Array(StorageArea),
            /**
             * `embedded`: SQLite in the data dir; with `--database`, whether PostgreSQL answers
             * now (`unavailable`: shells go on, rows wait in memory, some routes answer 503).
             */
            database: Type.Union([
              Type.Literal('embedded'),
              Type.Literal('ok'),
              Type.Literal('unavailable'),
            ]),
          }),
        },
      },
      config: { public: true },
    },
    async () => {
      const report = health.report();
      const failing = report.areas.filter((a) => a.failing !== null).map((a) => a.area);
      return { ok: true, storage: report.state, failing, database: databaseState() };
    },
  );

  // For a load balancer or an orchestrator: send traffic only while the data dir takes
  // writes (the history opened, tokens can be saved). Alive but not ready is /healthz's 200
  // with storage "degraded"; while shutting down, the hook above answers 503 first.
  app.get(
    '/readyz',
    {
      schema: {
        security: [],
        response: {
          200: Type.Object({ ready: Type.Literal(true) }),
          503: Type.Object({
            ready: Type.Literal(false),
            /** Which areas cannot be written; no paths or messages (this is public). */
            reason: Type.String(),
          }),
        },
      },
      config: { public: true },
    },
    // PostgreSQL's absence does not make a replica unready: live shells and calls go on
    // without it (rows wait in memory), and every replica would turn unready at once.
    async (_request, reply) => {
      const failing = health
        .report()
        .areas.filter((a) => a.failing !== null)
        .map((a) => a.area);
      if (failing.length === 0) return { ready: true as const };
      return reply.code(503).send({
        ready: false as const,
        reason: `the data dir cannot be written (${failing.join(', ')})`,
      });
    },
  );
};

export const lifecycle = fp(lifecyclePlugin, {
  name: 'jumpseat-lifecycle',
  fastify: '5.x',
  dependencies: ['jumpseat-errors'],
});
