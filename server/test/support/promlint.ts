/**
 * The checks of `promtool check metrics` (Prometheus's promlint, client_golang
 * prometheus/testutil/promlint), for the text exposition format, so tests hold /metrics to
 * them without a Prometheus install. Each problem reads as promtool words it.
 */

export interface MetricFamily {
  readonly name: string;
  readonly type: string;
  readonly help: string | undefined;
  /** Each sample: its full name (`x_bucket`…), labels and value. */
  readonly samples: { name: string; labels: Record<string, string>; value: number }[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the text exposition format into families (by their TYPE lines). */
export function parseExposition(text: string): MetricFamily[] {
  const families = new Map<string, MetricFamily>();
  const family = (name: string): MetricFamily => {
    let found = families.get(name);
    if (found === undefined) {
      found = { name, type: 'untyped', help: undefined, samples: [] };
      families.set(name, found);
    }
    return found;
  };
  const owner = (sample: string): MetricFamily => {
    for (const suffix of ['_bucket', '_count', '_sum', '']) {
      const base = suffix === '' ? sample : sample.slice(0, -suffix.length);
      if (sample.endsWith(suffix) && families.has(base)) return family(base);
    }
    return family(sample);
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const help = /^# HELP (\S+) ?(.*)$/.exec(line);
    if (help?.[1] !== undefined) {
      families.set(help[1], { ...family(help[1]), help: help[2] ?? '' });
      continue;
    }
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type?.[1] !== undefined && type[2] !== undefined) {
      families.set(type[1], { ...family(type[1]), type: type[2] });
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = SAMPLE.exec(line);
    if (sample?.[1] === undefined) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const match of (sample[2] ?? '').matchAll(LABEL)) {
      if (match[1] !== undefined) labels[match[1]] = match[2] ?? '';
    }
    owner(sample[1]).samples.push({ name: sample[1], labels, value: Number(sample[3]) });
  }
  return [...families.values()];
}

const CAMEL = /[a-z][A-Z]/;
/** Units promlint wants in base form: the name's unit word → the base unit. */
const NON_BASE_UNITS: Record<string, string> = {
  minutes: 'seconds',
  hours: 'seconds',
  days: 'seconds',
  weeks: 'seconds',
  milliseconds: 'seconds',
  microseconds: 'seconds',
  nanoseconds: 'seconds',
  kilobytes: 'bytes',
  megabytes: 'bytes',
  gigabytes: 'bytes',
  terabytes: 'bytes',
  petabytes: 'bytes',
  kelvin: 'celsius',
  kilograms: 'grams',
  kilometers: 'meters',
};
const UNIT_ABBREVIATIONS = [
  's',
  'ms',
  'us',
  'ns',
  'sec',
  'b',
  'kb',
  'mb',
  'gb',
  'tb',
  'pb',
  'm',
  'h',
  'd',
];
const TYPE_WORDS = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

/** Every problem promtool would report for `text`, as `name: problem`. */
export function promlint(text: string): string[] {
  const problems: string[] = [];
  for (const family of parseExposition(text)) {
    const { name, type } = family;
    const report = (problem: string): void => {
      problems.push(`${name}: ${problem}`);
    };
    const words = name.split('_');
    if (family.help === undefined || family.help === '') report('no help text');
    for (const word of words) {
      const base = NON_BASE_UNITS[word];
      if (base !== undefined) report(`use base unit "${base}" instead of "${word}"`);
    }
    if (type === 'counter' && !name.endsWith('_total')) {
      report('counter metrics should have "_total" suffix');
    }
    if (type !== 'counter' && name.endsWith('_total')) {
      report('non-counter metrics should not have "_total" suffix');
    }
    if (type !== 'histogram' && name.endsWith('_bucket')) {
      report('non-histogram metrics should not have "_bucket" suffix');
    }
    if (type !== 'histogram' && type !== 'summary') {
      if (name.endsWith('_count')) {
        report('non-histogram and non-summary metrics should not have "_count" suffix');
      }
      if (name.endsWith('_sum')) {
        report('non-histogram and non-summary metrics should not have "_sum" suffix');
      }
    }
    const labels = new Set(family.samples.flatMap((sample) => Object.keys(sample.labels)));
    if (type !== 'histogram' && labels.has('le')) {
      report('non-histogram metrics should not have "le" label');
    }
    if (type !== 'summary' && labels.has('quantile')) {
      report('non-summary metrics should not have "quantile" label');
    }
    for (const word of TYPE_WORDS) {
      if (words.includes(word)) report(`metric name should not include type '${word}'`);
    }
    if (name.includes(':')) report("metric names should not contain ':'");
    if (CAMEL.test(name)) report("metric names should be written in 'snake_case' not 'camelCase'");
    for (const label of labels) {
      if (CAMEL.test(label)) {
        report("label names should be written in 'snake_case' not 'camelCase'");
      }
    }
    if (words.some((word) => UNIT_ABBREVIATIONS.includes(word))) {
      report('metric names should not contain abbreviated units');
    }
    const series = family.samples.map((sample) => `${sample.name}${JSON.stringify(sample.labels)}`);
    if (new Set(series).size !== series.length) report('metric has duplicate series');
  }
  return problems;
}
