/**
 * `GET /`: until the web app lands, a server-rendered list of the live shells that reloads
 * itself, for supervisors who logged in through the login URL.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import type { SessionInfo } from '../../../shared/src/api.ts';
import type { ToolService } from '../tool/tool-service.ts';
import { escapeHtml, htmlPage, PAGE_SECURITY_POLICY } from './html-page.ts';
import { refuseUnlessSupervisor } from './supervisor-api.ts';

export interface DashboardOptions {
  readonly tools: ToolService;
}

/** Often enough to catch a shell waiting for input, rarely enough to stay cheap. */
export const DASHBOARD_REFRESH_SECONDS = 2;

/** A heredoc can be a megabyte; the table shows the start. */
const MAX_COMMAND_CHARS = 300;

export function renderDashboard(sessions: readonly SessionInfo[]): string {
  const rows = sessions.map(
    (session) =>
      `<tr><td>${escapeHtml(session.agent)}</td><td>${escapeHtml(session.dialect)}</td>` +
      `<td>${escapeHtml(session.state)}</td><td><code>${escapeHtml(shorten(session.command ?? ''))}</code></td>` +
      `<td>${session.lastExitCode === null ? '' : String(session.lastExitCode)}</td></tr>`,
  );
  const table =
    rows.length === 0
      ? '<p class="muted">No live shells.</p>'
      : '<table>\n<thead><tr><th>agent</th><th>dialect</th><th>state</th><th>command</th>' +
        `<th>last exit code</th></tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`;
  return htmlPage(
    'jumpseat',
    `<h1>jumpseat</h1>\n<p class="muted">Live shells, refreshed every ${DASHBOARD_REFRESH_SECONDS} s.</p>\n${table}`,
    `<meta http-equiv="refresh" content="${DASHBOARD_REFRESH_SECONDS}">\n`,
  );
}

function shorten(command: string): string {
  return command.length > MAX_COMMAND_CHARS ? `${command.slice(0, MAX_COMMAND_CHARS)}…` : command;
}

const dashboardPlugin: FastifyPluginAsyncTypebox<DashboardOptions> = async (app, { tools }) => {
  app.get(
    '/',
    { config: { html: true, refuse: refuseUnlessSupervisor } },
    async (_request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('content-security-policy', PAGE_SECURITY_POLICY)
        .send(renderDashboard(tools.sessions())),
  );
};

export const dashboard = fp(dashboardPlugin, {
  name: 'jumpseat-dashboard',
  fastify: '5.x',
  encapsulate: true,
  dependencies: ['jumpseat-auth', 'jumpseat-errors'],
});
