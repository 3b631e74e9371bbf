import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../../shared/src/api.ts';
import { renderDashboard } from './dashboard.ts';

const session: SessionInfo = {
  id: 's1',
  agent: 'a1',
  dialect: 'bash',
  state: 'running',
  command: '<script>alert("x")</script> & echo \'hi\'',
  since: '2025-01-01T00:00:00.000Z',
  lastExitCode: 3,
  pid: 100,
  cols: 120,
  rows: 40,
  controller: null,
  viewers: 0,
  startedAt: '2025-01-01T00:00:00.000Z',
};

describe('renderDashboard', () => {
  it('escapes what an agent ran', () => {
    const html = renderDashboard([session]);
    expect(html).not.toContain('<script>');
    expect(html).toContain(
      '<code>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; echo &#39;hi&#39;</code>',
    );
  });

  it('shows agent, dialect, state and last exit code, and reloads every 2 s', () => {
    const html = renderDashboard([session]);
    expect(html).toContain('<td>a1</td><td>bash</td><td>running</td>');
    expect(html).toContain('<td>3</td></tr>');
    expect(html).toContain('<meta http-equiv="refresh" content="2">');
  });

  it('says so when there are no shells', () => {
    expect(renderDashboard([])).toContain('No live shells.');
  });
});
