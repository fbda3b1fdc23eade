/** A Python module for the facts tests: a swallowed exception at line 5 and a copy-pasted function (twins across modules). */
export function pythonModule(i: number): string {
  return `def load_${i}(path):
    try:
        return open(path).read()
    except OSError:
        pass


def merge_${i}(left, right, key):
    out = {}
    for item in left:
        out[item[key]] = item
    for item in right:
        if item[key] not in out:
            out[item[key]] = item
        else:
            out[item[key]].update(item)
    return sorted(out.values(), key=lambda x: x[key])
`;
}
