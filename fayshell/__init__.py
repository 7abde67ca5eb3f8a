"""fayshell: an operator shell and terminal dashboard for tracing a whole cluster at once."""

__version__ = "0.1.0"
