/**
 * `GET /api/storage`: whether the data dir takes writes, per area (history, recordings,
 * tokens, saved outputs), what waits in memory for it and what was lost, for supervisors.
 * `/healthz` says the same in brief, without details, to anyone.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import type { StorageHealth } from '../ops/storage-health.ts';
import { ERROR_RESPONSES } from './error-replies.ts';
import { StorageArea } from './lifecycle.ts';
import { refuseUnlessSupervisor } from './supervisor-api.ts';

export interface StorageApiOptions {
  readonly health: StorageHealth;
}

const StorageReport = Type.Object({
  state: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  areas: Type.Array(
    Type.Object({
      area: StorageArea,
      /** null while the area writes fine. */
      failing: Type.Union([
        Type.Null(),
        Type.Object({ code: Type.String(), message: Type.String(), since: Type.String() }),
      ]),
      keptItems: Type.Integer(),
      keptBytes: Type.Integer(),
      droppedItems: Type.Integer(),
      droppedBytes: Type.Integer(),
    }),
  ),
});

const storageApiPlugin: FastifyPluginAsyncTypebox<StorageApiOptions> = async (app, { health }) => {
  app.get(
    '/api/storage',
    {
      schema: { response: { 200: StorageReport, ...ERROR_RESPONSES } },
      config: { refuse: refuseUnlessSupervisor },
    },
    async () => {
      const report = health.report();
      return { state: report.state, areas: [...report.areas] };
    },
  );
};

export const storageApi = fp(storageApiPlugin, {
  name: 'jumpseat-storage-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-errors'],
});
