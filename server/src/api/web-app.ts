/**
 * Serves the built browser app (`dist/web`, made by `vite build`): the HTML shell at `/`,
 * `/tokens`, `/hosts`, `/sessions/:id`, `/sessions/:id/replay` and a call's full output page,
 * hashed assets under `/assets/`. Pages and assets are public — they hold no data; every byte
 * of data comes from the API and the live sockets, which need a token.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { PACKAGE_ROOT } from '../package-root.ts';
import { escapeHtml, htmlPage } from './html-page.ts';

/** Where `vite build` writes (vite.config.ts). */
export const WEB_APP_DIR = join(PACKAGE_ROOT, 'dist', 'web');

/** A Host header that can go into a CSP source expression as is (name or IP, and a port). */
const PLAIN_HOST = /^[A-Za-z0-9.-]+(:\d+)?$|^\[[0-9A-Fa-f:.]+\](:\d+)?$/;

/**
 * Same-origin everything; inline styles because xterm.js positions its layers with them.
 * The live sockets are named explicitly: not every browser counts ws: as 'self'.
 */
export function webAppSecurityPolicy(host: string | undefined): string {
  const sockets = host !== undefined && PLAIN_HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${sockets}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'none'",
  ].join('; ');
}

/** The `<base href="/">` of the built page, which the served page's base path replaces. */
const BASE_TAG = /<base href="\/"/;

/** Asset names carry a content hash, so a browser may keep them for good. */
const ASSET_MAX_AGE = '365d';

export interface WebAppOptions {
  /** The built app; `WEB_APP_DIR` unless a test says otherwise. */
  readonly root?: string;
}

const NOT_BUILT_PAGE = htmlPage(
  'jumpseat: web app not built',
  '<h1>jumpseat</h1>\n<p>The web app has not been built. Run <code>npm run build</code> ' +
    '(<code>npm start</code> does it for you), then reload.</p>',
);

/**
 * Sends the app's HTML page; `meta` adds `<meta name content>` tags the page reads (the login
 * view learns whether to ask before switching who the person is).
 */
export async function sendWebApp(
  request: FastifyRequest,
  reply: FastifyReply,
  root = WEB_APP_DIR,
  meta: Readonly<Record<string, string>> = {},
): Promise<FastifyReply> {
  reply
    .type('text/html; charset=utf-8')
    .header('cache-control', reply.getHeader('cache-control') ?? 'no-cache')
    .header('content-security-policy', webAppSecurityPolicy(request.headers.host))
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff');
  // Read per request: a rebuild (new asset hashes) is served without a restart.
  const html = await readFile(join(root, 'index.html'), 'utf8').catch(() => undefined);
  if (html === undefined) return reply.status(503).send(NOT_BUILT_PAGE);
  // The page's <base> is the base path, so its relative asset URLs and links resolve under it
  // whatever page it is (web/index.html holds `<base href="/">`).
  const basePath = request.server.basePath ?? '/';
  const based = html.replace(BASE_TAG, `<base href="${escapeHtml(basePath)}"`);
  const tags = Object.entries(meta)
    .map(([name, content]) => `<meta name="${escapeHtml(name)}" content="${escapeHtml(content)}">`)
    .join('');
  return reply.send(tags === '' ? based : based.replace('</head>', `${tags}</head>`));
}

const webAppPlugin: FastifyPluginAsyncTypebox<WebAppOptions> = async (app, options) => {
  const root = options.root ?? WEB_APP_DIR;
  // Everything this plugin registers is public: the routes below and @fastify/static's.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, public: true, html: true };
  });

  const sendShell = (request: FastifyRequest, reply: FastifyReply) =>
    sendWebApp(request, reply, root);

  app.get('/', async (request, reply) => sendShell(request, reply));
  app.get('/tokens', async (request, reply) => sendShell(request, reply));
  app.get('/hosts', async (request, reply) => sendShell(request, reply));
  app.get(
    '/sessions/:id',
    { schema: { params: Type.Object({ id: Type.String({ minLength: 1 }) }) } },
    async (request, reply) => sendShell(request, reply),
  );
  app.get(
    '/sessions/:id/replay',
    { schema: { params: Type.Object({ id: Type.String({ minLength: 1 }) }) } },
    async (request, reply) => sendShell(request, reply),
  );

  app.get(
    '/sessions/:id/calls/:callId/output',
    {
      schema: {
        params: Type.Object({
          id: Type.String({ minLength: 1 }),
          callId: Type.String({ minLength: 1 }),
        }),
      },
    },
    async (request, reply) => sendShell(request, reply),
  );

  const assets = join(root, 'assets');
  if (existsSync(assets)) {
    await app.register(fastifyStatic, {
      root: assets,
      prefix: '/assets/',
      index: false,
      maxAge: ASSET_MAX_AGE,
      immutable: true,
      setHeaders: (reply) => reply.header('x-content-type-options', 'nosniff'),
    });
  }
};

export const webApp = fp(webAppPlugin, {
  name: 'jumpseat-web-app',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-errors'],
});
