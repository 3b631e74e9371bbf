// Alerts when a shell starts to need a human (issue 26): opt-in desktop notifications (one
// per shell; a click opens it) and a sound, chosen on the dashboard and kept by the browser.
// The page's own Notification and audio are the browser's; the test only records them.
import { expect, test } from '../playwright/src/index.ts';

declare global {
  interface Window {
    shownNotes: { title: string; body: string; tag: string; note: Notification }[];
    toneCount: number;
  }
}

for (const size of [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
]) {
  test.describe(size.name, () => {
    test.use({ viewport: size.viewport });

    test('a shell that starts to need a human notifies once and sounds; a click opens it', async ({
      page,
      context,
      jumpseat,
      shell,
    }, testInfo) => {
      await context.grantPermissions(['notifications']);
      await page.addInitScript(() => {
        window.shownNotes = [];
        window.toneCount = 0;
        const Real = window.Notification;
        class Recorded extends Real {
          constructor(title: string, options: NotificationOptions = {}) {
            super(title, options);
            window.shownNotes.push({
              title,
              body: options.body ?? '',
              tag: options.tag ?? '',
              note: this,
            });
          }
        }
        window.Notification = Recorded as typeof Notification;
        const start = OscillatorNode.prototype.start;
        OscillatorNode.prototype.start = function (this: OscillatorNode, when?: number) {
          window.toneCount += 1;
          start.call(this, when);
        };
      });
      await shell.run('echo ready');
      await page.goto(jumpseat.loginUrl());
      await expect(page).toHaveURL(`${jumpseat.url}/`);
      const alerts = page.getByTestId('alerts');
      await alerts.getByText('Alerts').click();
      await page.getByLabel('Desktop notification').check();
      await page.getByLabel('Sound').check();
      await expect.poll(() => page.evaluate(() => window.toneCount)).toBe(1); // the sample
      await page.screenshot({ path: testInfo.outputPath(`alerts-${size.name}.png`) });

      // Kept by the browser: a new page load has them on.
      await page.reload();
      await page.getByTestId('alerts').getByText('Alerts').click();
      await expect(page.getByLabel('Desktop notification')).toBeChecked();
      await expect(page.getByLabel('Sound')).toBeChecked();
      await page.getByTestId('alerts').getByText('Alerts').click();

      expect(await shell.run("read -p 'name? ' n")).toBe('name? \n[waiting for input: bash]');
      const row = page.locator(`[data-testid="session-row"][data-agent="${shell.agent}"]`);
      await expect(row.getByTestId('state')).toHaveText('waiting for input — needs a human');
      await expect.poll(() => page.evaluate(() => window.shownNotes.length)).toBe(1);
      const [note] = await page.evaluate(() =>
        window.shownNotes.map(({ title, body, tag }) => ({ title, body, tag })),
      );
      expect(note).toEqual({
        title: 'A shell needs a human',
        body: `${shell.agent} (bash) is waiting for input: read -p 'name? ' n`,
        tag: `jumpseat-${shell.sessionId}`,
      });
      await expect.poll(() => page.evaluate(() => window.toneCount)).toBe(1);
      // One per shell: the list redrawn (a filter typed) brings no second one.
      await page.locator('#shell-filter').fill(shell.agent);
      await expect(row).toBeVisible();
      expect(await page.evaluate(() => window.shownNotes.length)).toBe(1);

      await page.evaluate(() => window.shownNotes[0]?.note.dispatchEvent(new Event('click')));
      await expect(page).toHaveURL(`${jumpseat.url}/sessions/${shell.sessionId}`);
    });
  });
}
