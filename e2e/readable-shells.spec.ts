/**
 * Readable shells (issue 26): a person's own shell shows a short prompt (its workspace named
 * `workspace`, not a 70-character path), the dashboard's Command cell never breaks inside a
 * word and names the whole command on hover, and the control badge and the hint under the
 * terminal are shown whole, on a laptop and on a phone.
 */
import type { Locator } from '@playwright/test';
import { expect, screenOf, test } from './support/fixtures.ts';
import { openOwnShell, run } from './support/sharing.ts';

const SIZES = [
  { name: 'laptop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** True when the element shows all of its content: nothing clipped or ellipsized sideways. */
function fits(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element.scrollWidth <= element.clientWidth);
}

for (const size of SIZES) {
  test(`a person's shell, the Command column and the badge are readable at ${size.name} size`, async ({
    browser,
    jumpseat,
    agent,
  }, testInfo) => {
    test.slow();
    const context = await browser.newContext({
      viewport: { width: size.width, height: size.height },
    });
    const page = await context.newPage();
    await jumpseat.login(page);

    // An agent's long running command: the dashboard shows it without breaking a word inside.
    const stop = `${jumpseat.workspace}/${agent}.stop`;
    const command = `printf "%s\\n" configuration-directory-with-a-rather-long-name another-quite-long-argument-for-wrapping; until [ -e ${stop} ]; do sleep 0.1; done`;
    const call = jumpseat.bash(agent, command);
    await page.goto('/');
    const cell = page.locator(`[data-agent="${agent}"] td.command`);
    await expect(cell).toHaveAttribute('title', command);
    await expect(cell).toBeVisible();
    // Cut inside the cell (its title holds the rest), never pushing the page sideways.
    const row = page.locator(`[data-agent="${agent}"]`);
    expect(await fits(row)).toBe(true);
    const rowBox = await row.boundingBox();
    expect((rowBox?.x ?? 0) + (rowBox?.width ?? size.width + 1)).toBeLessThanOrEqual(size.width);
    // No short word (one that fits a line) is split across two lines: each has one box.
    const split = await cell.evaluate((element) => {
      const text = element.firstChild;
      if (text === null) return ['(no text)'];
      const words = [...(text.textContent ?? '').matchAll(/[^ -]{1,20}(?=[ -]|$)/g)];
      return words
        .filter((word) => {
          const range = document.createRange();
          range.setStart(text, word.index);
          range.setEnd(text, word.index + word[0].length);
          return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size > 1;
        })
        .map((word) => word[0]);
    });
    expect(split).toEqual([]);
    if (size.name === 'laptop') {
      // A table row: one line, cut with an ellipsis inside the cell, the rest in its title.
      const oneLine = await cell.evaluate((element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
        const row = element.closest('tr')?.getBoundingClientRect();
        const inside = row !== undefined && element.getBoundingClientRect().right <= row.right;
        return tops.size === 1 && inside && getComputedStyle(element).textOverflow === 'ellipsis';
      });
      expect(oneLine).toBe(true);
    }
    await page.screenshot({ path: testInfo.outputPath(`dashboard-${size.name}.png`) });
    await jumpseat.bash(`${agent}-helper`, `touch ${stop}`);
    expect((await call).status).toBe(200);

    // A person's own shell: the short prompt, also after cd.
    if (size.name === 'laptop') {
      await openOwnShell(page);
    } else {
      const opened = await jumpseat.api('/api/sessions', {
        method: 'POST',
        body: JSON.stringify({ dialect: 'bash' }),
      });
      expect(opened.status).toBe(201);
      const { id } = (await opened.json()) as { id: string };
      await page.goto(`/sessions/${encodeURIComponent(id)}`);
      await expect(page.getByTestId('connection')).toHaveAttribute('data-state', 'live');
    }
    await expect.poll(() => screenOf(page)).toMatch(/^workspace\$ ?$/m);
    expect(await screenOf(page)).not.toContain('_people');
    const badge = page.getByTestId('controller');
    await expect(badge).toHaveText('You have control — type in the terminal');
    expect(await fits(badge)).toBe(true);
    await expect(badge).toBeInViewport({ ratio: 1 });
    if (size.name === 'laptop') {
      await run(page, 'mkdir -p src && cd src', 'cd');
      await expect.poll(() => screenOf(page)).toMatch(/^workspace\/src\$ ?$/m);
      // Setting the prompt is not in the person's history.
      await run(page, 'history', 'history');
      expect(await screenOf(page)).toMatch(/^ +1 +mkdir -p src && cd src; echo cd-done/m);
      expect(await screenOf(page)).not.toContain('PS1=');

      const hint = page.locator('.hint');
      await expect(hint).toHaveText(
        'Your keys go to the shell. F6 moves the keyboard out of the terminal.',
      );
      expect(await fits(hint)).toBe(true);
      // Under the terminal and still on the screen, not below its bottom edge.
      await expect(hint).toBeInViewport({ ratio: 1 });
      const hintBox = await hint.boundingBox();
      expect((hintBox?.x ?? -1) + (hintBox?.width ?? size.width)).toBeLessThanOrEqual(size.width);
    }
    await page.screenshot({ path: testInfo.outputPath(`own-shell-${size.name}.png`) });
    await context.close();
  });
}
