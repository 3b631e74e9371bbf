/**
 * Placement labels, checked the same way wherever they are given: a host's `--label key=value`
 * and an agent token's `labels` (its shells go only to hosts with all of them).
 */
import { LABEL_KEY_REGEX, LABEL_VALUE_REGEX } from './vocabulary.ts';

/** Labels one host or token may carry: plenty for placement, bounded for the wire. */
export const MAX_LABELS = 32;

export type Labels = Readonly<Record<string, string>>;

/** What is wrong with `labels`, or undefined when they are well formed. */
export function labelsProblem(labels: Labels): string | undefined {
  const keys = Object.keys(labels);
  if (keys.length > MAX_LABELS) return `at most ${MAX_LABELS} labels, not ${keys.length}`;
  for (const key of keys) {
    if (!LABEL_KEY_REGEX.test(key)) {
      return `label key ${JSON.stringify(key)} must be 1-63 letters, digits, ".", "_", "/" or "-", starting with a letter or digit`;
    }
    if (!LABEL_VALUE_REGEX.test(labels[key] ?? '')) {
      return `label ${key}'s value must be at most 100 letters, digits, ".", "_", "/" or "-"`;
    }
  }
  return undefined;
}

/** `key=value` as given on a command line; an error message for anything else. */
export function parseLabel(text: string): { key: string; value: string } | { error: string } {
  const at = text.indexOf('=');
  if (at <= 0) return { error: `a label is key=value, not ${JSON.stringify(text)}` };
  const key = text.slice(0, at);
  const value = text.slice(at + 1);
  const problem = labelsProblem({ [key]: value });
  return problem === undefined ? { key, value } : { error: problem };
}

/** The labels of `wanted` that `held` lacks (or holds with another value), as `k=v` words. */
export function missingLabels(wanted: Labels, held: Labels): string[] {
  return Object.entries(wanted)
    .filter(([key, value]) => held[key] !== value)
    .map(([key, value]) => `${key}=${value}`);
}
