"""Reaching the cluster: inventory, node sets, SSH connection pool, fan-out, SFTP, quoting.

Public API (import from the submodules; nothing heavy is imported at package import):

* :class:`fayshell.remote.cluster.Cluster` - the entry point, one per shell
  (``ShellState.cluster``). ``resolve(nodes)`` / ``names(nodes)`` / ``fold(names)``;
  ``run(nodes, cmd, timeout=, input=, connect_timeout=, accept_new_host_key=)`` and
  ``stream(...)`` yield per-node records as nodes finish; ``run_all`` collects them;
  ``map(nodes, async fn(transport))`` runs any per-node coroutine; ``pull(nodes, remote,
  local_dir)`` copies a file/dir from every node (SFTP) into ``local_dir/<node>/``;
  ``connect(node)`` and ``files(node)`` reach one node; ``node_names()``/``group_names()``
  feed completion; ``connects`` counts handshakes; ``aclose()``.
* :mod:`fayshell.remote.results` - ``CommandResult``, ``NodeError`` (node, stage, message),
  ``NodeOutcome``, ``OutputLine``, ``GatheredResult``; stages ``connect``, ``auth``,
  ``hostkey``, ``command``, ``timeout``.
* :mod:`fayshell.remote.transport` - ``Transport`` protocol (``run``, ``files``, ``forward``
  a local port to host:port as seen from the node, ``close``): ``SSHTransport``
  (``.connection`` is the asyncssh connection) and ``LocalTransport`` (localhost).
* :mod:`fayshell.remote.files` - ``FileAccess`` (``get``, ``listdir``, ``stat``, ``exists``,
  ``read_bytes``, ``glob``, ``remove``) over SFTP or the local filesystem.
* :mod:`fayshell.remote.quoting` - ``quote``, ``quote_argv``, ``command_line``,
  ``check_name``, ``check_path``, ``check_node_name``: no remote shell string is concatenated.
* :mod:`fayshell.remote.inventory` - ``Inventory`` (TOML), ``SSHConfig``, ``NodeSpec``;
  :mod:`fayshell.remote.sshconfig` reads OpenSSH client config once (fast lookups).
* :mod:`fayshell.remote.nodeset` - ClusterShell node sets: ``expand``, ``fold``.
* :mod:`fayshell.remote.pool` - ``ConnectionPool``, ``PoolSettings`` (handshake bound,
  timeouts, keepalives); :mod:`fayshell.remote.hostkeys` - strict known_hosts + TOFU on request.
* :mod:`fayshell.remote.readiness` - the ``Test-Node`` probe and ``NodeReadiness``.
"""
