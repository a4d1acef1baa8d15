/**
 * name_filter and path_filter: shell-style globs. name_filter matches the file name (the part after the last `/`);
 * path_filter matches the folder part (everything before the last `/`, empty for top-level files). `*` matches any
 * run of characters except `/`, `**` any run including `/`, `?` one character except `/`, `[abc]`, `[a-z]` and
 * `[!abc]` one character of (or not of) a set. Matching is case-sensitive and covers the whole name or folder:
 * write `*sale*` to find "sale" anywhere in a name.
 */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        out += '.*';
        i++;
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let set = glob.slice(i + 1, end);
      const negate = set.startsWith('!');
      if (negate) set = set.slice(1);
      out += `[${negate ? '^' : ''}${set.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else {
      out += c.replace(/[.+^${}()|\\/]/g, '\\$&');
    }
  }
  return new RegExp(`^${out}$`);
}

export interface PathFilters {
  name_filter?: string;
  path_filter?: string;
}

/** A predicate over collection paths, or null when no filter is set. */
export function pathPredicate(filters: PathFilters): ((filepath: string) => boolean) | null {
  const name = filters.name_filter ? globToRegExp(filters.name_filter) : null;
  const folder = filters.path_filter ? globToRegExp(filters.path_filter) : null;
  if (!name && !folder) return null;
  return (filepath) => {
    const slash = filepath.lastIndexOf('/');
    if (name && !name.test(filepath.slice(slash + 1))) return false;
    if (folder && !folder.test(slash < 0 ? '' : filepath.slice(0, slash))) return false;
    return true;
  };
}
