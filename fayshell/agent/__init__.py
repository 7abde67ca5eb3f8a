"""The node agent: a headless fayshell process answering framed requests on stdin/stdout."""
