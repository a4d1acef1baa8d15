/**
 * Just enough PromQL to run the autoscalers' queries against what the apps really export, without a Prometheus:
 * instant vector selectors (=, !=, =~, !~) under nested sum/max/min aggregations, with or without `by (...)`. Anything
 * else throws, so a query written past this subset fails its test loudly rather than being half understood.
 */

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/**
 * Samples of a Prometheus text exposition, as a scrape stores them: the target's labels (namespace, pod, ...) are
 * added to every series, and `__name__` holds the metric name.
 */
export function scrape(exposition: string, targetLabels: Record<string, string>): Sample[] {
  const samples: Sample[] = [];
  for (const line of exposition.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = { ...targetLabels, __name__: m[1] };
    for (const pair of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]] = pair[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ labels, value: Number(m[3]) });
  }
  return samples;
}

type Matcher = { label: string; op: '=' | '!=' | '=~' | '!~'; value: string };
type Expr =
  | { kind: 'selector'; matchers: Matcher[] }
  | { kind: 'aggregate'; op: 'sum' | 'max' | 'min'; by: string[] | null; inner: Expr };

function parse(query: string): Expr {
  let at = 0;
  const rest = () => query.slice(at);
  const skip = () => {
    while (/\s/.test(query[at] ?? '')) at++;
  };
  const expect = (token: string) => {
    skip();
    if (!rest().startsWith(token)) throw new Error(`PromQL subset: expected "${token}" at "${rest().slice(0, 30)}" in ${query}`);
    at += token.length;
  };
  const identifier = (): string => {
    skip();
    const m = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(rest());
    if (!m) throw new Error(`PromQL subset: expected a name at "${rest().slice(0, 30)}" in ${query}`);
    at += m[0].length;
    return m[0];
  };
  const labelList = (): string[] => {
    expect('(');
    const labels = [identifier()];
    for (skip(); query[at] === ','; skip()) {
      at++;
      labels.push(identifier());
    }
    expect(')');
    return labels;
  };
  const expr = (): Expr => {
    const name = identifier();
    skip();
    if (['sum', 'max', 'min'].includes(name) && (query[at] === '(' || rest().startsWith('by'))) {
      let by: string[] | null = null;
      if (rest().startsWith('by')) {
        at += 2;
        by = labelList();
      }
      expect('(');
      const inner = expr();
      expect(')');
      return { kind: 'aggregate', op: name as 'sum' | 'max' | 'min', by, inner };
    }
    const matchers: Matcher[] = [{ label: '__name__', op: '=', value: name }];
    if (query[at] === '{') {
      at++;
      for (skip(); query[at] !== '}'; skip()) {
        const label = identifier();
        skip();
        const op = /^(=~|!~|!=|=)/.exec(rest())?.[1] as Matcher['op'] | undefined;
        if (!op) throw new Error(`PromQL subset: expected a matcher operator at "${rest().slice(0, 30)}" in ${query}`);
        at += op.length;
        skip();
        const value = /^"((?:[^"\\]|\\.)*)"/.exec(rest());
        if (!value) throw new Error(`PromQL subset: expected a double-quoted value at "${rest().slice(0, 30)}" in ${query}`);
        at += value[0].length;
        matchers.push({ label, op, value: value[1].replace(/\\(.)/g, '$1') });
        skip();
        if (query[at] === ',') at++;
      }
      at++;
    }
    return { kind: 'selector', matchers };
  };
  const tree = expr();
  skip();
  if (at !== query.length) throw new Error(`PromQL subset: unexpected "${rest()}" in ${query}`);
  return tree;
}

function matches(m: Matcher, labels: Record<string, string>): boolean {
  const actual = labels[m.label] ?? '';
  // PromQL regular expressions are fully anchored.
  const re = () => new RegExp(`^(?:${m.value})$`);
  switch (m.op) {
    case '=': return actual === m.value;
    case '!=': return actual !== m.value;
    case '=~': return re().test(actual);
    case '!~': return !re().test(actual);
  }
}

function run(expr: Expr, samples: readonly Sample[]): Sample[] {
  if (expr.kind === 'selector') return samples.filter((s) => expr.matchers.every((m) => matches(m, s.labels)));
  const groups = new Map<string, Sample>();
  for (const sample of run(expr.inner, samples)) {
    const labels: Record<string, string> = {};
    for (const l of expr.by ?? []) if (sample.labels[l] !== undefined) labels[l] = sample.labels[l];
    const key = JSON.stringify(labels);
    const group = groups.get(key);
    if (!group) groups.set(key, { labels, value: sample.value });
    else if (expr.op === 'sum') group.value += sample.value;
    else if (expr.op === 'max') group.value = Math.max(group.value, sample.value);
    else group.value = Math.min(group.value, sample.value);
  }
  return [...groups.values()];
}

/**
 * The instant vector a query gives over these samples. KEDA's Prometheus scaler wants exactly one element; none is
 * what its ignoreNullValues setting is about.
 */
export function evaluate(query: string, samples: readonly Sample[]): Sample[] {
  return run(parse(query), samples);
}
