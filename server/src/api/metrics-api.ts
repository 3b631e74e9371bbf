/**
 * `GET /metrics`: the Prometheus exposition of this server's metrics, for supervisors (a
 * scraper sends a viewer token as `Authorization: Bearer …`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import type { Metrics } from '../ops/metrics.ts';
import { refuseUnlessSupervisor } from './supervisor-api.ts';

export interface MetricsApiOptions {
  readonly metrics: Metrics;
}

const metricsApiPlugin: FastifyPluginAsyncTypebox<MetricsApiOptions> = async (app, { metrics }) => {
  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics (text exposition format)',
        produces: ['text/plain'],
      },
      config: { refuse: refuseUnlessSupervisor },
    },
    async (_request, reply) => {
      const { contentType, text } = await metrics.scrape();
      return reply.type(contentType).send(text);
    },
  );
};

export const metricsApi = fp(metricsApiPlugin, {
  name: 'jumpseat-metrics-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-errors'],
});
