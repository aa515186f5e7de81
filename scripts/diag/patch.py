"""Shared by the diagnostic patches: replace text in a file of the tree
being patched, and fail loudly when the code moved (an anchor not found
once) instead of building a library that traces nothing."""
import sys


def patch(root, path, old, new):
    p = f"{root}/{path}"
    with open(p) as f:
        s = f.read()
    n = s.count(old)
    if n != 1:
        sys.exit(f"diag: {path}: anchor found {n} times, the code moved; update "
                 f"scripts/diag/: {old.strip().splitlines()[0]!r}")
    with open(p, "w") as f:
        f.write(s.replace(old, new))


def after(root, path, line, add):
    """Insert add after the one line of path that is exactly line (its
    indentation included)."""
    patch(root, path, "\n" + line + "\n", "\n" + line + "\n" + add + "\n")
