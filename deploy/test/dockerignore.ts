/** Which paths a .dockerignore keeps out of the build context (Docker's rules, minus escapes). */
function patternToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i += 1;
      if (pattern[i + 1] === '/') i += 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export function dockerIgnore(text: string): (file: string) => boolean {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => ({ exclude: !l.startsWith('!'), pattern: patternToRegExp(l.replace(/^!/, '').replace(/^\/+|\/+$/g, '')) }));
  return (file) => {
    // A rule matches a path or any folder above it; the last matching rule decides.
    const parts = file.split('/');
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const rule of rules) if (candidates.some((c) => rule.pattern.test(c))) excluded = rule.exclude;
    return excluded;
  };
}
