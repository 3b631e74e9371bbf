/**
 * `GET /api/settings`: the few server settings the web app shows by — when a waiting shell
 * needs a human, the public URL links and examples name, and whether the server runs shells
 * itself. Any valid token may read it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { WebSettings } from '../../../shared/src/api.ts';
import type { Config } from '../config/config.ts';
import { ERROR_RESPONSES } from './error-replies.ts';

export interface WebSettingsApiOptions {
  readonly config: Pick<Config, 'needsHumanAfterMs' | 'publicUrl' | 'localShells'>;
}

const webSettingsApiPlugin: FastifyPluginAsyncTypebox<WebSettingsApiOptions> = async (
  app,
  { config },
) => {
  app.get(
    '/api/settings',
    {
      schema: { response: { 200: WebSettings, ...ERROR_RESPONSES } },
      config: { anyScope: true },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return {
        needsHumanAfterMs: config.needsHumanAfterMs,
        publicUrl: config.publicUrl,
        serverTime: new Date().toISOString(),
        localShells: config.localShells,
      };
    },
  );
};

export const webSettingsApi = fp(webSettingsApiPlugin, {
  name: 'jumpseat-web-settings-api',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-errors'],
});
