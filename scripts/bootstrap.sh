#!/usr/bin/env bash
# Install everything fayshell and its tests need on a Debian machine, idempotently:
# Debian packages (LTTng, babeltrace2, OpenSSH, parallel-ssh, ClusterShell, a C compiler),
# then a virtualenv in .venv with fayshell installed (editable) plus the test tools, at the
# versions of requirements.lock.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"

APT_PACKAGES=(
  lttng-tools liblttng-ust-dev python3-lttngust babeltrace2 python3-bt2
  openssh-server openssh-client pssh clustershell rsync tmux
  gcc libc6-dev python3-venv python3-dev iproute2 util-linux procps passwd
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "bootstrap: installing Debian packages: ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv with $($PY --version 2>&1)" >&2
  "$PY" -m venv .venv
fi
# Installed from requirements.lock (exact versions the suite passed with) as constraints.
# The stamp holds a digest of what the install depends on: a changed lock, pyproject.toml or
# setup.py (a pull, a branch switch) installs again.
stamp=.venv/.fayshell-installed
want="$(cat pyproject.toml requirements.lock setup.py 2>/dev/null | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "bootstrap: installing fayshell and its Python dependencies (requirements.lock) into .venv" >&2
  .venv/bin/python -m pip install -q -c requirements.lock --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -c requirements.lock --build-constraint requirements.lock \
    -e '.[test]'
  # An editable install leaves the package uncompiled; with PYTHONDONTWRITEBYTECODE set, every
  # fresh process would compile it again (~0.1 s per command).
  .venv/bin/python -m compileall -q fayshell >/dev/null
  echo "$want" > "$stamp"
fi
# The node agent's bundle (fayshell's core + duckdb/pyarrow/numpy of this venv), uploaded by the
# shell to nodes for -OnNode queries; rebuilt when the package changed (same content: no-op).
bstamp=.venv/share/fayshell-agent/.built
if [ ! -f "$bstamp" ] || [ -n "$(find fayshell -name '*.py' -newer "$bstamp" -print -quit)" ]; then
  echo "bootstrap: building the node agent bundle" >&2
  .venv/bin/python -m fayshell.remote.agentbundle build .venv/share/fayshell-agent >&2
  touch "$bstamp"
fi
