"""Which names say "credential": the one rule of the tool and the workloads, read from secret_names.json
(src/util/secret-names.ts reads the same file), for the environment facts (_stack) and the co-tenants'
command lines (_peers)."""

import json
import os
import re

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "secret_names.json")) as _f:
    _RULE = json.load(_f)

CONTAINS = tuple(_RULE["contains"])
WORDS = frozenset(_RULE["words"])
WORD_ENDS = tuple(_RULE["word_ends"])
NOT_SECRET = frozenset(_RULE.get("not_secret", ()))


def is_secret_name(name):
    """True when the name (an environment variable, a NAME=value argument, a --flag) holds a secret."""
    up = name.upper()
    if up in NOT_SECRET:  # PWD, OLDPWD: the working folder, not a password
        return False
    if any(c in up for c in CONTAINS):
        return True
    return any(w and (w in WORDS or w.endswith(WORD_ENDS)) for w in re.split(r"[^A-Z0-9]+", up))
