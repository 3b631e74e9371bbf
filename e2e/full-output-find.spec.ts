// The full output page as a long read (issue 26): the Find bar and its count stay in view
// while the output scrolls (in a box of its own), and every line is numbered as `grep -n` numbers it. At 1280×800
// and 390×844.
import { expect, openShell, test } from './support/fixtures.ts';

const LINES = 5_000;

for (const size of [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
]) {
  test.describe(size.name, () => {
    test.use({ viewport: size.viewport });

    test('the find bar stays in view and lines are numbered', async ({
      page,
      jumpseat,
      agent,
    }, testInfo) => {
      const reply = await jumpseat.bash(agent, `seq 1 ${LINES} | sed 's/^/row-/'`);
      expect(reply.output).toContain('<response clipped>');
      await jumpseat.login(page);
      await openShell(page, jumpseat, agent);
      const call = page.getByTestId('call').first();
      await call.locator('summary').click();
      await call.getByTestId('full-output-link').click();
      await expect(page.getByTestId('full-output')).toContainText(`row-${LINES}`);

      const numbers = page.getByTestId('line-numbers');
      const gutter = (await numbers.textContent()) ?? '';
      expect(gutter.split('\n')).toHaveLength(LINES);
      expect(gutter.startsWith('1\n2\n3\n')).toBe(true);
      // Line 4321 of the gutter sits level with row-4321.
      const levels = await page.evaluate(() => {
        const out = document.querySelector('[data-testid="full-output"]') as HTMLElement;
        const gut = document.querySelector('[data-testid="line-numbers"]') as HTMLElement;
        const lineTop = (pre: HTMLElement, text: string): number => {
          const node = pre.firstChild as Text;
          const at = (node.textContent ?? '').indexOf(text);
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + text.length);
          return range.getBoundingClientRect().top;
        };
        return [lineTop(out, 'row-4321\n'), lineTop(gut, '4321\n4322')];
      });
      expect(Math.abs((levels[0] ?? 0) - (levels[1] ?? 0))).toBeLessThan(20);

      await page.getByLabel('Find').fill('row-4321');
      await expect(page.getByTestId('find-count')).toHaveText('1 of 1');
      // Scrolled far down to the match: the bar and its count are still on screen.
      const scroller = page.getByTestId('output-scroller');
      expect(await scroller.evaluate((box) => box.scrollTop)).toBeGreaterThan(1000);
      await expect(page.getByTestId('output-tools')).toBeInViewport({ ratio: 1 });
      await expect(page.getByTestId('find-count')).toBeInViewport({ ratio: 1 });
      // The match itself is in view too, inside the output's box.
      const box = await scroller.boundingBox();
      expect((box?.y ?? 9999) + (box?.height ?? 0)).toBeLessThanOrEqual(size.viewport.height);
      await page.screenshot({ path: testInfo.outputPath(`full-output-${size.name}.png`) });
    });
  });
}
