"""Which names say "credential": one list for the environment facts (_stack) and the co-tenants' command
lines (_peers), so a word added here is masked in both."""

SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH")


def is_secret_name(name):
    """True when the name (an environment variable, a NAME=value argument, a --flag) holds a secret word."""
    up = name.upper()
    return any(w in up for w in SECRET_WORDS)
